// A report's headline metric in other reports, and its commit in other reports, on the fixtures plus
// the real public-inbox epoch of fixtures/archives (two commits reported on linux-next, then again when
// they reached linus:master), imported by the release lkpx the data-freshness stage built: on every
// static page with JavaScript off (counts checked against the published summaries), and in the app,
// which keeps the page's record when it takes over and fetches another report's when it opens it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, archiveSite, readJson, readDoc, CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';

let site;
let srv;
let all;
let www;

/** The report pair of one commit in the epoch: linux-next first, linus:master later. */
const PAIR = ['202503102146.28d80a16-lkp@intel.com', '202506042113.498dd81a-lkp@intel.com'];

/** A reply this test writes (no such mail was sent): to a cpuidle report of 38f83090f5, naming as
 * fixed the commit of PAIR (85975daeaa, reported on linux-next and on linus:master). */
const NAMING = '202410072214.11d18a3c-oliver.sang@intel.com';
const NAMED = '85975daeaa4d6ec560bfcd354fc9c08ad7f38888';
const REPLY = `From: Tom Tester <tom@example.org>
To: kernel test robot <oliver.sang@intel.com>
Subject: Re: [linux-next:master] [cpuidle]  38f83090f5:  fsmark.app_overhead 51.9% regression
Date: Fri, 11 Oct 2024 09:00:00 +0100
Message-ID: <named-commit-test@example.org>
In-Reply-To: <${NAMING}>
References: <${NAMING}>
Content-Type: text/plain; charset=UTF-8

The fix for this one is in the menu governor:

Fixes: ${NAMED.slice(0, 12)} ("cpuidle: menu: Avoid discarding useful information")
`;

let replyDir;

before(async () => {
  replyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lkpx-record-reply-'));
  fs.writeFileSync(path.join(replyDir, 'reply.eml'), REPLY);
  ({ site, www, all } = archiveSite('record', [replyDir]));
  srv = await serve(www);
});

after(async () => {
  await srv?.close();
  fs.rmSync(site, { recursive: true, force: true });
  fs.rmSync(replyDir, { recursive: true, force: true });
});

const pageUrl = (r) => `${srv.url}m/${encodeURIComponent(r.message_id ?? r.id).replace(/%40/g, '@')}/`;
const sameRecord = (a, b) => a.id !== b.id && a.metric && a.metric === b.metric && a.testcases[0] === b.testcases[0];
const namesCommit = (x, y) => {
  const n = Math.min(x.length, y.length);
  return n >= 7 && x.slice(0, n).toLowerCase() === y.slice(0, n).toLowerCase();
};
const sameCommit = (a, b) => a.id !== b.id && !!a.commit && !!b.commit && namesCommit(a.commit, b.commit);
/** The reports of the commits r's replies name, and the reports whose replies name r's commit. */
const named = (r) => all.filter((x) => x.id !== r.id && !sameCommit(r, x) && x.commit && (r.names ?? []).some((c) => namesCommit(c, x.commit)));
const naming = (r) => all.filter((x) => x.id !== r.id && !sameCommit(r, x) && r.commit && (x.names ?? []).some((c) => namesCommit(c, r.commit)));
const hrefs = (loc) => loc.locator('a').evaluateAll((as) => as.map((a) => decodeURIComponent(a.getAttribute('href'))));
const pagesOf = (list) => list.map((x) => `m/${x.message_id ?? x.id}/`).sort();

