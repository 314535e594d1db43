// Pagefind over the reports of an imported dataset: the same text per report as our index's
// `terms_of` (model/src/search.rs), one custom record each.
//
// Usage: node build.mjs DATA_DIR SITE_DIR
//   DATA_DIR  an `lkpx import --out` folder (each report's page, m/*/index.html, carries its document)
//   SITE_DIR  written: SITE_DIR/pagefind/ (the bundle) and SITE_DIR/index.html (the page measure.mjs loads)
// Pagefind is imported from $WORK/node_modules (WORK defaults to /tmp/pagefind-bench; run.sh installs it).
// Prints the wall times and the bundle's files and bytes on disk, and writes them to SITE_DIR/build.json.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';

const [dataDir, siteDir] = process.argv.slice(2);
if (!dataDir || !siteDir) {
  console.error('usage: node build.mjs DATA_DIR SITE_DIR');
  process.exit(2);
}
const WORK = process.env.WORK || '/tmp/pagefind-bench';
const pagefind = await import(pathToFileURL(path.join(WORK, 'node_modules/pagefind/lib/index.js')).href);
const version = JSON.parse(fs.readFileSync(path.join(WORK, 'node_modules/pagefind/package.json'), 'utf8')).version;

/** A report document: gzip'd JSON (magic 1f 8b) or plain JSON. */
/** The document a report's page carries (`model::paths::page_doc`: base64 of its gzip JSON). */
function readDoc(file) {
  const html = fs.readFileSync(file, 'utf8');
  const open = '<script type="application/gzip" id="report-doc">';
  const from = html.lastIndexOf(open) + open.length;
  const b64 = html.slice(from, html.indexOf('</script>', from));
  return JSON.parse(zlib.gunzipSync(Buffer.from(b64, 'base64')).toString('utf8'));
}

/** The name of `Name <addr>`; nothing for a bare address (as `terms_of`). */
function nameOf(p) {
  const i = p.indexOf('<');
  if (i >= 0) return p.slice(0, i).trim();
  return p.includes('@') ? '' : p;
}

/** The address of `Name <addr>` or of a bare address, lower case (as `search::address`). */
function addressOf(p) {
  const i = p.lastIndexOf('<'), j = p.lastIndexOf('>');
  const a = (i >= 0 && i < j ? p.slice(i + 1, j) : p).trim().replace(/^"+|"+$/g, '');
  return a.includes('@') && !/\s/.test(a) ? a.toLowerCase() : null;
}

/**
 * The text our index finds a report by (`terms_of`): subject, the commits' titles, the names and
 * addresses of From/To/Cc, testcases and machines of its jobs, headline metrics, the commit ids.
 * Commit ids are given whole (our index keeps their first 7 hex digits and checks a longer query
 * against the id): Pagefind matches a query word as a prefix of an indexed word, so a query of 7+
 * hex digits finds the whole id, as ours does.
 */
function contentOf(d) {
  const people = [d.from, ...(d.to || [])].filter(Boolean);
  const lines = [
    d.subject || '',
    ...(d.commits || []).map((c) => c.subject || ''),
    ...people.map(nameOf),
    ...people.map(addressOf).filter(Boolean),
    ...(d.jobs || []).flatMap((j) => [j.testcase, j.machine]),
    ...(d.headlines || []).map((h) => h.metric),
    ...(d.commits || []).map((c) => c.id),
  ];
  return lines.filter((l) => l && l.trim()).join('\n');
}

/** What a result shows, as ours: title, date, first headline (metric, change, word). */
function metaOf(d) {
  const h = (d.headlines || [])[0];
  const meta = { title: d.subject || d.id, date: d.date || '' };
  if (h) meta.headline = [h.metric, h.change != null ? `${h.change > 0 ? '+' : ''}${h.change}%` : '', h.word].filter(Boolean).join(' ');
  return meta;
}

const t0 = performance.now();
const pagesDir = path.join(dataDir, 'm');
const files = fs.readdirSync(pagesDir).sort();
const records = files.map((f) => {
  const d = readDoc(path.join(pagesDir, f, 'index.html'));
  return { url: `m/${d.message_id || d.id}/`, content: contentOf(d), language: 'en', meta: metaOf(d) };
});
const tRead = performance.now();

const outputPath = path.join(siteDir, 'pagefind');
fs.rmSync(outputPath, { recursive: true, force: true });
fs.mkdirSync(siteDir, { recursive: true });
const { errors, index } = await pagefind.createIndex({});
if (errors.length) throw new Error(`createIndex: ${errors.join('; ')}`);
// a few records in flight at once: the service reads them over a pipe
const IN_FLIGHT = 64;
let words = 0;
for (let i = 0; i < records.length; i += IN_FLIGHT) {
  const rs = await Promise.all(records.slice(i, i + IN_FLIGHT).map((r) => index.addCustomRecord(r)));
  for (const r of rs) {
    if (r.errors.length) throw new Error(`addCustomRecord: ${r.errors.join('; ')}`);
    words += r.file.uniqueWords;
  }
}
const tAdd = performance.now();
const w = await index.writeFiles({ outputPath });
if (w.errors.length) throw new Error(`writeFiles: ${w.errors.join('; ')}`);
const tWrite = performance.now();
await pagefind.close();

// the page measure.mjs loads: the runtime is imported by the measuring script, nothing else
fs.writeFileSync(path.join(siteDir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>pagefind bench</title><p>pagefind bench</p>\n');

/** Kind of a bundle file, for the split. */
function kindOf(f) {
  if (f.endsWith('.pf_index')) return 'pf_index';
  if (f.endsWith('.pf_fragment')) return 'pf_fragment';
  if (f.endsWith('.pf_meta')) return 'pf_meta';
  if (f.endsWith('.pf_filter')) return 'pf_filter';
  if (f.endsWith('.pagefind') || f.endsWith('.wasm')) return 'wasm';
  return 'other (js, css, json)';
}
const kinds = {};
let nFiles = 0, nBytes = 0;
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { walk(p); continue; }
    const size = fs.statSync(p).size, k = kindOf(e.name);
    kinds[k] ??= { files: 0, bytes: 0 };
    kinds[k].files++; kinds[k].bytes += size;
    nFiles++; nBytes += size;
  }
})(outputPath);

const s = (ms) => (ms / 1000).toFixed(2);
const result = {
  pagefind: version, reports: records.length, unique_words_summed: words,
  seconds: { read_docs: +s(tRead - t0), add_records: +s(tAdd - tRead), write_files: +s(tWrite - tAdd), total: +s(tWrite - t0) },
  bundle: { path: outputPath, files: nFiles, bytes: nBytes, kinds },
};
fs.writeFileSync(path.join(siteDir, 'build.json'), JSON.stringify(result, null, 2) + '\n');
console.log(`pagefind ${version}: ${records.length} reports from ${docsDir}`);
console.log(`wall time: ${s(tWrite - t0)} s (read docs ${s(tRead - t0)} s, addCustomRecord ${s(tAdd - tRead)} s, writeFiles ${s(tWrite - tAdd)} s)`);
console.log(`bundle ${outputPath}: ${nFiles} files, ${nBytes} bytes (${(nBytes / 1e6).toFixed(1)} MB) on disk`);
for (const [k, v] of Object.entries(kinds).sort()) console.log(`  ${k.padEnd(22)} ${String(v.files).padStart(6)} files ${String(v.bytes).padStart(11)} bytes`);
