// End-to-end tests of a catalog's halves (`Index::rest`, `Index::names`): a trend permalink draws its
// chart from what the first chart needs (root, the catalog's first half, the metric's chunk) and fetches
// the rest and names (every report and metric name) after it; a view that needs more loads the rest first; a missing rest
// gives a message naming it.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, DIST, loadIndex, chartReady, decodeMetrics, readJson, changeCountOf } from './harness.mjs';

const index = loadIndex();
const blog = index.root.testcases.find((t) => t.name === 'blogbench');
const first = readJson(path.join(DIST, 'data', blog.catalog));
const REST = `/data/${first.rest}`;
const TREND = '?testcase=blogbench&metric=blogbench.write_score';

const temps = [];
after(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

/** The data paths requested, in order (`GET /data/… 200` → `/data/…`). */
const dataRequests = (srv) => srv.requests.filter((r) => r.startsWith('GET /data/')).map((r) => r.split(' ')[1]);

/** Hold the blogbench catalog's rest back until the returned function is called, as a slow network would. */
async function holdRest(page) {
  let release;
  const held = new Promise((r) => (release = r));
  await page.route(`**${REST}`, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

test('a trend permalink is drawn from the first half of its catalog; the rest follows the chart', async () => {
  const srv = await serve(DIST);
  const { browser, page, errors } = await launch();
  try {
    // hold the rest back until the first chart is seen, as a slow network would
    const release = await holdRest(page);
    await page.goto(srv.url + TREND);
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid=chart]');
      return el?.dataset.pending === 'true' && Number(el.dataset.drawn) > 0;
    });
    const before = dataRequests(srv);
    assert.ok(before.includes(`/data/${blog.catalog}`), before.join('\n'));
    assert.ok(before.some((p) => p.startsWith('/data/s/blogbench/')), before.join('\n'));
    assert.ok(!before.includes(REST), 'the rest is not needed for the first chart');
    release();
    await page.waitForFunction(chartReady);
    assert.ok(dataRequests(srv).includes(REST));
    // whole now: every metric name of the testcase is offered, and a point's tooltip names its report
    await page.getByTestId('metric-search').fill('vmstat');
    // (the query follows the typing after a pause)
    await page.waitForFunction(() => {
      const o = [...document.querySelectorAll('[data-testid=metric-option]')];
      return o.length > 0 && o.every((x) => x.dataset.metric.includes('vmstat'));
    });
    const offered = await page.$$eval('[data-testid=metric-option]', (o) => o.map((x) => x.dataset.metric));
    const vmstat = index.catalogs.blogbench.metrics.filter((m) => m.name.includes('vmstat'));
    assert.ok(vmstat.length > 0);
    assert.deepEqual([...offered].sort(), vmstat.map((m) => m.name).sort());
    assert.ok(!decodeMetrics(first.metrics).some((m) => m.name.includes('vmstat')), 'vmstat metrics are in the names only');
    assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
  } finally {
    await browser.close();
    await srv.close();
  }
});

test('a permalink with a commit chosen loads the whole catalog before its chart', async () => {
  const srv = await serve(DIST);
  const { browser, page, errors } = await launch();
  try {
    const h = index.headlines.find((x) => x.testcase === 'blogbench' && x.head != null);
    const commit = index.commits[h.head].id;
    const subject = index.reports[h.report].subject;
    await page.goto(`${srv.url}${TREND}&commit=${commit}`);
    await page.getByTestId('commit-panel').waitFor();
    await page.waitForFunction(chartReady);
    const got = dataRequests(srv);
    const rest = got.indexOf(REST);
    const chunk = got.findIndex((p) => p.startsWith('/data/s/blogbench/'));
    assert.ok(rest >= 0 && chunk > rest, got.join('\n'));
    // the reports that measured it are the rest's
    await page.waitForFunction((t) => document.querySelector('[data-testid=commit-panel]')?.innerText.includes(t), subject);
    assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
  } finally {
    await browser.close();
    await srv.close();
  }
});

test('a missing rest of a catalog shows an error naming it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lkpx-halves-'));
  temps.push(dir);
  fs.cpSync(DIST, dir, { recursive: true });
  fs.rmSync(path.join(dir, 'data', first.rest));
  const srv = await serve(dir);
  const { browser, page, errors } = await launch();
  try {
    await page.goto(`${srv.url}?view=compare&testcase=blogbench`);
    const box = page.getByTestId('error');
    await box.waitFor({ timeout: 20000 });
    assert.ok((await box.innerText()).includes(first.rest), await box.innerText());
    assert.match(await page.locator('header.top').innerText(), /LKP Explorer/);
    assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
  } finally {
    await browser.close();
    await srv.close();
  }
});