test('JavaScript off: every report page shows its metric in other reports and its commit in other reports, counted as the data says', async () => {
  const browser = await (await import('playwright-core')).chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    let records = 0;
    let commits = 0;
    let replies = 0;
    let names = 0;
    for (const r of all) {
      await page.goto(pageUrl(r));
      const others = all.filter((x) => sameRecord(r, x));
      const rec = page.getByTestId('metric-record');
      assert.notEqual(await page.title(), '', pageUrl(r));
      if (!r.metric) {
        assert.equal(await rec.count(), 0, `${r.id}: no headline, no record`);
        continue;
      }
      assert.match(await rec.locator('h3').innerText(), new RegExp(`^${r.metric.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} in other reports of .* \\(${others.length}\\)$`));
      if (others.length) {
        const mine = [r, ...others];
        const regressions = mine.filter((x) => x.word === 'regression').length;
        const improvements = mine.filter((x) => x.word === 'improvement').length;
        const line = await page.getByTestId('record-summary').innerText();
        assert.ok(line.startsWith(`Reported ${mine.length} times`) && line.includes(`: ${regressions} regressions, ${improvements} improvements`), `${r.id}: ${line}`);
        const links = await page.getByTestId('record-list').locator('a').evaluateAll((as) => as.map((a) => decodeURIComponent(a.getAttribute('href'))));
        assert.deepEqual(links.sort(), others.map((x) => `m/${x.message_id ?? x.id}/`).sort(), `${r.id}: the record lists every other report`);
        // what came of each: the start of its first reply
        const quoted = await page.getByTestId('record-list').getByTestId('record-reply').allInnerTexts();
        assert.deepEqual(quoted.sort(), others.filter((x) => x.reply).map((x) => x.reply).sort(), `${r.id}: replies`);
        replies += quoted.length;
        records += 1;
      }
      const same = all.filter((x) => sameCommit(r, x));
      const box = page.getByTestId('same-commit');
      assert.equal(await box.count(), same.length ? 1 : 0, `${r.id}: same commit`);
      if (same.length) {
        const links = await box.locator('a').evaluateAll((as) => as.map((a) => decodeURIComponent(a.getAttribute('href'))));
        assert.deepEqual(links.sort(), same.map((x) => `m/${x.message_id ?? x.id}/`).sort());
        commits += 1;
      }
      const [fwd, back] = [named(r), naming(r)];
      const sec = page.getByTestId('named-commits');
      assert.equal(await sec.count(), fwd.length || back.length ? 1 : 0, `${r.id}: named commits`);
      if (fwd.length || back.length) {
        assert.deepEqual((await hrefs(page.getByTestId('named-report'))).sort(), pagesOf(fwd), `${r.id}: the reports of the commits its replies name`);
        assert.deepEqual((await hrefs(page.getByTestId('naming-report'))).sort(), pagesOf(back), `${r.id}: the reports whose replies name its commit`);
        names += 1;
      }
    }
    assert.ok(records >= 10, `${records} pages with a record`);
    assert.ok(names >= 3, `${names} pages linking the reports of a commit a reply names, or back`);
    assert.ok(replies >= 1, `${replies} replies quoted in records`);
    assert.ok(commits >= 4, `${commits} pages linking their commit's other report (two pairs, both ways)`);
  } finally {
    await browser.close();
  }
});

test('a reply naming a commit as fixed links its reports, and their pages link back', async () => {
  const from = all.find((r) => r.message_id === NAMING);
  assert.deepEqual(from?.names, [NAMED.slice(0, 12)], "the reply's Fixes: is the report's named commit");
  assert.deepEqual(named(from).map((r) => r.message_id).sort(), [...PAIR].sort(), 'both reports of the commit');
  for (const m of PAIR) assert.deepEqual(naming(all.find((r) => r.message_id === m)).map((r) => r.message_id), [NAMING]);
  const browser = await (await import('playwright-core')).chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await page.goto(pageUrl(from));
    const sec = page.getByTestId('named-commits');
    assert.match(await sec.innerText(), /Its replies name 85975daeaa4d \(a fix or a revert\); reported in:/);
    assert.deepEqual((await hrefs(page.getByTestId('named-report'))).sort(), PAIR.map((m) => `m/${m}/`).sort());
    await page.goto(pageUrl(all.find((r) => r.message_id === PAIR[1])));
    assert.match(await page.getByTestId('named-commits').innerText(), /The replies to these reports name its commit 85975daeaa4d/);
    assert.deepEqual(await hrefs(page.getByTestId('naming-report')), [`m/${NAMING}/`]);
  } finally {
    await browser.close();
  }
});

