// The record of any row, on demand, measured: bytes fetched and time from choosing a row's metric to
// its record drawn, in headless Chromium, for reports of a published site (dist/ over a dataset).
//
//   node e2e/bench-row-record.mjs SITE_URL DATA_DIR [REPORTS]
//
// SITE_URL serves the built app with DATA_DIR as its data/ (and its m/, p/, index.html at the root).
// For REPORTS reports (default 8: the newest of the largest testcases), the report's page is opened, the
// app takes it over, "The record of another of its rows…" is opened and the metric of its row with the
// largest change that is not its headline is chosen; printed per report: the testcase, the metric,
// the reports in its record, the files and bytes fetched after the choice (the module's included, as the
// first time), and the milliseconds to the record drawn.

import fs from 'node:fs';
import path from 'node:path';
import { launch, readJson, readDoc } from './harness.mjs';

const [url, dataDir, count = '8'] = process.argv.slice(2);
if (!url || !dataDir) {
  console.error('usage: node e2e/bench-row-record.mjs SITE_URL DATA_DIR [REPORTS]');
  process.exit(2);
}
const root = readJson(path.join(dataDir, 'index.json'));
const newest = [];
const byTestcase = [...root.testcases].sort((a, b) => b.reports - a.reports);
for (const page of root.pages) {
  for (const r of readJson(path.join(dataDir, page)).reports) newest.push(r);
  if (newest.length > 4000) break;
}
const picks = [];
for (const t of byTestcase) {
  const r = newest.find((x) => x.testcases[0] === t.name && x.message_id);
  if (r) picks.push(r);
  if (picks.length >= Number(count)) break;
}

/** The metric of the row with the largest stated change that is not the headline's. */
function rowOf(r) {
  const doc = readDoc(r, dataDir);
  let best = null;
  for (const s of doc.sections ?? []) {
    for (const [, job, metric, , , changes, , flags] of s.rows ?? []) {
      if (flags & 3 || metric === r.metric || doc.jobs[job]?.testcase !== r.testcases[0]) continue;
      const c = (changes ?? []).find((x) => typeof x === 'number');
      if (c !== undefined && (!best || Math.abs(c) > Math.abs(best.c))) best = { metric, c };
    }
  }
  return best?.metric;
}

console.log('testcase\tmetric\trecord\tfiles\tbytes\tms');
for (const r of picks) {
  const metric = rowOf(r);
  if (!metric) continue;
  const { browser, page } = await launch();
  try {
    await page.goto(`${url}m/${r.message_id}/`);
    await page.waitForFunction(() => !document.getElementById('static'), null, { timeout: 60_000 });
    await page.getByTestId('row-record-open').click();
    const input = page.getByTestId('row-record-input');
    await input.waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    let files = 0;
    let bytes = 0;
    page.on('response', async (res) => {
      files += 1;
      const n = (await res.body().catch(() => Buffer.alloc(0))).length;
      bytes += n;
      if (process.env.VERBOSE) console.log(`  ${n}\t${res.url().replace(url, '')}`);
    });
    await input.fill(metric);
    const t0 = await page.evaluate(() => performance.now());
    await input.dispatchEvent('change');
    await page.getByTestId('row-record').locator('h3').first().waitFor({ timeout: 60_000 });
    const t1 = await page.evaluate(() => performance.now());
    const heading = await page.getByTestId('row-record').locator('h3').first().innerText();
    await page.waitForLoadState('networkidle');
    const n = /\((\d+)\)$/.exec(heading)?.[1] ?? '?';
    console.log(`${r.testcases[0]}\t${metric}\t${n}\t${files}\t${bytes}\t${Math.round(t1 - t0)}`);
  } finally {
    await browser.close();
  }
}
fs.writeSync(1, '');
