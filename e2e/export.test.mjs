// Export in headless Chromium: a report's table, the Compare table, the Changes listing and the newest headlines download
// as CSV with every row and the mail's numbers; the trend downloads as an SVG document (the same
// drawing as the canvas) and as a PNG, the latency distribution as CSV, SVG and PNG. Expects dist/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useSite, DIST, loadIndex, chartReady, readDoc } from './harness.mjs';

const index = loadIndex();
const seedReport = index.reports.find((r) => (r.notes || []).some((n) => n.startsWith('This is not a regression')));
const seedJob = index.jobs[seedReport.sections[0].job];

/** The served site and its browser page, for every test of this file. */
const site = useSite();

/** Click `selector` and return the download's file name and bytes. */
async function download(page, selector) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: d.suggestedFilename(), bytes: fs.readFileSync(await d.path()) };
}

/** RFC 4180 → rows of fields: quoted fields may hold commas, quotes ("") and line breaks. */
function parseCsv(text) {
  assert.ok(text.endsWith('\r\n'), 'CRLF line ends');
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\r' && text[i + 1] === '\n') row.push(field), rows.push(row), (row = []), (field = ''), i++;
    else field += c;
  }
  return rows;
}

test("a report's table as CSV: every row, the mail's numbers", async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?report=${encodeURIComponent(seedReport.message_id ?? seedReport.id)}`);
  await page.getByTestId('table-csv').first().waitFor();
  const { name, bytes } = await download(page, '[data-testid=table-csv] >> nth=0');
  assert.match(name, /^lkp-[0-9a-f]{16}-table-1\.csv$/);
  const rows = parseCsv(bytes.toString('utf8'));
  assert.deepEqual(rows[0].slice(0, 3), ['metric', 'base_commit', 'base_mean']);
  const bin = rows.find((r) => r[0] === 'fio.latency_2ms%');
  assert.ok(bin, 'the 2 ms latency bin row');
  assert.equal(bin[9], '7.1', 'its change as the mail printed it (absolute, for a % metric)');
  assert.equal(bin[10], 'absolute');
  // as many rows as the mail's first table (the page may show fewer until "show all")
  const doc = readDoc(seedReport);
  const job = doc.sections[0].rows[0].job;
  const inMail = doc.sections[0].rows.filter((r) => r.job === job).length;
  assert.equal(rows.length - 1, inMail);
  assert.deepEqual(errors, []);
});

test('Compare and Changes as CSV: as many rows as the view lists', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?view=compare&job=${seedJob.id}`);
  await page.getByTestId('compare-table').waitFor();
  const summary = await page.locator('.compare-summary').first().textContent();
  const shown = Number(summary.match(/(\d+) shown/)[1]);
  const c = parseCsv((await download(page, '[data-testid=compare-csv]')).bytes.toString('utf8'));
  assert.equal(c.length - 1, shown, summary);
  assert.ok(c.slice(1).every((r) => r.length === 12 && r[1] && r[5]), 'twelve fields, base and head commits on every row');

  await page.goto(`${site.srv.url}?view=changes&testcase=fio-basic`);
  // fio-basic's changes are two files: the CSV is offered once both are in
  await page.locator('[data-testid=changes-csv]:not([disabled])').waitFor();
  const s = await page.getByTestId('changes-summary').textContent();
  const n = Number(s.match(/(\d+) shown/)[1]);
  const { name, bytes } = await download(page, '[data-testid=changes-csv]');
  assert.equal(name, 'lkp-changes.csv');
  const ch = parseCsv(bytes.toString('utf8'));
  assert.equal(ch.length - 1, n, s);
  assert.deepEqual(ch[0].slice(0, 4), ['testcase', 'job', 'job_label', 'metric']);
  assert.ok(ch.every((r) => r.length === ch[0].length), 'every row has every field');
  assert.ok(ch.slice(1).every((r) => r[0] === 'fio-basic'));
  const noted = ch.find((r) => r[3] === 'fio.latency_2ms%' && /This is not a regression/.test(r.at(-1)));
  assert.ok(noted, "the maintainer's note travels with the change");
  assert.deepEqual(errors, []);
});

test('the trend as SVG and PNG', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?testcase=blogbench&metric=blogbench.write_score`);
  await page.waitForFunction(chartReady);
  const svg = await download(page, '[data-testid=chart-svg]');
  assert.equal(svg.name, 'lkp-blogbench.write_score.svg');
  const text = svg.bytes.toString('utf8');
  assert.match(text, /^<svg [^>]*width="\d+" height="380"/);
  assert.ok((text.match(/<circle/g) || []).length >= 2, 'the points are drawn');
  const png = await download(page, '[data-testid=chart-png]');
  assert.equal(png.name, 'lkp-blogbench.write_score.png');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
  assert.ok(png.bytes.length > 2000, `${png.bytes.length} bytes`);
  assert.deepEqual(errors, []);
});

test('the latency distribution as CSV, SVG and PNG; the newest headlines as CSV', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?view=compare&job=${seedJob.id}`);
  await page.locator('[data-testid=compare-row][data-metric="fio.latency_2ms%"] [data-testid=dist-link]').click();
  await page.getByTestId('dist-chart').waitFor();
  const bins = await page.getByTestId('dist-row').count();
  const csv = parseCsv((await download(page, '[data-testid=dist-csv]')).bytes.toString('utf8'));
  assert.equal(csv.length - 1, bins, 'one line per bin the figure shows');
  const two = csv.find((r) => r[1] === 'fio.latency_2ms%');
  assert.deepEqual([two[0], two[3], two[7], two[10]], ['2ms', '46.56', '53.61', '7.1'], 'the mail\'s 2 ms bin');
  const svg = await download(page, '[data-testid=dist-svg]');
  assert.match(svg.name, /^lkp-fio\.latency[0-9a-f]{12}-[0-9a-f]{12}\.svg$/);
  const text = svg.bytes.toString('utf8');
  assert.match(text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.equal((text.match(/<rect class="head"/g) || []).length, bins, 'a head bar per bin');
  const png = await download(page, '[data-testid=dist-png]');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
  assert.ok(png.bytes.length > 3000, `${png.bytes.length} bytes`);

  await page.goto(`${site.srv.url}?view=changes`);
  await page.getByTestId('recent-changes').waitFor();
  const listed = await page.getByTestId('recent-change').count();
  const { name, bytes } = await download(page, '[data-testid=recent-csv]');
  assert.equal(name, 'lkp-newest-headlines.csv');
  const rows = parseCsv(bytes.toString('utf8'));
  assert.equal(rows.length - 1, listed);
  assert.ok(listed > 5 && rows.slice(1).every((r) => r[1] && r[4]), 'testcase and metric on every row');
  assert.deepEqual(errors, []);
});