/** The reports that state a change of each metric in each testcase, from the published documents
 * (a row: [line, job, metric, values, stddev_pct, changes, change_kind, flags (1 fail, 2 aggregate)]):
 * `testcase \0 metric` → report ids. */
function statedChanges() {
  const out = new Map();
  for (const r of all) {
    const doc = readDoc(r, www);
    for (const s of doc.sections ?? []) {
      for (const [, job, metric, , , changes, , flags] of s.rows ?? []) {
        if (flags & 3 || !metric || !(changes ?? []).some((c) => typeof c === 'number' && Number.isFinite(c))) continue;
        const k = `${doc.jobs[job]?.testcase}\0${metric}`;
        if (!out.has(k)) out.set(k, new Set());
        out.get(k).add(r.id);
      }
    }
  }
  return out;
}

test('the record of any row, on demand: another metric of the report chosen, the reports that stated a change of it, counted as the documents say', async () => {
  const stated = statedChanges();
  // the report and row with the most other reports stating a change of the row's metric (not its headline)
  let best = null;
  for (const r of all) {
    const tc = r.testcases[0];
    for (const [k, ids] of stated) {
      const [t, metric] = k.split('\0');
      if (t !== tc || metric === r.metric || !ids.has(r.id)) continue;
      const n = ids.size - 1;
      if (!best || n > best.n || (n === best.n && `${r.id}${metric}` < `${best.r.id}${best.metric}`)) best = { r, metric, n, ids };
    }
  }
  assert.ok(best && best.n >= 3, `a row whose metric 3 other reports stated: ${best?.n}`);
  const { r, metric, n, ids } = best;
  const { browser, page, errors } = await launch();
  try {
    await page.goto(pageUrl(r));
    await page.waitForFunction(() => !document.getElementById('static'), null, { timeout: 30_000 });
    await page.getByTestId('row-record-open').click();
    const input = page.getByTestId('row-record-input');
    await input.waitFor({ timeout: 20_000 });
    const offered = await page.locator('#row-metrics option').evaluateAll((os) => os.map((o) => o.value));
    assert.ok(offered.includes(metric) && offered.includes(r.metric), `the report's rows are offered (${offered.length})`);
    await input.fill(metric);
    await input.dispatchEvent('change');
    const box = page.getByTestId('row-record');
    await box.waitFor({ timeout: 30_000 });
    assert.equal(await box.locator('h3').first().innerText(), `${metric} in other reports of ${r.testcases[0]} (${n})`);
    assert.match(await box.getByTestId('record-summary').innerText(), new RegExp(`^Reported ${n + 1} times since \\d{4}`));
    const links = await hrefs(box.getByTestId('record-list'));
    const want = all.filter((x) => x.id !== r.id && ids.has(x.id)).map((x) => `m/${x.message_id ?? x.id}/`);
    assert.equal(links.length, Math.min(n, 12), 'the nearest reports listed');
    for (const l of links) assert.ok(want.includes(l), `${l} stated a change of ${metric}`);
    // the address keeps the row: opened again, the same record; a row the report has not is said so
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('row'), metric, page.url());
    const heading = await box.locator('h3').first().innerText();
    await page.goto(url.href);
    await page.getByTestId('row-record').locator('h3').first().waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('row-record').locator('h3').first().innerText(), heading);
    assert.equal(await page.getByTestId('row-record-input').inputValue(), metric);
    url.searchParams.set('row', 'no.such.metric');
    await page.goto(url.href);
    await page.getByTestId('record-error').waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId('record-error').innerText(), /this report states no change of no\.such\.metric/);
    url.searchParams.set('row', metric);
    await page.goto(url.href);
    await page.getByTestId('row-record').locator('h3').first().waitFor({ timeout: 30_000 });
    // a link opens that report in place
    await box.getByTestId('record-list').locator('a').first().click();
    const others = all.filter((x) => x.id !== r.id && ids.has(x.id)).map((x) => x.id);
    await page.waitForFunction((want) => want.includes(document.querySelector('[data-report-id]')?.getAttribute('data-report-id')), others, { timeout: 20_000 });
    assert.equal(await page.getByTestId('record-error').count(), 0);
    assert.equal(new URL(page.url()).searchParams.get('row'), null, 'another report: no row of it named');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('the app keeps the page record when it takes over, and opening the other report of the commit fetches its record', async () => {
  const { browser, page, errors } = await launch();
  try {
    const [next, master] = PAIR.map((m) => all.find((r) => r.message_id === m));
    assert.ok(next && master && sameCommit(next, master), 'the epoch holds the pair');
    assert.match(next.branch ?? '', /linux-next/);
    assert.match(master.branch ?? '', /linus/);
    await page.goto(pageUrl(master));
    await page.waitForFunction(() => !document.getElementById('static'), null, { timeout: 30_000 });
    const box = page.getByTestId('same-commit');
    await box.waitFor();
    assert.match(await box.innerText(), /linux-next/);
    // the record (and its signs of noise) stands beside the headlines: after them, before the commits
    const order = await page.evaluate(() => {
      const at = (id) => document.querySelector(`article.report [data-testid=${id}]`);
      const [h, r, c] = ['report-headline', 'metric-record', 'report-commit'].map(at);
      const before = (a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
      return h && r && c ? before(h, r) && before(r, c) : `missing: ${[h, r, c].map((e) => !!e)}`;
    });
    assert.equal(order, true, 'the record follows the headlines and precedes the commits');
    const link = box.locator(`a[href="m/${next.message_id}/"]`);
    assert.equal(await link.count(), 1);
    await link.click();
    await page.waitForFunction((id) => document.querySelector(`[data-report-id="${id}"]`), next.id, { timeout: 20_000 });
    await page.getByTestId('same-commit').locator(`a[href="m/${master.message_id}/"]`).waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('record-error').count(), 0);
    assert.ok(page.url().includes(encodeURIComponent(next.message_id).replace(/%40/g, '@')) || page.url().includes(next.message_id), page.url());
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('what came of a report: the patch that closes it is a note on its page, with its lore link, and in the app', async () => {
  const mid = '202412271132.a09c3500-lkp@intel.com';
  const r = all.find((x) => x.message_id === mid);
  assert.ok(r, 'the epoch holds the report the patch closes');
  assert.match(r.reply ?? '', /^2024-12-27 Jens Axboe: Fix posted: \[PATCH\] io_uring\/rw: always clear ->bytes_done/);
  const patchUrl = 'https://lore.kernel.org/all/1e3d150c-8d0c-42b9-b479-0aa55f0ab86f@kernel.dk/';
  const browser = await (await import('playwright-core')).chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await page.goto(pageUrl(r));
    const first = page.getByTestId('report-notes').locator('blockquote').first();
    assert.match(await first.innerText(), /Fix posted: \[PATCH\] io_uring\/rw: always clear ->bytes_done on io_async_rw setup\nCloses: this report/);
    assert.equal(await first.locator(`a[href="${patchUrl}"]`).count(), 1, 'the patch on lore, linked');
  } finally {
    await browser.close();
  }
  const { browser: b2, page, errors } = await launch();
  try {
    await page.goto(pageUrl(r));
    await page.waitForFunction(() => !document.getElementById('static'), null, { timeout: 30_000 });
    const first = page.getByTestId('report-notes').locator('blockquote').first();
    await first.waitFor();
    assert.equal(await first.locator(`a[href="${patchUrl}"]`).count(), 1, 'the app links it too');
    assert.deepEqual(errors, []);
  } finally {
    await b2.close();
  }
});
