// A cold visit of the Changes view of one testcase in headless Chromium: navigation → its first rows
// drawn, and → every changes file loaded (the loading status gone), median of RUNS cold loads, with
// the data files and bytes fetched by each moment (gzip -6 of the same files for a gzip host).
// Serves SITE (a trunk dist/ with its data/) from 127.0.0.1 without gzip.
// Usage: node e2e/bench-changes.mjs SITE TESTCASE [RUNS]
import fs from 'node:fs'; import path from 'node:path'; import zlib from 'node:zlib';
import { serve, launch } from './harness.mjs';
const site = path.resolve(process.argv[2]); const testcase = process.argv[3]; const runs = Number(process.argv[4] || 3);
const server = await serve(site);
const fetched = (start) => server.requests.slice(start).filter((r) => / 200$/.test(r)).map((r) => r.split(' ')[1].slice(1).split('?')[0]).filter((f) => f.startsWith('data/'));
const bytes = (files) => files.reduce(([r, g], f) => { const b = fs.readFileSync(path.join(site, f)); return [r + b.length, g + zlib.gzipSync(b, { level: 6 }).length]; }, [0, 0]);
const first = [], whole = []; let atFirst, atWhole;
for (let i = 0; i < runs; i++) {
  const { browser, page } = await launch(); const start = server.requests.length; const t0 = Date.now();
  await page.goto(`${server.url}?view=changes&testcase=${encodeURIComponent(testcase)}`);
  await page.locator('[data-testid=change-row]').first().waitFor({ timeout: 120000 });
  first.push(Date.now() - t0); atFirst = fetched(start);
  await page.locator('[data-testid=changes-csv]:not([disabled])').waitFor({ timeout: 300000 });
  whole.push(Date.now() - t0); atWhole = fetched(start);
  await browser.close();
}
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const [fr, fg] = bytes(atFirst); const [wr, wg] = bytes(atWhole);
console.log(`Changes of ${testcase}: first rows median ${med(first)} ms (${first.join(', ')}), data ${atFirst.length} files ${fr} B (gzip -6 ${fg}); ` +
  `every change loaded median ${med(whole)} ms (${whole.join(', ')}), data ${atWhole.length} files ${wr} B (gzip -6 ${wg})`);
await server.close();
