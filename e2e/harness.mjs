// Shared helpers for the end-to-end tests (e2e/*.test.mjs).
//
//   serve(dir, {prefix})        a real static HTTP server on 127.0.0.1 (random free port)
//   launch()                    Debian's Chromium (/usr/bin/chromium) driven by playwright-core
//   canvasInkPixels(page, sel)  number of drawn (non-white, non-transparent) pixels of a <canvas>
//   archiveSite(name, extra)    the app over the fixtures plus the real epoch of fixtures/archives (and extra files)
//   ROOT, DIST, DIST_SUB, ARTIFACTS
//
// No dependency besides playwright-core; never downloads a browser.

import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { before, after } from 'node:test';

/** Repository root (the parent of e2e/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** `trunk build --release` output, served at '/'. */
export const DIST = path.join(ROOT, 'dist');
/** `trunk build --release --public-url /x/y/ --dist dist-sub` output, served at '/x/y/'. */
export const DIST_SUB = path.join(ROOT, 'dist-sub');
/** Where tests may write screenshots (git-ignored). */
export const ARTIFACTS = path.join(ROOT, 'e2e', 'artifacts');

/**
 * A site of the release app (DIST's shell) over the fixtures plus the real public-inbox epoch of
 * fixtures/archives, imported by the release lkpx, the pages at the site's root as scripts/build-app.sh
 * places them. Returns `{ site, www, root, all }` (`site` the temporary folder to remove, `www` the
 * folder to serve, `root` its index.json, `all` every report's summary).
 */
export function archiveSite(name, extra = []) {
  const lkpx = path.join(ROOT, 'target', 'release', 'lkpx');
  if (!fs.existsSync(lkpx)) throw new Error(`${lkpx} missing: build it with cargo build --release -p importer`);
  const site = fs.mkdtempSync(path.join(os.tmpdir(), `lkpx-${name}-`));
  const www = path.join(site, 'www');
  copyShell(www);
  const epoch = path.join(site, 'epoch.git');
  execFileSync('git', ['clone', '-q', '--mirror', 'fixtures/archives/pm-iouring-small.bundle', epoch], { cwd: ROOT, stdio: 'pipe' });
  execFileSync(lkpx, ['import', '--out', path.join(www, 'data'), 'fixtures/seeds', 'fixtures/corpus', epoch, ...extra], { cwd: ROOT, stdio: 'pipe' });
  placePages(www);
  const root = readJson(path.join(www, 'data', 'index.json'));
  const all = root.pages.flatMap((p) => readJson(path.join(www, 'data', p)).reports);
  return { site, www, root, all };
}

/** DIST's app shell copied to `www` (not its data, nor the pages made of its data). */
export function copyShell(www) {
  for (const f of fs.readdirSync(DIST)) {
    if (!['data', 'm', 'p', 'index.html'].includes(f)) fs.cpSync(path.join(DIST, f), path.join(www, f), { recursive: true });
  }
}

/** The pages of the dataset in `www/data` moved to the site's root, as scripts/build-app.sh places them. */
export function placePages(www) {
  for (const f of ['m', 'p', 'index.html']) fs.renameSync(path.join(www, 'data', f), path.join(www, f));
}

/** Path of the browser used by launch(): Debian's chromium package. */
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.sh': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.gz': 'application/gzip',
  '.webmanifest': 'application/manifest+json',
};

/** Content-Type for a file name (application/octet-stream when unknown). */
export function contentType(file) {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream';
}

function normalizePrefix(prefix) {
  let p = String(prefix || '/');
  if (!p.startsWith('/')) p = '/' + p;
  if (!p.endsWith('/')) p += '/';
  return p;
}

/**
 * Serve the directory `dir` over HTTP on 127.0.0.1 at a random free port, under the URL path `prefix`
 * (e.g. '/x/y/' to check a build made with `--public-url /x/y/`). `encodeGz`: send `.gz` files with
 * `Content-Encoding: gzip` (as some hosts do), so the browser inflates them before the page sees them.
 *
 * GET and HEAD only. Directories serve their index.html (a directory URL without the trailing slash is
 * redirected to the one with it, like a real static host). Anything outside `prefix`, missing, or
 * outside `dir` (path traversal, also through symlinks) is 404. No SPA fallback: a wrong asset path
 * must fail in the tests just as it would on a static host.
 *
 * @returns {Promise<{url: string, port: number, close: () => Promise<void>, requests: string[]}>}
 *   `url` is the full base URL ending in the prefix, e.g. 'http://127.0.0.1:41234/x/y/'.
 *   `requests` logs every request as 'METHOD /path STATUS'.
 */
