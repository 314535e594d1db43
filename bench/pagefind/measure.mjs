// What a Pagefind search costs a cold visitor: bytes on the wire, results, time.
//
// Usage: NODE_PATH=/work/main/e2e/node_modules node measure.mjs SITE_DIR CASES.json [PORT]
//   SITE_DIR  what build.mjs wrote (index.html + pagefind/)
//   CASES     [{"q": "...", "want": ["text a result must contain", ...]}, ...]
//   PORT      default 8896
// Serves SITE_DIR with Debian's nginx (gzip level 6, as the project's own bench site) on 127.0.0.1:PORT
// (its conf, logs and pid under $WORK/nginx, WORK defaulting to /tmp/pagefind-bench), and stops it at the end.
// For each query: a fresh browser context (empty cache), load the page, then in the page
//   import('/pagefind/pagefind.js'); options({baseUrl: '/'}); init(); search(q); data() of the first 8 results.
// Bytes: every response for the query after the HTML page itself (pagefind.js, its worker, its wasm, entry,
// meta, index chunks, fragments), counted twice: as nginx sent them ($bytes_sent: headers + body as sent,
// gzip'd where nginx gzips) and as Chromium received them (Playwright's request sizes: response headers +
// body as transferred, as /work/shared/bench/search-check.mjs counts; it sees the worker script's headers but
// not its body, ~12 KB short: the nginx figure is the one to read). Split: runtime (.js, wasm) vs data.
// Found: want[0] is a substring of the title, content or url of one of the first 8 results.
// Times: import+init (runtime, entry, meta), and search() call to the data of its first 8 results.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const require = createRequire((process.env.NODE_PATH || '/work/main/e2e/node_modules').split(':')[0] + '/');
const { chromium } = require('playwright-core');

const [siteDir, casesFile, portArg] = process.argv.slice(2);
if (!siteDir || !casesFile) {
  console.error('usage: NODE_PATH=/work/main/e2e/node_modules node measure.mjs SITE_DIR CASES.json [PORT]');
  process.exit(2);
}
const PORT = Number(portArg || 8896);
const WORK = process.env.WORK || '/tmp/pagefind-bench';
const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
const base = `http://127.0.0.1:${PORT}`;

// nginx, in the style of the project's bench site conf (/tmp/s10k/nginx.conf), plus an access log of bytes sent
const nx = path.join(WORK, 'nginx');
fs.mkdirSync(path.join(nx, 'tmp'), { recursive: true });
const conf = path.join(nx, 'nginx.conf'), accessLog = path.join(nx, 'access.log');
fs.writeFileSync(conf, `worker_processes 1;
pid ${nx}/nginx.pid;
error_log ${nx}/error.log;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  disable_symlinks off;
  types { application/wasm wasm; text/javascript js mjs; }
  log_format bytes '$request_uri $status $bytes_sent $body_bytes_sent';
  access_log ${accessLog} bytes;
  sendfile on;
  keepalive_timeout 65;
  gzip on; gzip_comp_level 6; gzip_min_length 256;
  gzip_types text/css text/javascript application/javascript application/json application/wasm text/plain image/svg+xml;
  client_body_temp_path ${nx}/tmp; proxy_temp_path ${nx}/tmp; fastcgi_temp_path ${nx}/tmp; uwsgi_temp_path ${nx}/tmp; scgi_temp_path ${nx}/tmp;
  server { listen 127.0.0.1:${PORT}; root ${path.resolve(siteDir)}; index index.html; }
}
`);
fs.writeFileSync(accessLog, '');
// (nginx warns of the js and wasm types given twice, as with the project's conf: harmless)
execFileSync('nginx', ['-e', path.join(nx, 'error.log'), '-c', conf], { stdio: ['ignore', 'inherit', 'pipe'] });
let running = true;
const stopNginx = () => {
  if (!running) return;
  running = false;
  try { execFileSync('nginx', ['-e', path.join(nx, 'error.log'), '-c', conf, '-s', 'quit'], { stdio: 'pipe' }); } catch {}
};
process.on('exit', stopNginx);

