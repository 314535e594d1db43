// The search index at scale, in headless Chromium against a running static server (nginx with gzip, say):
// per query typed into the search box, the bytes fetched on the wire (the index's shards and summaries),
// and the time from the last of those files' arrival to the suggestions drawn (`data-query` on the list).
// Queries: for N reports picked at random (seeded) from the dataset, their author's address, their head
// commit's id prefix, three words of their commit's title, and their testcase. Prints numbers.
// Usage: node e2e/bench-index-search.mjs BASE_URL DATA_DIR [N]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, readDoc } from './harness.mjs';

const [base, dataDir, nArg] = process.argv.slice(2);
const n = Number(nArg || 15);
const read = (rel) => {
  const b = fs.readFileSync(path.join(dataDir, rel));
  return JSON.parse((b[0] === 0x1f && b[1] === 0x8b ? zlib.gunzipSync(b) : b).toString('utf8'));
};
const root = read('index.json');
const all = root.pages.flatMap((p) => read(p).reports);
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const queries = [];
for (let i = 0; i < n; i++) {
  const r = all[Math.floor(rand() * all.length)];
  const d = readDoc(r, dataDir);
  const to = (d.to ?? [])[0] ?? '';
  const addr = (to.match(/<([^>]+)>/) ?? [null, to])[1];
  if (addr) queries.push(addr);
  if (r.commit) queries.push(r.commit.slice(0, 10));
  const title = d.commits?.[0]?.subject ?? '';
  const words = title.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 3);
  if (words.length) queries.push(words.slice(-3).join(' '));
  if (r.testcases?.[0]) queries.push(r.testcases[0]);
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
const wire = new Map();
page.on('requestfinished', async (req) => {
  try {
    const s = await req.sizes();
    wire.set(req.url(), s.responseBodySize + s.responseHeadersSize);
  } catch {}
});
await page.goto(base, { waitUntil: 'networkidle' });
const rows = [];
for (const q of queries) {
  wire.clear();
  await page.evaluate(() => performance.clearResourceTimings());
  const box = page.getByTestId('report-search');
  await box.fill(q);
  const shown = await page.evaluate(
    (q) =>
      new Promise((resolve) => {
        const ul = document.getElementById('report-search-options');
        const done = () => ul.dataset.query === q && resolve(performance.now());
        done();
        new MutationObserver(done).observe(ul, { attributes: true, attributeFilter: ['data-query'] });
      }),
    q,
  );
  const arrived = await page.evaluate(() =>
    Math.max(0, ...performance.getEntriesByType('resource').filter((e) => /\/data\/(q|l)\//.test(e.name)).map((e) => e.responseEnd)),
  );
  await page.waitForLoadState('networkidle');
  const bytes = [...wire.entries()].filter(([u]) => /\/data\/(q|l)\//.test(u)).reduce((a, [, b]) => a + b, 0);
  const options = await page.getByTestId('search-option').count();
  rows.push({ q, bytes, after: arrived ? shown - arrived : null, options });
  console.log(`${(bytes / 1024).toFixed(1).padStart(6)} KB  ${arrived ? (shown - arrived).toFixed(1).padStart(6) + ' ms after the data' : '   (all cached)        '}  ${options} suggestions  ${q.slice(0, 60)}`);
}
await browser.close();
const sorted = (a) => [...a].sort((x, y) => x - y);
const pct = (a, p) => sorted(a)[Math.min(a.length - 1, Math.floor(a.length * p))];
const kb = rows.map((r) => r.bytes / 1024);
const after = rows.map((r) => r.after).filter((x) => x !== null);
console.log(`queries ${rows.length}: bytes per query median ${pct(kb, 0.5).toFixed(1)} KB, max ${Math.max(...kb).toFixed(1)} KB; ` +
  `suggestions drawn after the last data arrived: median ${pct(after, 0.5).toFixed(1)} ms, p95 ${pct(after, 0.95).toFixed(1)} ms (${after.length} with a fetch); ` +
  `with no suggestion: ${rows.filter((r) => r.options === 0).length}`);
