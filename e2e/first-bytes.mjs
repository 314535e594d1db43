// Bytes of the first chart of a published data directory: the root, the catalog (first half) of the newest
// report's testcase, and the trend chunk of its headline metric (and the catalog's rest when that metric is
// not in its first half), raw and gzip. Usage: node e2e/first-bytes.mjs DATA_DIR
import fs from 'node:fs'; import path from 'node:path'; import zlib from 'node:zlib'; import { decodeMetrics, readJson } from './harness.mjs';
const dir = process.argv[2];
const f = (rel) => { const b = fs.readFileSync(path.join(dir, rel)); return [rel, b.length, zlib.gzipSync(b, { level: 6 }).length]; };
const read = (rel) => readJson(path.join(dir, rel));
const root = read('index.json');
const tc = root.newest[0].testcases[0];
const t = root.testcases.find((x) => x.name === tc);
const cat = read(t.catalog);
const heads = cat.headlines ?? [];
// no headline (result roots only): the testcase's first headline metric, else the first of the first half's
const h = heads.find((x) => x.job != null) ?? heads[0] ?? { metric: t.headline_metrics?.[0] ?? decodeMetrics(cat.metrics)[0]?.name };
const rows = [f('index.json'), f(t.catalog)];
let m = decodeMetrics(cat.metrics).find((x) => x.name === h.metric);
let chunks = cat.chunks;
if (!m) {
  const rest = read(cat.rest);
  const names = read(cat.names);
  rows.push(f(cat.rest), f(cat.names));
  m = decodeMetrics(names.metrics).find((x) => x.name === h.metric);
  chunks = rest.chunks;
}
rows.push(f(chunks[m.chunk ?? 0]));
for (const r of rows) console.log(r.join('\t'));
console.log('total', rows.reduce((a, r) => a + r[1], 0), rows.reduce((a, r) => a + r[2], 0));
const size = (rel) => fs.statSync(path.join(dir, rel)).size;
let max = 0, maxRest = 0, maxNames = 0;
for (const x of root.testcases) {
  const c = read(x.catalog);
  max = Math.max(max, size(x.catalog)); maxRest = Math.max(maxRest, size(c.rest)); maxNames = Math.max(maxNames, size(c.names));
}
console.log('largest catalog', max, 'largest rest', maxRest, 'largest names', maxNames);
