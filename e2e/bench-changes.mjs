// A cold visit of the Changes view of one testcase in headless Chromium: navigation → its first rows
// drawn, and → every changes file loaded (the loading status gone), median of RUNS cold loads, with
// the data files fetched by each moment: their bytes on disk (and gzip -6 of them, for a gzip host)
// and, from resource timing, the bytes the page received for them.
// Serves SITE (a trunk dist/ with its data/) from 127.0.0.1 without gzip, or, with URL=http://…/,
// opens that server (e.g. nginx with gzip serving the same SITE) instead.
// Usage: [URL=http://127.0.0.1:PORT/] node e2e/bench-changes.mjs SITE TESTCASE [RUNS]
import fs from 'node:fs'; import path from 'node:path'; import zlib from 'node:zlib';
import { serve, launch } from './harness.mjs';
const site = path.resolve(process.argv[2]); const testcase = process.argv[3]; const runs = Number(process.argv[4] || 3);
const server = process.env.URL ? null : await serve(site);
const base = process.env.URL || server.url;
const dataFiles = (page) => page.evaluate(() => performance.getEntriesByType('resource')
  .filter((e) => new URL(e.name).pathname.includes('/data/'))
  .map((e) => ({ file: 'data/' + new URL(e.name).pathname.split('/data/')[1], wire: e.transferSize })));
const bytes = (files) => files.reduce(([r, g, w], f) => {
  const b = fs.readFileSync(path.join(site, f.file));
  return [r + b.length, g + zlib.gzipSync(b, { level: 6 }).length, w + f.wire];
}, [0, 0, 0]);
const first = [], whole = []; let atFirst, atWhole;
for (let i = 0; i < runs; i++) {
  const { browser, page } = await launch();
  // the browser keeps 250 resource entries unless told: a testcase's every chunk is more
  await page.addInitScript(() => performance.setResourceTimingBufferSize(1e6));
  const t0 = Date.now();
  await page.goto(`${base}?view=changes&testcase=${encodeURIComponent(testcase)}`);
  await page.locator('[data-testid=change-row]').first().waitFor({ timeout: 120000 });
  first.push(Date.now() - t0); atFirst = await dataFiles(page);
  await page.locator('[data-testid=changes-csv]:not([disabled])').waitFor({ timeout: 300000 });
  whole.push(Date.now() - t0); atWhole = await dataFiles(page);
  await browser.close();
}
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const [fr, fg, fw] = bytes(atFirst); const [wr, wg, ww] = bytes(atWhole);
console.log(`Changes of ${testcase} (${base}): first rows median ${med(first)} ms (${first.join(', ')}), data ${atFirst.length} files ${fr} B (gzip -6 ${fg}, received ${fw}); ` +
  `every change loaded median ${med(whole)} ms (${whole.join(', ')}), data ${atWhole.length} files ${wr} B (gzip -6 ${wg}, received ${ww})`);
if (server) await server.close();
