// Bytes of the first screen of a published data directory: the root, the catalog of the newest report's
// testcase and the trend chunk of its headline metric, raw and gzip. Usage: node e2e/first-bytes.mjs DATA_DIR
import fs from 'node:fs'; import path from 'node:path'; import zlib from 'node:zlib'; import { decodeMetrics } from './harness.mjs';
const dir = process.argv[2];
const f = (rel) => { const b = fs.readFileSync(path.join(dir, rel)); return [rel, b.length, zlib.gzipSync(b, { level: 6 }).length]; };
const root = JSON.parse(fs.readFileSync(path.join(dir, 'index.json')));
const tc = root.newest[0].testcases[0];
const t = root.testcases.find((x) => x.name === tc);
const cat = JSON.parse(fs.readFileSync(path.join(dir, t.catalog)));
const h = cat.headlines.find((x) => x.job != null) ?? cat.headlines[0];
const m = decodeMetrics(cat.metrics).find((x) => x.name === h.metric);
const rows = [f('index.json'), f(t.catalog), f(cat.chunks[m.chunk ?? 0])];
for (const r of rows) console.log(r.join('\t'));
console.log('total', rows.reduce((a, r) => a + r[1], 0), rows.reduce((a, r) => a + r[2], 0));
let max = 0; for (const x of root.testcases) max = Math.max(max, fs.statSync(path.join(dir, x.catalog)).size); console.log('largest catalog', max);
