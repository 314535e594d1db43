// Scale benchmark of the release build on a synthetic dataset (not a test).
//
//   node e2e/bench-scale.mjs <size> <sitedir> [--json OUT] [--profile load|filter|metric|redraw]
//   node e2e/bench-scale.mjs --summary OUT.json...        one table of several runs (scripts/bench.sh)
//
// <sitedir> is a built site (index.html, the app's wasm/js/css) whose data/ is `lkpx synth` output;
// scripts/bench.sh assembles one per size. In real headless Chromium on the loopback server of
// e2e/harness.mjs it measures, all in the page's own clock (performance.now()):
//   - navigation start → first chart drawn (the chart's data-draws counter turning 1), RUNS loads;
//   - a facet checkbox click → the redrawn chart, CHANGES times (fs value on/off);
//   - a metric change (finder: type the name, Enter) → the redrawn chart, CHANGES distinct metrics (each
//     fetches its shard: the real cost of a metric change);
//   - for size `redraw` (20 series × 1,000 commits with bands): chart redraws by resizing the chart box
//     and by hiding/showing a legend entry;
//   - "draw" columns: from the app setting the canvas size (the first thing its draw effect does) to
//     the data-draws change, i.e. layout + plotters drawing, without the state/model work before it;
//   - JS heap (CDP Runtime.getHeapUsage) and wasm linear memory after load; bytes fetched (resource
//     timing) during load and in all; the longest task (PerformanceObserver 'longtask') and the
//     longest animation frame ('long-animation-frame') during load and during each kind of change;
//   - app shell size (wasm + js + css, gzip -9).
// Environment: RUNS (loads, default 7), CHANGES (per kind, default 24), DEFER_HISTORY=1 (what-if: the
// app's history.pushState/replaceState deferred past the frame).

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, loadIndex } from './harness.mjs';

const RUNS = Number(process.env.RUNS || 7);
const CHANGES = Number(process.env.CHANGES || 24);

