// A cold visit of ?view=trend in headless Chromium: navigation → the chart drawn (median of RUNS cold loads),
// with the files and bytes fetched (shell: everything outside data/; gzip -6 of the same files for a gzip host).
// Serves SITE (a trunk dist/) from 127.0.0.1 without gzip. Usage: node e2e/bench-trend.mjs SITE [RUNS]
import fs from 'node:fs'; import path from 'node:path'; import zlib from 'node:zlib';
import { serve, launch } from './harness.mjs';
const site = path.resolve(process.argv[2]); const runs = Number(process.argv[3] || 5);
const server = await serve(site); const times = []; let files;
for (let i = 0; i < runs; i++) {
  const { browser, page } = await launch(); const start = server.requests.length; const t0 = Date.now();
  await page.goto(server.url + '?view=trend');
  await page.waitForFunction(() => { const el = document.querySelector('[data-testid=chart]'); return el && Number(el.dataset.drawn) > 0; }, null, { timeout: 120000 });
  times.push(Date.now() - t0);
  files = server.requests.slice(start).filter((r) => / 200$/.test(r)).map((r) => r.split(' ')[1].slice(1).split('?')[0]);
  await browser.close();
}
let raw = 0, gz = 0, draw = 0, dgz = 0;
for (const f of files) { const b = fs.readFileSync(path.join(site, f === '' ? 'index.html' : f)); const g = zlib.gzipSync(b, { level: 6 }).length; if (f.startsWith('data/')) { draw += b.length; dgz += g; } else { raw += b.length; gz += g; } }
times.sort((a, b) => a - b);
console.log(`?view=trend first chart: median ${times[runs >> 1]} ms (min ${times[0]}, max ${times.at(-1)}) over ${runs}; ${files.length} files; shell ${raw} B (gzip -6 ${gz}); data ${draw} B (gzip -6 ${dgz})`);
await server.close();
