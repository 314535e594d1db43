// The first screen and the search box on a large dataset, in headless Chromium: time from navigation to
// the newest report drawn, with the bytes fetched (data / shell; gzip -6 of the same files for a gzip host),
// then keystroke → suggestions drawn for typed queries (a commit prefix, subject words, a Message-ID, a
// testcase, a metric name), measured in the page (input event → the suggestion list's DOM changed).
// Serves SITE (a trunk dist/ whose data/ is the dataset) from 127.0.0.1 without gzip. Prints numbers.
// Usage: node e2e/bench-search.mjs SITE [RUNS]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch } from './harness.mjs';

const site = path.resolve(process.argv[2] || 'dist');
const runs = Number(process.argv[3] || 5);
const root = JSON.parse(fs.readFileSync(path.join(site, 'data/index.json'), 'utf8'));
const gz = new Map();
const gzSize = (rel) => {
  if (!gz.has(rel)) gz.set(rel, zlib.gzipSync(fs.readFileSync(path.join(site, rel)), { level: 6 }).length);
  return gz.get(rel);
};
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))];

const server = await serve(site);
const first = [];
let bytes;
for (let i = 0; i < runs; i++) {
  const { browser, page } = await launch();
  const t0 = Date.now();
  const start = server.requests.length;
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=report-page] [data-testid=report-subject]');
  first.push(Date.now() - t0);
  const got = server.requests.slice(start).filter((r) => / 200$/.test(r)).map((r) => decodeURIComponent(r.split(' ')[1].slice(1)) || 'index.html');
  const sum = (files) => [files.reduce((a, f) => a + fs.statSync(path.join(site, f)).size, 0), files.reduce((a, f) => a + gzSize(f), 0)];
  bytes = { data: sum(got.filter((f) => f.startsWith('data/'))), shell: sum(got.filter((f) => !f.startsWith('data/'))), files: got.length };
  await browser.close();
}
console.log(`dataset: ${root.totals.reports} reports, ${root.testcases.length} testcases`);
console.log(`first screen (newest report drawn): median ${med(first)} ms, min ${Math.min(...first)} ms, max ${Math.max(...first)} ms over ${runs} cold loads`);
console.log(`  fetched: ${bytes.files} files; data ${bytes.data[0]} B (gzip -6 ${bytes.data[1]} B); shell ${bytes.shell[0]} B (gzip -6 ${bytes.shell[1]} B); cold total ${bytes.data[0] + bytes.shell[0]} B (gzip -6 ${bytes.data[1] + bytes.shell[1]} B)`);

const { browser, page } = await launch();
await page.goto(server.url);
await page.waitForSelector('[data-testid=report-page] [data-testid=report-subject]');
const newest = root.newest[0];
const queries = {
  'commit prefix': newest.commit.slice(0, 10),
  'subject words': (newest.subject || '').split(/\s+/).filter((w) => /^[a-z][a-z_.-]{4,}$/i.test(w)).slice(0, 2).join(' '),
  'Message-ID': newest.message_id || newest.id,
  testcase: root.testcases.at(-1).name,
  metric: newest.metric || 'fio.write_iops',
};
// the first keystroke loads every page of the reports list: timed on its own
const loadStart = server.requests.length;
const firstKey = await page.evaluate(async () => {
  const input = document.getElementById('report-search');
  input.focus();
  const t0 = performance.now();
  input.value = 'a';
  input.dispatchEvent(new InputEvent('input', { bubbles: true }));
  const deadline = t0 + 30000;
  while (performance.now() < deadline) {
    const c = document.querySelector('[data-testid=reports-count]')?.textContent || '';
    if (/ of \d+ reports/.test(c)) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - t0;
});
const listFiles = server.requests.slice(loadStart).filter((r) => / 200$/.test(r)).map((r) => r.split(' ')[1].slice(1));
const listBytes = listFiles.reduce((a, f) => a + fs.statSync(path.join(site, f)).size, 0);
const listGz = listFiles.reduce((a, f) => a + gzSize(f), 0);
console.log(`first keystroke loads the whole list: ${firstKey.toFixed(0)} ms, ${listFiles.length} files, ${listBytes} B (gzip -6 ${listGz} B)`);

const all = [];
for (const [kind, q] of Object.entries(queries)) {
  const times = await page.evaluate(async (q) => {
    const input = document.getElementById('report-search');
    const list = document.getElementById('report-search-options');
    input.value = '';
    input.dispatchEvent(new InputEvent('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 300));
    const out = [];
    for (let i = 1; i <= q.length; i++) {
      const changed = new Promise((resolve) => {
        const mo = new MutationObserver(() => {
          mo.disconnect();
          resolve(performance.now());
        });
        mo.observe(list, { childList: true, subtree: true, characterData: true, attributes: true });
        setTimeout(() => {
          mo.disconnect();
          resolve(null);
        }, 500);
      });
      const t0 = performance.now();
      input.value = q.slice(0, i);
      input.dispatchEvent(new InputEvent('input', { bubbles: true }));
      const t1 = await changed;
      // one frame later the suggestions are painted
      await new Promise((r) => requestAnimationFrame(() => r()));
      if (t1 != null) out.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 60)); // a typist's pause: every key is searched
    }
    return out;
  }, q);
  all.push(...times);
  const top = await page.locator('[data-testid=search-option]').first().textContent();
  console.log(`${kind.padEnd(14)} "${q.slice(0, 40)}": ${times.length} keystrokes, median ${med(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms; first suggestion: ${top.slice(0, 70)}`);
}
console.log(`keystroke → suggestions painted (includes the ${25} ms typing pause): median ${med(all).toFixed(1)} ms, p95 ${pct(all, 0.95).toFixed(1)} ms, max ${Math.max(...all).toFixed(1)} ms over ${all.length} keystrokes`);

// a Message-ID pasted and Enter: time until that report's page is drawn, for the newest reports
const opened = [];
for (const r of root.newest.filter((x) => x.message_id).slice(0, 50)) {
  await page.evaluate((mid) => {
    const input = document.getElementById('report-search');
    input.focus();
    input.value = `<${mid}>`;
    input.dispatchEvent(new InputEvent('input', { bubbles: true }));
  }, r.message_id);
  const t0 = Date.now();
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId === id && document.querySelector('[data-testid=report-page] [data-testid=report-subject]'), r.id);
  opened.push(Date.now() - t0);
}
console.log(`paste <Message-ID> + Enter → its report drawn: median ${med(opened)} ms, max ${Math.max(...opened)} ms over ${opened.length} reports`);
await browser.close();
await server.close();
