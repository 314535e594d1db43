// "Bring your own mail" timing in headless Chromium: from choosing a mail file to its report page drawn,
// the first time (the worker's 3 files fetched and compiled, then the parse) and again (parse only), plus
// the worker's bytes. Serves dist/ from 127.0.0.1 (python-like: no gzip). Prints numbers; not a test.
// Usage: node e2e/bench-mail.mjs [MAIL ...]   (default: the real raw mails in fixtures/corpus/raw)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, DIST, ROOT } from './harness.mjs';

const mails = process.argv.slice(2);
if (!mails.length) {
  const dir = path.join(ROOT, 'fixtures/corpus/raw');
  for (const f of fs.readdirSync(dir).sort()) if (f.endsWith('.eml')) mails.push(path.join(dir, f));
}
for (const f of ['mail-worker_bg.wasm', 'mail-worker.js', 'mail-worker_loader.js']) {
  const b = fs.readFileSync(path.join(DIST, f));
  console.log(`${f}\t${b.length} B\tgzip -6 ${zlib.gzipSync(b, { level: 6 }).length} B`);
}
const server = await serve(DIST);
const { browser, page } = await launch();
await page.goto(server.url);
await page.waitForSelector('[data-testid=report-page]');
const times = [];
for (const [i, m] of mails.entries()) {
  await page.click('[data-testid=mail-open]');
  const t0 = Date.now();
  await page.setInputFiles('[data-testid=mail-file]', { name: path.basename(m), mimeType: 'message/rfc822', buffer: fs.readFileSync(m) });
  await page.waitForFunction((n) => document.querySelector('[data-testid=mail-result]')?.textContent.includes(n), path.basename(m));
  await page.waitForFunction(() => document.querySelector('.report.from-mail, [data-testid=mail-reason]'));
  const ms = Date.now() - t0;
  times.push(ms);
  console.log(`${i === 0 ? 'first (worker cold)' : 'next'}\t${path.basename(m)}\t${fs.statSync(m).size} B\t${ms} ms`);
  await page.click('[data-testid=mail-close]');
}
const warm = times.slice(1).sort((a, b) => a - b);
if (warm.length) console.log(`warm: median ${warm[warm.length >> 1]} ms, max ${warm.at(-1)} ms over ${warm.length} mails`);
await browser.close();
await server.close();