test('views of no testcase fetch only the catalogs they show: the trend and compare of nothing its testcase, Changes none', async () => {
  const srv = await serve(DIST);
  const { browser, page, errors } = await launch();
  const catalogs = () => dataRequests(srv).filter((p) => p.startsWith('/data/t/'));
  try {
    // the trend of nothing: the newest report's headline, from its testcase's catalog alone
    const tc = index.root.newest[0].testcases[0];
    const own = index.root.testcases.find((t) => t.name === tc);
    const ownSpine = readJson(path.join(DIST, 'data', own.catalog));
    await page.goto(`${srv.url}?view=trend`);
    await page.waitForFunction(chartReady);
    assert.equal(new URL(page.url()).searchParams.get('testcase'), tc);
    assert.deepEqual(catalogs().sort(), [`/data/${own.catalog}`, `/data/${ownSpine.rest}`, `/data/${ownSpine.names}`].sort());
    assert.ok(index.root.testcases.length > 10, 'the other testcases were there to fetch');
    // the compare of nothing: the newest headline's job, base against head, from the same catalog
    srv.requests.length = 0;
    await page.goto(`${srv.url}?view=compare`);
    await page.getByTestId('compare-table').waitFor();
    const q = new URL(page.url()).searchParams;
    assert.equal(q.get('testcase'), tc);
    assert.ok(q.get('job'), page.url());
    assert.deepEqual(catalogs().sort(), [`/data/${own.catalog}`, `/data/${ownSpine.rest}`, `/data/${ownSpine.names}`].sort());
    // Changes of no testcase (the root's newest headlines), opened cold and from the Reports tab: no catalog
    srv.requests.length = 0;
    await page.goto(`${srv.url}?view=changes`);
    await page.getByTestId('recent-changes').waitFor();
    srv.requests.length = 0;
    await page.goto(srv.url);
    await page.getByTestId('view-tab-changes').click();
    await page.getByTestId('recent-changes').waitFor();
    assert.equal(new URL(page.url()).searchParams.get('view'), 'changes');
    assert.deepEqual(catalogs(), []);
    assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
  } finally {
    await browser.close();
    await srv.close();
  }
});

test('typing in the search box while the rest loads: the rebuilt page keeps the text and the focus', async () => {
  const srv = await serve(DIST);
  const { browser, page, errors } = await launch();
  try {
    const release = await holdRest(page);
    await page.goto(srv.url + TREND);
    await page.waitForFunction(() => document.querySelector('[data-testid=chart]')?.dataset.pending === 'true');
    await page.keyboard.press('/');
    await page.keyboard.type('blogb');
    release();
    await page.waitForFunction(chartReady);
    // the explorer was rebuilt with the rest: the box is a new one, with the text and the focus
    await page.waitForFunction(() => document.activeElement?.id === 'report-search');
    await page.keyboard.type('ench');
    assert.equal(await page.getByTestId('report-search').inputValue(), 'blogbench');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('q') === 'blogbench');
    assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
  } finally {
    await browser.close();
    await srv.close();
  }
});

test('the Changes of a testcase list its page from the first half; the rest names the reports, then its trend chunks give every change', async () => {
  const srv = await serve(DIST);
  const { browser, page, errors } = await launch();
  try {
    const fio = index.catalogs['fio-basic'];
    assert.equal(fio.changes.length, 1);
    const rest = `/data/${fio.rest}`;
    let release;
    const held = new Promise((r) => (release = r));
    await page.route(`**${rest}`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${srv.url}?view=changes&testcase=fio-basic`);
    const rows = page.locator('[data-testid=change-row]');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 200);
    const before = dataRequests(srv);
    assert.ok(before.includes(`/data/${fio.changes[0]}`), before.join('\n'));
    const late = fio.chunks.filter((c) => !fio.first.chunks.includes(c));
    assert.ok(late.length > 0 && late.every((c) => !before.includes(`/data/${c}`)), 'the trend chunks wait for the rest');
    assert.equal(await page.locator('[data-testid=change-row] td.links a').count(), 0, 'no report link before the rest');
    release();
    await page.locator('[data-testid=changes-csv]:not([disabled])').waitFor();
    const after = dataRequests(srv);
    assert.ok(after.includes(rest) && fio.chunks.every((c) => after.includes(`/data/${c}`)), after.join('\n'));
    assert.ok((await page.locator('[data-testid=change-row] td.links a').count()) > 0, 'the reports are linked');
    const all = changeCountOf(index, 'fio-basic');
    assert.match(await page.getByTestId('changes-summary').innerText(), new RegExp(`^${all} changes in scope`));
    assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
  } finally {
    await browser.close();
    await srv.close();
  }
});