// ---------------------------------------------------------------------------------------------
// Statistics and formatting.

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const quantile = (xs, q) => {
  if (!xs.length) return NaN;
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const median = (xs) => quantile(xs, 0.5);
const p95 = (xs) => quantile(xs, 0.95);
const max = (xs) => (xs.length ? Math.max(...xs) : 0);
const ms = (x) => (Number.isFinite(x) ? `${x < 10 ? x.toFixed(1) : x.toFixed(0)} ms` : '–');
const kb = (b) => (Number.isFinite(b) ? `${(b / 1024).toFixed(b < 10240 ? 1 : 0)} KB` : '–');
const mb = (b) => (Number.isFinite(b) ? `${(b / 1048576).toFixed(1)} MB` : '–');

// ---------------------------------------------------------------------------------------------
// Summary mode: one table over several JSON results.

const TARGETS = {
  first_chart_ms: '≤ 1000 ms (large)',
  filter_p95_ms: '≤ 16 ms',
  metric_p95_ms: '≤ 16 ms',
  redraw_resize_draw_p95_ms: '≤ 16 ms',
  shell_gzip: '≤ 350 KB',
  longest_frame_load_ms: '≤ 100 ms (large)',
  longest_frame_changes_ms: '≤ 100 ms (large)',
};

function rowsOf(r) {
  const out = [];
  const add = (key, label, value) => out.push({ key, label, value });
  add('first_chart_ms', 'first chart after navigation (median / p95)', r.load && `${ms(r.load.median)} / ${ms(r.load.p95)}`);
  add('first_chart_breakdown', '… index.json / wasm / first shard fetched (median)', r.load &&
    `${ms(r.load.index_ms)} / ${ms(r.load.wasm_ms)} / ${ms(r.load.shard_ms)}`);
  if (r.filter) {
    add('filter_p95_ms', `filter click → chart (median / p95, n=${r.filter.n})`, `${ms(r.filter.median)} / ${ms(r.filter.p95)}`);
    add('filter_draw', '… of which draw (median / p95)', `${ms(r.filter.draw_median)} / ${ms(r.filter.draw_p95)}`);
  }
  if (r.metric) {
    add('metric_p95_ms', `metric change → chart (median / p95, n=${r.metric.n})`, `${ms(r.metric.median)} / ${ms(r.metric.p95)}`);
    add('metric_draw', '… of which draw (median / p95)', `${ms(r.metric.draw_median)} / ${ms(r.metric.draw_p95)}`);
  }
  if (r.redraw_resize) {
    add('redraw_resize_draw_p95_ms', `redraw on resize: draw (median / p95, n=${r.redraw_resize.n})`,
      `${ms(r.redraw_resize.draw_median)} / ${ms(r.redraw_resize.draw_p95)}`);
    add('redraw_resize_total', '… resize → chart incl. wait for the frame (median / p95)',
      `${ms(r.redraw_resize.median)} / ${ms(r.redraw_resize.p95)}`);
    add('redraw_legend', `legend toggle → chart (median / p95, n=${r.redraw_legend.n}; draw p95)`,
      `${ms(r.redraw_legend.median)} / ${ms(r.redraw_legend.p95)}; ${ms(r.redraw_legend.draw_p95)}`);
  }
  add('chart', 'chart on first screen (series / points)', r.chart && `${r.chart.series} / ${r.chart.points}`);
  add('heap', 'JS heap used / wasm memory after load', r.memory && `${mb(r.memory.js_heap)} / ${mb(r.memory.wasm)}`);
  add('bytes', 'bytes fetched: load / in all (gzip est. in all)', r.bytes &&
    `${kb(r.bytes.load)} / ${kb(r.bytes.total)} (${kb(r.bytes.total_gzip)})`);
  add('longest_frame_load_ms', 'longest task / frame during load', r.frozen && `${ms(r.frozen.load_task)} / ${ms(r.frozen.load_frame)}`);
  add('longest_frame_changes_ms', 'longest task / frame during changes', r.frozen &&
    `${ms(r.frozen.changes_task)} / ${ms(r.frozen.changes_frame)}`);
  add('shell_gzip', 'app shell gzip (wasm + js + css)', r.shell && `${kb(r.shell.gzip)} (raw ${kb(r.shell.raw)})`);
  if (r.errors?.length) add('errors', 'page errors', r.errors.length);
  return out;
}

function printTable(results) {
  const rows = new Map();
  for (const r of results) {
    for (const row of rowsOf(r)) {
      if (!rows.has(row.key)) rows.set(row.key, { label: row.label, values: {} });
      rows.get(row.key).values[r.size] = row.value;
    }
  }
  const sizes = results.map((r) => r.size);
  console.log(`| measure | ${sizes.join(' | ')} | target |`);
  console.log(`|---|${sizes.map(() => '---:').join('|')}|---|`);
  for (const [key, { label, values }] of rows) {
    console.log(`| ${label} | ${sizes.map((s) => values[s] ?? '').join(' | ')} | ${TARGETS[key] ?? ''} |`);
  }
}

if (process.argv[2] === '--summary') {
  const results = process.argv.slice(3).map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  printTable(results);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// Measurement mode.

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const jsonOut = opt('--json');
const profile = opt('--profile');
const [size, siteDir] = args;
if (!size || !siteDir) {
  console.error('usage: node e2e/bench-scale.mjs <size> <sitedir> [--json OUT] [--profile load|filter|metric|redraw]');
  process.exit(64);
}
const index = loadIndex(siteDir);

function shellSizes() {
  let raw = 0;
  let gzip = 0;
  for (const f of fs.readdirSync(siteDir)) {
    if (!/\.(wasm|js|css)$/.test(f)) continue;
    const buf = fs.readFileSync(path.join(siteDir, f));
    raw += buf.length;
    gzip += zlib.gzipSync(buf, { level: 9 }).length;
  }
  return { raw, gzip };
}

// Installed before any page script: records draws, canvas resizes (start of a draw), long tasks,
// long animation frames and the wasm memory.
function instrument() {
  const b = (window.__b = { draws: [], sizes: [], tasks: [], frames: [], waiters: [], mem: null });
  try {
    new PerformanceObserver((l) => l.getEntries().forEach((e) => b.tasks.push([e.startTime, e.duration]))).observe({
      type: 'longtask',
      buffered: true,
    });
  } catch {}
  try {
    new PerformanceObserver((l) => l.getEntries().forEach((e) => b.frames.push([e.startTime, e.duration]))).observe({
      type: 'long-animation-frame',
      buffered: true,
    });
  } catch {}
  const d = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'width');
  Object.defineProperty(HTMLCanvasElement.prototype, 'width', {
    ...d,
    set(v) {
      b.sizes.push(performance.now());
      d.set.call(this, v);
    },
  });
  new MutationObserver((recs) => {
    const t = performance.now();
    for (const r of recs) {
      const n = Number(r.target.dataset.draws || 0);
      b.draws.push([n, t, Number(r.target.dataset.drawn || 0), Number(r.target.dataset.points || 0)]);
      b.waiters = b.waiters.filter(([after, resolve]) => (n > after ? (resolve(t), false) : true));
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-draws'] });
  // Next draw after counter value `after`: resolves with its time.
  b.nextDraw = (after) => new Promise((resolve) => b.waiters.push([after, resolve]));
  b.frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
  for (const k of ['instantiate', 'instantiateStreaming']) {
    const orig = WebAssembly[k];
    WebAssembly[k] = async function (...a) {
      const r = await orig.apply(this, a);
      const inst = r instanceof WebAssembly.Instance ? r : r.instance;
      if (inst?.exports?.memory) b.mem = inst.exports.memory;
      return r;
    };
  }
}

// DEFER_HISTORY=1: what-if for a fix outside the benchmark's reach: history.pushState/replaceState
// (the app writes the URL on every change) run after the next frame instead of synchronously.
function deferHistory() {
  for (const k of ['pushState', 'replaceState']) {
    const orig = History.prototype[k];
    History.prototype[k] = function (...a) {
      requestAnimationFrame(() => setTimeout(() => orig.apply(this, a), 0));
    };
  }
}

const srv = await serve(siteDir);
const { browser, page, errors } = await launch();
await page.addInitScript(instrument);
if (process.env.DEFER_HISTORY === '1') await page.addInitScript(deferHistory);
const cdp = await page.context().newCDPSession(page);
const result = { size, runs: RUNS, changes: CHANGES };
const profiles = {};
let phaseStart = 0;

async function startProfile(name) {
  if (profile !== name) return;
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
}
async function stopProfile(name) {
  if (profile !== name) return;
  const { profile: p } = await cdp.send('Profiler.stop');
  const out = path.join(path.dirname(jsonOut || path.join(siteDir, 'x')), `profile-${size}-${name}.cpuprofile`);
  fs.writeFileSync(out, JSON.stringify(p));
  profiles[name] = out;
}

// Long tasks / frames overlapping [from, to] (page clock).
const longest = (entries, from, to) => max(entries.filter(([s, d]) => s + d >= from && s <= to).map(([, d]) => d));

async function waitFirstDraw() {
  await page.waitForFunction(() => window.__b && window.__b.draws.some(([n, , drawn]) => n > 0 && drawn > 0), null, {
    timeout: 60000,
    polling: 50,
  });
}

try {
  // ----- load -------------------------------------------------------------------------------
  const loads = [];
  const parts = { index: [], wasm: [], shard: [] };
  let lastLoad;
  for (let i = 0; i < RUNS; i++) {
    if (i === RUNS - 1) await startProfile('load');
    await page.goto(srv.url);
    await waitFirstDraw();
    await page.waitForTimeout(300); // let late tasks (legend, commit panel) land in the entries
    if (i === RUNS - 1) await stopProfile('load');
    lastLoad = await page.evaluate(() => {
      const b = window.__b;
      const first = b.draws.find(([n, , drawn]) => n > 0 && drawn > 0);
      const res = performance.getEntriesByType('resource');
      const end = (re) => res.find((e) => re.test(e.name))?.responseEnd ?? NaN;
      const nav = performance.getEntriesByType('navigation')[0];
      return {
        first: first[1],
        series: first[2],
        points: first[3],
        index: end(/\/data\/index\.json$/),
        wasm: end(/\.wasm$/),
        shard: end(/\/data\/s\//),
        bytes: res.reduce((a, e) => a + (e.transferSize || e.encodedBodySize || 0), nav?.transferSize || 0),
        tasks: b.tasks,
        frames: b.frames,
        files: res.map((e) => new URL(e.name).pathname),
      };
    });
    loads.push(lastLoad.first);
    parts.index.push(lastLoad.index);
    parts.wasm.push(lastLoad.wasm);
    parts.shard.push(lastLoad.shard);
  }
  const loadEnd = lastLoad.first + 300;
  result.load = {
    median: median(loads),
    p95: p95(loads),
    all: loads,
    index_ms: median(parts.index),
    wasm_ms: median(parts.wasm),
    shard_ms: median(parts.shard),
  };
  result.chart = { series: lastLoad.series, points: lastLoad.points };
  const heap = await cdp.send('Runtime.getHeapUsage');
  const wasm = await page.evaluate(() => window.__b.mem?.buffer.byteLength ?? NaN);
  result.memory = { js_heap: heap.usedSize, js_heap_total: heap.totalSize, wasm };
  result.frozen = {
    load_task: longest(lastLoad.tasks, 0, loadEnd),
    load_frame: longest(lastLoad.frames, 0, loadEnd),
    changes_task: 0,
    changes_frame: 0,
  };
  const bytesLoad = lastLoad.bytes;

  const chartPhase = async (name, n, action) => {
    // `action(i)` runs in the page, returns {t0, t1, draw} or {skip}.
    await startProfile(name);
    const from = await page.evaluate(() => performance.now());
    const totals = [];
    const draws = [];
    const notes = [];
    for (let i = 0; i < n; i++) {
      const r = await action(i);
      if (r.note) notes.push(r.note);
      totals.push(r.t1 - r.t0);
      draws.push(r.t1 - r.drawStart);
      await page.waitForTimeout(r.settle ?? 60);
    }
    const to = await page.evaluate(() => performance.now());
    await stopProfile(name);
    const { tasks, frames } = await page.evaluate(() => ({ tasks: window.__b.tasks, frames: window.__b.frames }));
    const task = longest(tasks, from, to);
    const frame = longest(frames, from, to);
    result.frozen.changes_task = Math.max(result.frozen.changes_task, task);
    result.frozen.changes_frame = Math.max(result.frozen.changes_frame, frame);
    return {
      n,
      median: median(totals),
      p95: p95(totals),
      draw_median: median(draws),
      draw_p95: p95(draws),
      longest_task: task,
      longest_frame: frame,
      notes: [...new Set(notes)],
    };
  };

  // In-page: run `trigger` (a string of JS to evaluate after t0), wait for the next draw.
  const measure = (trigger, arg) =>
    page.evaluate(
      async ([trigger, arg]) => {
        const b = window.__b;
        const el = document.querySelector('[data-testid=chart]');
        const before = Number(el.dataset.draws || 0);
        const done = b.nextDraw(before);
        const t0 = performance.now();
        const fn = new Function('arg', trigger);
        const note = fn(arg);
        const t1 = await Promise.race([done, new Promise((r) => setTimeout(() => r(NaN), 20000))]);
        const drawStart = b.sizes.filter((t) => t >= t0 && t <= t1).pop() ?? NaN;
        return { t0, t1, drawStart, note };
      },
      [trigger, arg],
    );

  if (size === 'redraw') {
    // ----- redraw: all 20 series of the KPI, bands ----------------------------------------------
    const tc = index.testcases[0];
    const kpi = index.metrics[tc.metrics.find((m) => index.metrics[m].kpi)].name;
    phaseStart = srv.requests.length;
    await page.goto(`${srv.url}?testcase=${encodeURIComponent(tc.name)}&metric=${encodeURIComponent(kpi)}`);
    await waitFirstDraw();
    await page.waitForTimeout(300);
    result.chart = await page.$eval('[data-testid=chart]', (el) => ({
      series: Number(el.dataset.drawn),
      points: Number(el.dataset.points),
    }));
    const w0 = await page.$eval('[data-testid=chart]', (el) => el.getBoundingClientRect().width);
    result.redraw_resize = await chartPhase('redraw', CHANGES, (i) =>
      measure(`document.querySelector('[data-testid=chart]').style.width = '${Math.floor(w0) - 2 - 2 * (i % 2)}px';`),
    );
    result.redraw_legend = await chartPhase('legend', CHANGES, () =>
      measure(`document.querySelector('[data-testid=legend] input[data-job]').click();`),
    );
  } else {
    // ----- filter: the fs facet, the value of the first screen's job, on and off ----------------
    phaseStart = srv.requests.length;
    await page.goto(srv.url);
    await waitFirstDraw();
    await page.waitForTimeout(300);
    const jobId = new URL(page.url()).searchParams.get('job');
    const fsValue = index.jobs.find((j) => j.id === jobId)?.params.fs ?? index.jobs[0].params.fs;
    result.filter = await chartPhase('filter', CHANGES, () =>
      measure(
        `document.querySelector('[data-testid=facet-fs] input[data-value="' + arg + '"]').click();`,
        fsValue,
      ),
    );
    // ----- metric: distinct metrics of the shown testcase, typed into the finder + Enter -------
    const testcase = new URL(page.url()).searchParams.get('testcase');
    const current = new URL(page.url()).searchParams.get('metric');
    const tc = index.testcases.find((t) => t.name === testcase) ?? index.testcases[0];
    const names = tc.metrics.map((m) => index.metrics[m].name).filter((n) => n !== current);
    const picks = Array.from({ length: CHANGES }, (_, i) => names[(i * 7) % names.length]);
    result.metric = await chartPhase('metric', CHANGES, async (i) => {
      const r = await measure(
        `const input = document.querySelector('[data-testid=metric-search]');
         input.focus();
         input.value = arg;
         input.dispatchEvent(new Event('input', { bubbles: true }));
         input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));`,
        picks[i],
      );
      const got = new URL(page.url()).searchParams.get('metric');
      if (got !== picks[i]) r.note = `asked ${picks[i]}, got ${got}`;
      r.settle = 200; // past the finder's 150 ms debounce
      return r;
    });
  }

  const all = await page.evaluate(() =>
    [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].reduce(
      (a, e) => a + (e.transferSize || e.encodedBodySize || 0),
      0,
    ),
  );
  // gzip estimate of every file served since the last navigation (what a compressing host sends)
  const served = srv.requests.slice(phaseStart);
  let gz = 0;
  const seen = new Set();
  for (const r of served) {
    const m = r.match(/^GET (\S+) 200$/);
    if (!m) continue;
    let p = decodeURIComponent(new URL(m[1], 'http://x').pathname);
    if (p.endsWith('/')) p += 'index.html';
    if (seen.has(p)) continue;
    seen.add(p);
    try {
      gz += zlib.gzipSync(fs.readFileSync(path.join(siteDir, p)), { level: 6 }).length;
    } catch {}
  }
  result.bytes = { load: bytesLoad, total: all, total_gzip: gz };
  result.shell = shellSizes();
  result.errors = errors;
  result.profiles = profiles;
} finally {
  await browser.close();
  await srv.close();
}

if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(result, null, 1));
console.log(`\n### ${size} (${siteDir})\n`);
printTable([result]);
for (const k of ['filter', 'metric', 'redraw_resize', 'redraw_legend']) {
  if (result[k]?.notes?.length) console.log(`${k} notes: ${result[k].notes.slice(0, 5).join('; ')}`);
}
if (result.errors.length) console.log('page errors:', result.errors.slice(0, 10));
for (const [k, f] of Object.entries(result.profiles)) console.log(`CPU profile (${k}): ${f}`);