/** runtime (the JS and wasm Pagefind runs) or data (entry, meta, index chunks, fragments, filters). */
const partOf = (url) => (/\.js(\?|$)|\.pagefind(\?|$)|\.wasm(\?|$)/.test(url) ? 'runtime' : 'data');
/** The data's parts: meta (entry + pf_meta, the same for every query), index chunks, fragments (results). */
const dataPartOf = (url) => (/\.pf_index$/.test(url) ? 'index' : /\.pf_fragment$/.test(url) ? 'fragments' : /\.pf_filter$/.test(url) ? 'filter' : 'meta');
/** Requests of the query: all but the page itself (and a favicon). */
const counted = (url) => !/^\/(index\.html)?(\?.*)?$/.test(url) && !url.startsWith('/favicon');

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const rows = [];
for (const c of cases) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const seen = { runtime: 0, data: 0, n: 0 };
  const pending = [];
  ctx.on('requestfinished', (r) => pending.push((async () => {
    const u = new URL(r.url());
    if (!counted(u.pathname)) return;
    const s = await r.sizes();
    seen[partOf(u.pathname)] += s.responseBodySize + s.responseHeadersSize;
    seen.n++;
  })().catch(() => {})));
  const logStart = fs.statSync(accessLog).size;
  await page.goto(`${base}/`, { waitUntil: 'load' });
  const out = await page.evaluate(async (q) => {
    const t0 = performance.now();
    const pf = await import('/pagefind/pagefind.js');
    await pf.options({ baseUrl: '/' });
    await pf.init();
    const t1 = performance.now();
    const r = await pf.search(q);
    const data = await Promise.all(r.results.slice(0, 8).map((x) => x.data()));
    const t2 = performance.now();
    return {
      init_ms: t1 - t0, search_ms: t2 - t1, results: r.results.length,
      top: data.map((d) => ({ url: d.url, title: d.meta?.title || '', content: d.content || '' })),
    };
  }, c.q);
  await page.waitForLoadState('networkidle');
  await Promise.all(pending);
  await ctx.close();
  await new Promise((ok) => setTimeout(ok, 100)); // nginx writes a request's log line as it ends
  const sent = { runtime: 0, data: 0, n: 0, meta: 0, index: 0, fragments: 0, filter: 0 };
  const log = fs.readFileSync(accessLog, 'utf8').slice(logStart);
  for (const line of log.split('\n').filter(Boolean)) {
    const [url, , bytes] = line.split(' ');
    if (!counted(url)) continue;
    sent[partOf(url)] += Number(bytes);
    if (partOf(url) === 'data') sent[dataPartOf(url)] += Number(bytes);
    sent.n++;
  }
  const want = c.want[0];
  const rank = out.top.findIndex((t) => t.title.includes(want) || t.content.includes(want) || t.url.includes(want));
  rows.push({ q: c.q, want, rank, results: out.results, init_ms: out.init_ms, search_ms: out.search_ms, sent, seen,
    first: out.top[0]?.title || '' });
}
await browser.close();
stopNginx();

const kb = (b) => (b / 1024).toFixed(1);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
console.log(`Pagefind over ${path.resolve(siteDir)}, nginx gzip 6 on ${base}, fresh context per query; KB = 1024 bytes`);
console.log('found  rank results  req  runtime KB  data KB (meta + index + fragments)  total KB  (browser KB)  init ms  search ms  query');
for (const r of rows) {
  const tot = r.sent.runtime + r.sent.data;
  console.log(`${r.rank >= 0 ? 'yes  ' : 'NO   '}  ${String(r.rank >= 0 ? r.rank + 1 : '-').padStart(4)} ${String(r.results).padStart(7)} ${String(r.sent.n).padStart(4)}`
    + ` ${kb(r.sent.runtime).padStart(11)} ${kb(r.sent.data).padStart(8)} ${`(${kb(r.sent.meta)} + ${kb(r.sent.index)} + ${kb(r.sent.fragments)})`.padStart(25)} ${kb(tot).padStart(9)} ${('(' + kb(r.seen.runtime + r.seen.data) + ')').padStart(13)}`
    + ` ${r.init_ms.toFixed(0).padStart(8)} ${r.search_ms.toFixed(0).padStart(10)}  ${r.q.length > 60 ? r.q.slice(0, 57) + '...' : r.q}`);
  if (r.rank < 0) console.log(`       want '${r.want}'; first result: ${r.first.slice(0, 100) || 'none'}`);
}
const col = (f) => rows.map(f);
const stat = (name, xs, fmt) => console.log(`${name.padEnd(26)} max ${fmt(Math.max(...xs))}  median ${fmt(median(xs))}  min ${fmt(Math.min(...xs))}`);
const found = rows.filter((r) => r.rank >= 0).length;
console.log(`found ${found}/${rows.length} (want[0] in the title, content or url of one of the first 8 results)`);
stat('bytes/query total (nginx)', col((r) => r.sent.runtime + r.sent.data), (b) => `${kb(b)} KB`);
stat('  runtime (js + wasm)', col((r) => r.sent.runtime), (b) => `${kb(b)} KB`);
stat('  data', col((r) => r.sent.data), (b) => `${kb(b)} KB`);
stat('    meta (entry + pf_meta)', col((r) => r.sent.meta), (b) => `${kb(b)} KB`);
stat('    index chunks', col((r) => r.sent.index), (b) => `${kb(b)} KB`);
stat('    fragments', col((r) => r.sent.fragments), (b) => `${kb(b)} KB`);
stat('bytes/query (Chromium)', col((r) => r.seen.runtime + r.seen.data), (b) => `${kb(b)} KB`);
stat('import + init', col((r) => r.init_ms), (t) => `${t.toFixed(0)} ms`);
stat('search() to 8 results data', col((r) => r.search_ms), (t) => `${t.toFixed(0)} ms`);
fs.writeFileSync(path.join(WORK, 'measure.json'), JSON.stringify(rows, null, 2) + '\n');
