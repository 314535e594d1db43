// Every report is a page: what `lkpx import` writes as static HTML (m/<Message-ID>/, the first
// screen, the lists), read with JavaScript off, checked by axe-core, and taken over by the app
// without a blank frame, a second copy or a changed address. Expects dist/ (trunk build --release).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useSite, ROOT, DIST, loadIndex, CHROMIUM, CHROMIUM_ARGS, settleOnTheApp, readJson, readDoc, seriesOf, chunkOf, chartReady } from './harness.mjs';

const AXE = fs.readFileSync(path.join(ROOT, 'e2e/node_modules/axe-core/axe.min.js'), 'utf8');
const index = loadIndex();
const site = useSite();
const keyOf = (r) => r.message_id ?? r.id;

/** The folder of a report's page: its Message-ID as it is, else its id (`model::paths::page_dir`). */
const pageDir = (r) => (r.message_id && /^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,200}$/.test(r.message_id) && !r.message_id.startsWith('.') ? r.message_id : r.id);

/** The rows a report's page must show: per section and job, base against each later column. */
function rowsOf(doc) {
  let n = 0;
  for (const s of doc.sections) {
    // a row: [line, job, metric, values, stddev_pct, changes, change_kind, flags (1 fail, 2 aggregate), ...]
    const rows = (s.rows ?? []).map((r) => ({ job: r[1], fail: (r[7] & 1) !== 0, aggregate: (r[7] & 2) !== 0 }));
    const jobs = new Set(rows.map((r) => r.job));
    const cols = Math.max(s.commits.length, 2) - 1;
    for (const j of jobs) n += cols * rows.filter((r) => r.job === j && !r.aggregate && !r.fail).length;
  }
  return n;
}

async function browserWithout(js) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ javaScriptEnabled: js, viewport: { width: 1280, height: 900 } });
  return { browser, context, page: await context.newPage() };
}

test('JavaScript off: every report page shows its subject, headline and every row; the first screen links its reports', async () => {
  const { browser, page } = await browserWithout(false);
  try {
    assert.ok(index.reports.length >= 20, 'the bundled data has the fixtures');
    let profiles = 0;
    for (const r of index.reports) {
      const url = `${site.srv.url}m/${encodeURIComponent(pageDir(r)).replace(/%40/g, '@')}/`;
      const res = await page.goto(url);
      assert.equal(res.status(), 200, url);
      const words = (t) => t.replace(/\s+/g, ' ').trim();
      assert.equal(words(await page.getByTestId('report-subject').innerText()), words(r.subject ?? r.source), url);
      const doc = readDoc(r);
      if ((doc.headlines ?? []).length) {
        assert.ok((await page.getByTestId('report-headline').count()) === doc.headlines.length, `${url}: headlines`);
      }
      const texts = await page.locator('[data-testid=report-rows]').allInnerTexts();
      const shown = texts.map((t) => t.trim().split('\n').length - 1).reduce((a, b) => a + b, 0);
      assert.equal(shown, rowsOf(doc), `${url}: every row of every table`);
      assert.equal(await page.locator('.controls').count(), 0, `${url}: no controls that need the app`);
      // a table with call chains, children or self rows has a view (older mails' other perf-profile rows make none)
      const profiled = doc.sections.filter((s) => s.rows.some((row) => /^perf-profile\.(calltrace|children|self)\./.test(String(row[2])))).length;
      const trees = await page.getByTestId('perf-profile').evaluateAll((ds) => ds.map((d) => d.querySelectorAll('ol.profile li').length));
      assert.ok(profiled ? trees.length >= profiled : trees.length === 0, `${url}: ${trees.length} perf-profile views, ${profiled} tables`);
      assert.ok(trees.every((n) => n > 0), `${url}: no empty perf-profile view`);
      profiles += await page.getByTestId('profile-tree').count();
    }
    assert.ok(profiles >= 5, `${profiles} perf-profile call trees`);
    await page.goto(site.srv.url);
    const links = await page.locator('[data-testid=report-item] a').evaluateAll((as) => as.map((a) => a.href));
    assert.ok(links.length >= 10, `the first screen lists ${links.length} reports`);
    for (const href of links.slice(0, 12)) {
      await page.goto(href);
      await page.getByTestId('report-page').waitFor();
    }
    // every report is reachable by links alone: the list of all reports holds them all
    await page.goto(site.srv.url);
    await page.getByRole('link', { name: /^All \d+ reports$/ }).click();
    const listed = new Set();
    for (;;) {
      for (const h of await page.locator('[data-testid=report-item] a').evaluateAll((as) => as.map((a) => a.href))) listed.add(h);
      const older = page.locator('a[rel=next]');
      if (!(await older.count())) break;
      await older.click();
    }
    assert.equal(listed.size, index.reports.length, 'the lists link every report');
  } finally {
    await browser.close();
  }
});

/** What a testcase's page draws (`render::trend::metric_of`): its most reported headline metric, else
 * its first KPI; the series of that metric with a value, and their points, from the published chunk. */
