// A small benchmark of the release build (not a test): `node e2e/bench.mjs` after `trunk build --release`.
// Prints the median time from navigation to the first drawn chart, the median time from a filter click to
// the redrawn chart, and the raw and gzip sizes of the wasm, JS and CSS that the page loads.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, DIST, loadIndex } from './harness.mjs';

const RUNS = Number(process.env.RUNS || 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${ms.toFixed(0)} ms`;

function sizes() {
  const rows = [];
  for (const f of fs.readdirSync(DIST)) {
    if (!/\.(wasm|js|css)$/.test(f)) continue;
    const buf = fs.readFileSync(path.join(DIST, f));
    rows.push({ file: f, raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length });
  }
  const index = fs.statSync(path.join(DIST, 'data', 'index.json')).size;
  const indexGz = zlib.gzipSync(fs.readFileSync(path.join(DIST, 'data', 'index.json')), { level: 9 }).length;
  rows.push({ file: 'data/index.json', raw: index, gzip: indexGz });
  return rows;
}

const drawsOf = (page) => page.$eval('[data-testid=chart]', (el) => Number(el.dataset.draws || 0));

async function waitDraws(page, after) {
  await page.waitForFunction(
    (n) => {
      const el = document.querySelector('[data-testid=chart]');
      return el && Number(el.dataset.draws) > n && Number(el.dataset.drawn) > 0;
    },
    after,
    { timeout: 20000, polling: 'raf' },
  );
}

const srv = await serve(DIST);
const { browser, page, errors } = await launch();
try {
  const loads = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await page.goto(srv.url);
    await waitDraws(page, 0);
    loads.push(performance.now() - t0);
  }
  // Filter switches on the first screen: toggle one value of the fs facet on and off.
  await page.goto(srv.url);
  await waitDraws(page, 0);
  // The fs of the job on the first screen: on, the chart keeps that job's series; off, all of the testcase's.
  const index = loadIndex(DIST);
  const jobId = new URL(page.url()).searchParams.get('job');
  const value = index.jobs.find((j) => j.id === jobId)?.params.fs ?? '';
  const box = page.locator(`[data-testid=facet-fs] input[data-value="${value}"]`);
  const switches = [];
  for (let i = 0; i < RUNS * 2; i++) {
    const before = await drawsOf(page);
    const t0 = performance.now();
    await box.click();
    await waitDraws(page, before);
    switches.push(performance.now() - t0);
  }
  console.log(`first chart drawn after navigation: median ${fmt(median(loads))} (${loads.map(fmt).join(', ')})`);
  console.log(`filter switch (fs=${value} on/off) to redrawn chart: median ${fmt(median(switches))} over ${switches.length}`);
  console.log('assets (bytes):');
  for (const r of sizes()) console.log(`  ${r.file.padEnd(40)} raw ${String(r.raw).padStart(9)}  gzip -9 ${String(r.gzip).padStart(8)}`);
  if (errors.length) console.log('page errors:', errors);
} finally {
  await browser.close();
  await srv.close();
}