export async function serve(dir, { prefix = '/', encodeGz = false } = {}) {
  const root = fs.realpathSync(path.resolve(dir));
  if (!fs.statSync(root).isDirectory()) throw new Error(`serve: ${dir} is not a directory`);
  const base = normalizePrefix(prefix);
  const requests = [];

  const server = http.createServer((req, res) => {
    const send = (status, headers = {}, body = '') => {
      requests.push(`${req.method} ${req.url} ${status}`);
      res.writeHead(status, { 'Cache-Control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    const notFound = () => send(404, { 'Content-Type': 'text/plain; charset=utf-8' }, '404 Not Found\n');

    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }, '405\n');
    }

    let urlPath;
    try {
      urlPath = new URL(req.url, 'http://127.0.0.1').pathname; // drops ?query and #hash
    } catch {
      return send(400, {}, '400\n');
    }
    const withoutSlash = base.slice(0, -1);
    if (urlPath === withoutSlash && withoutSlash !== '') {
      return send(301, { Location: base }, '');
    }
    if (!urlPath.startsWith(base)) return notFound();

    let rel;
    try {
      rel = decodeURIComponent(urlPath.slice(base.length));
    } catch {
      return send(400, {}, '400\n');
    }
    if (rel.includes('\0') || rel.includes('\\')) return notFound();
    // Refuse any '..' segment outright, then check the resolved (and symlink-resolved) path again.
    if (rel.split('/').some((seg) => seg === '..')) return notFound();
    let file = path.resolve(root, '.' + path.posix.sep + rel);
    const inside = (p) => p === root || p.startsWith(root + path.sep);
    if (!inside(file)) return notFound();

    let real;
    let stat;
    try {
      real = fs.realpathSync(file);
      if (!inside(real)) return notFound();
      stat = fs.statSync(real);
      if (stat.isDirectory()) {
        if (!urlPath.endsWith('/')) {
          const q = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
          return send(301, { Location: urlPath + '/' + q }, '');
        }
        real = path.join(real, 'index.html');
        stat = fs.statSync(real);
      }
      if (!stat.isFile()) return notFound();
    } catch {
      return notFound();
    }
    file = real;

    const headers = { 'Content-Type': contentType(file), 'Content-Length': String(stat.size) };
    if (encodeGz && file.endsWith('.gz')) Object.assign(headers, { 'Content-Encoding': 'gzip', 'Content-Type': contentType(file.slice(0, -3)) });
    requests.push(`${req.method} ${req.url} 200`);
    res.writeHead(200, { 'Cache-Control': 'no-store', ...headers });
    if (req.method === 'HEAD') return res.end();
    const stream = fs.createReadStream(file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${base}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Chromium flags: root-safe, and quiet on a machine whose only network is 127.0.0.1. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

function isLocal(urlString) {
  let u;
  try {
    u = new URL(urlString);
  } catch {
    return false;
  }
  if (['data:', 'blob:', 'about:'].includes(u.protocol)) return true;
  if (['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) return u.hostname === '127.0.0.1';
  return false;
}

/**
 * Launch headless Debian Chromium and open one page (viewport 1280x900).
 *
 * `errors` collects, as strings:
 *   'console.error: ...'   console messages of type error (includes failed resource loads such as 404s)
 *   'pageerror: ...'       uncaught exceptions / unhandled rejections (e.g. a wasm panic)
 *   'outside request: ...' any request not to 127.0.0.1 (the site must make none; such requests are aborted)
 *   'requestfailed: ...'   a request to 127.0.0.1 that failed at the network level
 *
 * Close with `await browser.close()`.
 * @returns {Promise<{browser: import('playwright-core').Browser, context: import('playwright-core').BrowserContext,
 *   page: import('playwright-core').Page, errors: string[]}>}
 */
/**
 * A static page (`#static`, written by `lkpx import`) stays until the app has drawn the same
 * content, then gives way. Navigations return once that has happened (or at once on a page
 * without one), so a test acts on the app, never on the static page under it.
 */
export function settleOnTheApp(page) {
  for (const name of ['goto', 'reload', 'goBack', 'goForward']) {
    const go = page[name].bind(page);
    page[name] = async (...args) => {
      const res = await go(...args);
      await page.waitForFunction(() => !document.getElementById('static'), null, { timeout: 30_000 });
      return res;
    };
  }
}

export async function launch() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: run scripts/setup.sh (installs Debian's chromium)`);
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const errors = [];

  // Record and abort every request that leaves 127.0.0.1 (in any page of the context, and its workers).
  await context.route(
    (url) => !isLocal(url.href),
    (route) => {
      errors.push(`outside request: ${route.request().method()} ${route.request().url()}`);
      return route.abort('blockedbyclient');
    },
  );
  const page = await context.newPage();
  settleOnTheApp(page);
  page.on('console', (msg) => {
    if (msg.type() === 'error') {
      const loc = msg.location();
      const where = loc && loc.url ? ` (${loc.url}:${loc.lineNumber})` : '';
      errors.push(`console.error: ${msg.text()}${where}`);
    }
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.stack || err.message || err}`));
  page.on('requestfailed', (req) => {
    if (isLocal(req.url()) && !req.url().startsWith('data:')) {
      errors.push(`requestfailed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`);
    }
  });
  page.on('websocket', (ws) => {
    if (!isLocal(ws.url())) errors.push(`outside request: websocket ${ws.url()}`);
  });
  return { browser, context, page, errors };
}

/**
 * Count the pixels of the canvas matched by `selector` that are neither fully transparent nor pure white
 * (i.e. "ink" a chart drew). Reads the 2D context with getImageData; throws if there is no such canvas.
 */
export async function canvasInkPixels(page, selector) {
  return page.$eval(selector, (canvas) => {
    if (!(canvas instanceof HTMLCanvasElement)) throw new Error('canvasInkPixels: not a <canvas>');
    if (canvas.width === 0 || canvas.height === 0) return 0;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('canvasInkPixels: canvas has no 2d context');
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) {
      const a = data[i + 3];
      if (a === 0) continue;
      if (data[i] === 255 && data[i + 1] === 255 && data[i + 2] === 255) continue;
      ink += 1;
    }
    return ink;
  });
}

// ---- the compact arrays of model/src/wire.rs, decoded as `model` decodes them ----------------------
const fillNull = (col, n) => (col.length === 0 ? Array(n).fill(null) : col);

/** A series array `[job, metric, commit, mean, stddev_pct, runs, report, change, base, fails?, values?]`. */
export function decodeSeries(a) {
  const [job, metric, commit, mean, sd, runs, report, change, base, fails = [], values = []] = a;
  const n = commit.length;
  return {
    job,
    metric,
    points: {
      commit, mean: fillNull(mean, n), stddev_pct: fillNull(sd, n), runs: fillNull(runs, n), report,
      change: fillNull(change, n), base: fillNull(base, n), fails, values,
    },
  };
}

const CHANGE_KEYS = ['source', 'job', 'metric', 'base', 'head', 'base_mean', 'head_mean', 'change', 'kind', 'direction',
  'p_value', 'noise_ratio', 'report', 'headline'];

/** `model::wire::changes`' codes of a change's kind and direction. */
const KINDS = ['percent', 'absolute', 'reproduction'];
const DIRECTIONS = ['regression', 'undefined', 'improvement'];

/** A change array (model::wire::changes) as the object model::ChangeRecord is. */
export function decodeChange(a) {
  const c = Object.fromEntries(CHANGE_KEYS.map((k, i) => [k, a[i]]));
  c.source = c.source === 1 ? 'detected' : 'stated';
  c.headline = c.headline === 1;
  c.kind = KINDS[c.kind];
  c.direction = DIRECTIONS[c.direction];
  return c;
}

/** The inverse of decodeChange (for tests that serve a changed file). */
export function encodeChange(c) {
  const code = { source: c.source === 'detected' ? 1 : 0, headline: c.headline ? 1 : 0, kind: KINDS.indexOf(c.kind), direction: DIRECTIONS.indexOf(c.direction) };
  return CHANGE_KEYS.map((k) => (k in code ? code[k] : c[k] ?? null));
}

/** A metric array `[name, direction, chunk, series, flags]`. */
/** A catalog's metrics, published as front-coded columns `[shared, rest, direction, chunk, series, flags]`
 * (`model::wire::metrics`), as one object per metric. */
export function decodeMetrics([shared, rest, direction, chunk, series, flags]) {
  let prev = Buffer.alloc(0);
  return rest.map((r, i) => {
    const name = Buffer.concat([prev.subarray(0, shared[i]), Buffer.from(r, 'utf8')]);
    prev = name;
    return { name: name.toString('utf8'), direction: direction[i] - 1, chunk: chunk[i], series: series[i], kpi: (flags[i] & 1) !== 0, fail: (flags[i] & 2) !== 0 };
  });
}

/** For `page.waitForFunction`: the trend chart is drawn and its catalog whole (a chart of a catalog's first
 * half, `data-pending=true`, is drawn again once its rest is loaded). */
export const chartReady = () => {
  const el = document.querySelector('[data-testid=chart]');
  return !!el && el.dataset.pending === 'false' && Number(el.dataset.drawn) > 0;
};

/** A catalog's reports, published as columns (`model::wire::reports`: one array per field in this order,
 * `[]` when every entry is null), as one object per report (kind 0 mail, 1 result root). */
const REPORT_FIELDS = ['id', 'kind', 'source', 'message_id', 'subject', 'from', 'date', 'time', 'url', 'materials_url', 'script', 'sections', 'notes'];
export function decodeReports(cols) {
  return cols[0].map((_, i) =>
    Object.fromEntries(
      REPORT_FIELDS.map((f, k) => [f, cols[k][i]])
        .filter(([, v]) => v != null)
        .map(([f, v]) => [f, f === 'kind' ? (v === 1 ? 'result_root' : 'mail') : v]),
    ),
  );
}

/** A published JSON file's value: stored gzip-compressed (`.json.gz`), the root plain. */
export function readJson(file) {
  const b = fs.readFileSync(file);
  return JSON.parse((b[0] === 0x1f && b[1] === 0x8b ? zlib.gunzipSync(b) : b).toString('utf8'));
}

/**
 * The published data of `dist` read as the page reads it (data v2): the root and every
 * testcase's catalog merged into one index with global positions (commits and reports once
 * each, jobs in root order, headlines newest report first), plus where each catalog's files are.
 */
export function loadIndex(dist = DIST) {
  const dir = path.join(dist, 'data');
  const read = (rel) => readJson(path.join(dir, rel));
  const root = read('index.json');
  const index = { root, totals: root.totals, commits: [], reports: [], jobs: [], headlines: [], catalogs: {}, jobOffset: {} };
  const commitPos = new Map();
  const reportPos = new Map();
  for (const t of root.testcases) {
    // the catalog is what the first chart needs; its rest (`Index::rest`) makes it whole
    const c = read(t.catalog);
    for (const k of ['commits', 'jobs', 'testcases', 'headlines']) c[k] ??= []; // empty lists are left out
    const rest = read(c.rest);
    const names = read(c.names);
    c.first = { metrics: decodeMetrics(c.metrics), chunks: c.chunks };
    c.metrics = decodeMetrics(names.metrics);
    c.reports = decodeReports(rest.reports);
    c.chunks = rest.chunks;
    index.catalogs[t.name] = c;
    const cm = c.commits.map((x) => {
      if (!commitPos.has(x.id)) {
        commitPos.set(x.id, index.commits.length);
        index.commits.push(x);
      }
      return commitPos.get(x.id);
    });
    const rm = c.reports.map((r) => {
      if (!reportPos.has(r.id)) {
        reportPos.set(r.id, index.reports.length);
        index.reports.push({ ...r, sections: [] });
      }
      return reportPos.get(r.id);
    });
    const off = index.jobs.length;
    index.jobOffset[t.name] = off;
    index.jobs.push(...c.jobs);
    const job = (j) => (j == null ? undefined : j + off);
    const commit = (x) => (x == null ? undefined : cm[x]);
    c.reports.forEach((r, i) =>
      index.reports[rm[i]].sections.push(...r.sections.map((s) => ({ ...s, job: job(s.job), commits: s.commits.map(commit) }))),
    );
    for (const h of c.headlines) {
      index.headlines.push({ ...h, from: t.name, report: rm[h.report], job: job(h.job), base: commit(h.base), head: commit(h.head) });
    }
  }
  // newest report first, as the page orders them: by time, then source, then id
  const cmp = (a, b) => {
    const [ra, rb] = [index.reports[a.report], index.reports[b.report]];
    const ta = ra.time ?? -Infinity;
    const tb = rb.time ?? -Infinity;
    if (ta !== tb) return tb - ta;
    if (ra.source !== rb.source) return ra.source < rb.source ? 1 : -1;
    return ra.id < rb.id ? 1 : ra.id > rb.id ? -1 : 0;
  };
  index.headlines.sort(cmp);
  // metrics merged by name, and per testcase its metrics' positions (as the v1 index had them)
  const names = [...new Set(Object.values(index.catalogs).flatMap((c) => c.metrics.map((m) => m.name)))].sort();
  const pos = new Map(names.map((n, i) => [n, i]));
  index.metrics = names.map((name) => ({ name, kpi: false }));
  for (const c of Object.values(index.catalogs)) for (const m of c.metrics) Object.assign(index.metrics[pos.get(m.name)], { kpi: !!m.kpi, direction: m.direction ?? 0 });
  index.testcases = root.testcases.map((t) => ({ ...t, metrics: index.catalogs[t.name].metrics.map((m) => pos.get(m.name)) }));
  return index;
}

/** The series of `metric` in the trend chunk `rel` (as the page draws them: merged job positions). */
export function seriesOf(index, rel, metric, dist = DIST) {
  const chunk = readJson(path.join(dist, 'data', rel));
  const off = index.jobOffset[chunk.testcase];
  return {
    testcase: chunk.testcase,
    metric,
    series: chunk.series.map(decodeSeries).filter((s) => s.metric === metric).map((s) => ({ ...s, job: s.job + off })),
  };
}

/** How many changes the Changes view lists for `testcase` once it has made them from its trend
 * chunks: every observation stating a change whose base observation (same report, base commit)
 * has a value, and every detected step (an oracle of `model::changes::stated`'s count). */
export function changeCountOf(index, testcase, dist = DIST) {
  let n = 0;
  for (const rel of index.catalogs[testcase].chunks) {
    const chunk = readJson(path.join(dist, 'data', rel));
    n += (chunk.detected ?? []).length;
    for (const { points: p } of chunk.series.map(decodeSeries)) {
      p.commit.forEach((c, i) => {
        if (p.change[i] == null || p.base[i] == null || p.mean[i] == null) return;
        const b = p.commit.findIndex((x, k) => x === p.base[i] && p.report[k] === p.report[i]);
        if (b >= 0 && p.mean[b] != null) n += 1;
      });
    }
  }
  return n;
}

/** The trend chunk path holding `metric` of `testcase`. */
export function chunkOf(index, testcase, metric) {
  const c = index.catalogs[testcase];
  const m = c.metrics.find((x) => x.name === metric);
  return c.chunks[m.chunk ?? 0];
}

/** The headline the first screen shows: the newest report's testcase is the one loaded, and its
 * newest headline with a job (else its first) is the default view. */
/** The folder of a report's page under `m/` (`model::paths::page_dir`): its Message-ID when a
 * URL path holds it as it is, else its id (which is then the hash of its Message-ID). */
export function pageDir(r) {
  const m = r.message_id;
  return m && /^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,200}$/.test(m) && !m.startsWith('.') ? m : r.id;
}

/** Where a report's page carries its document (`model::paths::PAGE_DOC_OPEN`). */
export const PAGE_DOC_OPEN = '<script type="application/gzip" id="report-doc">';

/** The base64 text of the document a page's `html` carries. */
export function carriedText(html) {
  const at = html.lastIndexOf(PAGE_DOC_OPEN);
  assert.ok(at >= 0, 'the page carries its document');
  const from = at + PAGE_DOC_OPEN.length;
  return html.slice(from, html.indexOf('</script>', from));
}

/** The document of report `r` (a summary: `id`, `message_id`), carried by its page in site `dist`
 * (the pages at its root), or beside data directory `dist`, or in it (a dataset not built into a site). */
export function readDoc(r, dist = DIST) {
  const at = [dist, path.join(dist, 'data'), path.join(dist, '..')].map((d) => path.join(d, 'm', pageDir(r), 'index.html'));
  const html = fs.readFileSync(at.find((f) => fs.existsSync(f)) ?? at[0], 'utf8');
  return filledDoc(JSON.parse(zlib.gunzipSync(Buffer.from(carriedText(html), 'base64')).toString('utf8')), html);
}

/** The text of each `<pre class="rows">` of a page (`render::carry::page_rows`). */
export function pageRows(html) {
  const un = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
  return [...html.matchAll(/<pre class="rows"[^>]*>([\s\S]*?)<\/pre>/g)].map((m) =>
    m[1].replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => un[e]));
}

/** A carried document (`doc`) with each row its page shows (`[line, job, at, change_kind, flags, …]`:
 * a number where the metric would be) written whole again from the page's rows, as
 * `render::carry::filled` reads them: `[line, job, metric, values, stddev_pct, changes, …]`. */
export function filledDoc(doc, html) {
  const texts = pageRows(html);
  let t = 0;
  for (const s of doc.sections) {
    const flags = (r) => (typeof r[2] === 'number' ? r[4] : r[7]);
    const jobs = [...new Set(s.rows.map((r) => r[1]))].sort((a, b) => a - b);
    for (const j of jobs) {
      const of = (fail) => s.rows.filter((r) => r[1] === j && !(flags(r) & 2) && !!(flags(r) & 1) === fail);
      const rows = of(false);
      if (!rows.length && !of(true).length) continue;
      for (let h = 1; h < Math.max(s.commits.length, 2); h++) {
        if (!rows.length) continue;
        const text = texts[t++];
        assert.ok(text != null, 'the page shows every table of its document');
        if (h === 1) for (const r of rows) if (typeof r[2] === 'number') fillRow(r, text);
      }
    }
  }
  return doc;
}

function fillRow(r, text) {
  const [header, ...lines] = text.split('\n');
  const base = header.indexOf('base') + 4;
  const change = header.indexOf('%change', base) + 7;
  const head = header.indexOf('head', change) + 4;
  const cs = Array.from(lines[r[2]] ?? '');
  const part = (a, b) => cs.slice(a, b).join('').trim();
  const num = (x) => (x === '' ? null : Number(x));
  const cell = (x) => {
    const [m, sd] = x.split(' ± ');
    return [num(m ?? ''), sd == null ? null : num(sd.replace(/%$/, ''))];
  };
  const [b, c, hd] = [cell(part(0, base)), num(part(base + 2, change).replace(/%$/, '')), cell(part(change + 2, head))];
  r.splice(2, 1, cs.slice(head + 2).join(''), [b[0], hd[0]], [b[1], hd[1]], [c]);
}

/** The address (from the site's root) of the file Compare reads for a job: its own file under
 * `data/`, or the page of the one report that measured it (`Job::report`), which carries that
 * report's document. */
export function compareFileOf(index, job) {
  if (job.report == null) return `data/${job.shard}`;
  return `m/${pageDir(index.catalogs[job.testcase].reports[job.report])}/`;
}

export function firstHeadline(index) {
  const tc = index.root.newest[0]?.testcases[0] ?? index.root.testcases[0].name;
  const hs = index.headlines.filter((h) => h.from === tc);
  return hs.find((x) => x.job != null) ?? hs[0];
}

/**
 * One static server on `dist` and one Chromium page for a whole test file: started before its first
 * test, closed after its last. Returns `{srv, ctx}` (filled in by then): `srv` as from serve(), `ctx` as
 * from launch().
 */
export function useSite(dist = DIST) {
  const site = { srv: null, ctx: null };
  before(async () => {
    site.srv = await serve(dist);
    site.ctx = await launch();
  });
  after(async () => {
    await site.ctx?.browser.close();
    await site.srv?.close();
  });
  return site;
}