function trendOf(name) {
  const c = index.catalogs[name];
  const metric = c.testcases[0]?.headline_metrics?.[0] ?? c.metrics.find((m) => m.kpi)?.name;
  if (!metric) return null;
  const series = seriesOf(index, chunkOf(index, name, metric), metric).series.filter((s) => s.points.mean.some((m) => m != null));
  const points = series.map((s) => s.points.mean.filter((m) => m != null).length).reduce((a, b) => a + b, 0);
  return series.length ? { metric, series: series.length, points } : null;
}

test("JavaScript off: a testcase's page draws its metric's trend as SVG, with the published counts", async () => {
  const { browser, page } = await browserWithout(false);
  try {
    let drawn = 0;
    for (const t of index.root.testcases) {
      assert.match(t.name, /^[A-Za-z0-9._-]+$/, 'a fixture testcase names its page folder as it is');
      const url = `${site.srv.url}p/tc/${t.name}/`;
      assert.equal((await page.goto(url)).status(), 200, url);
      const want = trendOf(t.name);
      const fig = page.getByTestId('static-trend');
      if (!want) {
        assert.equal(await fig.count(), 0, `${url}: no series with a value, no chart`);
        continue;
      }
      drawn += 1;
      const got = await fig.evaluate((f) => ({
        metric: f.dataset.metric, series: Number(f.dataset.series), points: Number(f.dataset.points),
        circles: f.querySelectorAll('svg circle').length, legend: f.querySelectorAll('.legend li[title]').length,
        box: f.querySelector('svg').getBoundingClientRect().height,
      }));
      assert.deepEqual([got.metric, got.series, got.points], [want.metric, want.series, want.points], url);
      assert.equal(got.legend, Math.min(want.series, 24), `${url}: a legend entry per series (the first 24)`);
      assert.ok(got.circles >= want.series && got.box > 200, `${url}: the chart is drawn (${got.circles} circles, ${got.box} px high)`);
    }
    assert.ok(drawn >= 20, `${drawn} testcase pages draw a trend`);
  } finally {
    await browser.close();
  }
});

test("a testcase's page stays the static page (no app on a list), and its link opens the same trend in the app", async () => {
  const { browser } = site.ctx;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const asked = [];
    page.on('request', (r) => asked.push(r.url()));
    await page.goto(`${site.srv.url}p/tc/fsmark/`);
    await page.waitForLoadState('load');
    await page.waitForTimeout(500);
    assert.ok(!asked.some((u) => /boot\.js|\.wasm/.test(u)), `a list page starts no app: ${asked.join(' ')}`);
    assert.equal(await page.locator('#static').count(), 1);
    const fig = page.getByTestId('static-trend');
    const want = trendOf('fsmark');
    assert.equal(await fig.getAttribute('data-points'), String(want.points));
    await fig.getByRole('link', { name: 'explore this trend' }).click();
    await page.waitForURL(/\?testcase=fsmark&metric=fsmark\.files_per_sec$/);
    await page.waitForFunction(chartReady, null, { timeout: 30_000 });
    const chart = page.getByTestId('chart');
    assert.equal(await chart.getAttribute('data-points'), String(want.points), 'the app draws the points the page drew');
  } finally {
    await context.close();
  }
});

test('a lore link with its host swapped opens the report page', async () => {
  const { browser, page } = await browserWithout(false);
  try {
    const r = index.reports.find((r) => r.message_id && pageDir(r) === r.message_id && /@intel\.com$/.test(r.message_id));
    assert.ok(r, 'a robot report with a plain Message-ID');
    const lore = new URL(`https://lore.kernel.org/m/${r.message_id}/`);
    const ours = `${site.srv.url}${lore.pathname.slice(1)}`;
    assert.equal((await page.goto(ours)).status(), 200, ours);
    assert.equal((await page.getByTestId('report-page').getAttribute('data-report-id')), r.id);
  } finally {
    await browser.close();
  }
});

test('axe-core: zero violations on a static report page, the first screen and a testcase page (light, dark, 400 px)', async () => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const r = index.reports.find((r) => /4ae2edf12d/.test(r.subject ?? '')) ?? index.reports[0];
    for (const colorScheme of ['light', 'dark']) {
      for (const width of [1280, 400]) {
        const context = await browser.newContext({ colorScheme, viewport: { width, height: 900 } });
        // the page as it is without the app: boot.js never arrives
        await context.route('**/boot.js', (route) => route.abort());
        const page = await context.newPage();
        const pages = [[`${site.srv.url}m/${pageDir(r)}/`, 'report-page'], [site.srv.url, 'report-page'], [`${site.srv.url}p/tc/fsmark/`, 'static-trend']];
        for (const [url, shown] of pages) {
          await page.goto(url);
          await page.getByTestId(shown).waitFor();
          await page.addScriptTag({ content: AXE });
          const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations.map((x) => `${x.id}: ${x.help} (${x.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')})`));
          assert.deepEqual(v, [], `${url} (${colorScheme}, ${width} px)`);
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
});

test('the app takes a report page over: no blank frame, one copy, the same address', async () => {
  const { browser } = site.ctx;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  try {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    // each frame from the first one that shows the report: is a report subject visible?
    await page.addInitScript(() => {
      window.__frames = [];
      const look = () => {
        const subjects = [...document.querySelectorAll('[data-testid=report-subject]')].filter((e) => e.offsetParent !== null);
        window.__frames.push({ shown: subjects.length, static: !!document.getElementById('static') });
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    const r = index.reports.find((r) => r.message_id && pageDir(r) === r.message_id && r.subject);
    const url = `${site.srv.url}m/${r.message_id}/`;
    const from = site.srv.requests.length;
    await page.goto(url);
    await page.waitForFunction(() => !document.getElementById('static'), null, { timeout: 30_000 });
    await page.waitForTimeout(300);
    // the app read the report's document from the page it took over: the page fetched once, no document
    const fetched = site.srv.requests.slice(from);
    assert.equal(fetched.filter((q) => q.includes(`/m/${r.message_id}/ `)).length, 1, fetched.join('\n'));
    assert.deepEqual(fetched.filter((q) => / \/data\/d\//.test(q)), [], fetched.join('\n'));
    const frames = await page.evaluate(() => window.__frames);
    const first = frames.findIndex((f) => f.shown > 0);
    assert.ok(first >= 0 && frames.some((f) => f.static && f.shown) && frames.some((f) => !f.static && f.shown), 'the static page, then the app');
    const blank = frames.slice(first).filter((f) => f.shown !== 1);
    assert.deepEqual(blank, [], 'from the first frame on, exactly one report shown in every frame');
    assert.equal(await page.locator('[data-testid=report-page]').count(), 1, 'one copy');
    assert.equal(await page.getByTestId('report-page').getAttribute('data-report-id'), r.id);
    assert.equal(page.url(), url, 'the address the user opened stays');
    assert.ok(await page.getByTestId('report-list').isVisible(), 'the app: the reports list beside the report');
    // back at the root with another report chosen, reload gives that report (the permalink)
    await page.locator('[data-testid=report-item] a').filter({ hasNotText: r.subject }).first().click();
    await page.waitForURL(/\?report=/);
    const other = await page.getByTestId('report-page').getAttribute('data-report-id');
    assert.notEqual(other, r.id);
    settleOnTheApp(page);
    await page.reload();
    await page.getByTestId('report-page').waitFor();
    assert.equal(await page.getByTestId('report-page').getAttribute('data-report-id'), other);
    // and the first screen, taken over the same way
    await page.goto(site.srv.url);
    assert.equal(await page.locator('[data-testid=report-page]').count(), 1);
    assert.equal(await page.locator('[data-testid=report-list]').count(), 1);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a report's page is painted before the app is fetched; an address with a query starts the app at once", async () => {
  const { browser } = site.ctx;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const r = index.reports.find((r) => r.message_id && pageDir(r) === r.message_id && r.subject);
    await page.goto(`${site.srv.url}m/${r.message_id}/`);
    await page.waitForFunction(() => !document.getElementById('static'), null, { timeout: 30_000 });
    const t = await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      app: performance.getEntriesByType('resource').filter((e) => /boot\.js|main\.css|app-[0-9a-f]+\//.test(e.name)).map((e) => [e.name, e.startTime]),
    }));
    assert.ok(t.fcp > 0, 'the page painted');
    assert.ok(t.app.length >= 3, `boot.js, main.css and the app fetched: ${JSON.stringify(t.app)}`);
    const early = t.app.filter(([, at]) => at < t.fcp);
    assert.deepEqual(early, [], `fetched before the first contentful paint at ${t.fcp} ms`);
    // a query asks the app for another view: the page waits hidden (nothing to paint), the app starts
    const t0 = Date.now();
    await page.goto(`${site.srv.url}m/${r.message_id}/?report=${encodeURIComponent(r.message_id)}`);
    await page.waitForFunction(() => !document.getElementById('static') && document.querySelector('[data-testid=report-page]'));
    assert.ok(Date.now() - t0 < 2500, `the app started at once, not after the 3 s fallback (${Date.now() - t0} ms)`);
    assert.equal(await page.getByTestId('report-page').getAttribute('data-report-id'), r.id);
  } finally {
    await context.close();
  }
});

test("a static page takes the theme the reader chose in the app, before the app starts", async () => {
  const { browser } = site.ctx;
  const context = await browser.newContext({ colorScheme: 'light' });
  try {
    await context.route('**/boot.js', (route) => route.abort());
    const page = await context.newPage();
    await page.addInitScript(() => localStorage.setItem('lkpx-theme', 'dark'));
    const r = index.reports.find((r) => r.message_id && pageDir(r) === r.message_id);
    await page.goto(`${site.srv.url}m/${r.message_id}/`);
    await page.getByTestId('report-page').waitFor();
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    assert.equal(bg, 'rgb(24, 26, 29)', 'the dark page though the system is light');
  } finally {
    await context.close();
  }
});
