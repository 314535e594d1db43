// "Bring your own mail" in headless Chromium: a real robot mail chosen as a file, dropped onto the
// page or pasted is read in the browser by the importer's parser (the mail-worker Web Worker, fetched
// only then), shown as a report page beside the hosted data of its job, and nothing is sent anywhere.
// A mail that is not a report gets the importer's reason. Expects dist/ and dist-sub/ (see app.test.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, DIST, DIST_SUB, ROOT } from './harness.mjs';

// A real robot mail as received (.eml: MIME parts in ISO-8859-1, the job script and reproduce attached).
const MAIL = fs.readFileSync(path.join(ROOT, 'fixtures/corpus/raw/028.eml'), 'latin1');
// The same mail as text copied from lore (UTF-8).
const TEXT = fs.readFileSync(path.join(ROOT, 'fixtures/corpus/028.txt'), 'utf8');
const SUBJECT = MAIL.match(/^Subject: (.*)$/m)[1];
const MSGID = MAIL.match(/^Message-ID: <(.*)>$/m)[1];
// The same job measured on another commit, in a mail the hosted data does not have.
const NEW_COMMIT = '0123456789abcdef0123456789abcdef01234567';
const MINE = MAIL.replaceAll('4ae2edf12d49fdbaea2dfda0bb2ec06501bd3493', NEW_COMMIT)
  .replaceAll('4ae2edf12d49fdbaea2dfda0bb2', NEW_COMMIT.slice(0, 27))
  .replaceAll('4ae2edf12d', NEW_COMMIT.slice(0, 10))
  .replace(MSGID, 'my-own-copy@example.org');

const workerRequests = (requests) => requests.filter((r) => /mail-worker/.test(r));

async function open(dist, prefix) {
  const server = await serve(dist, { prefix });
  const { browser, page, errors } = await launch();
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=report-list] li');
  await page.waitForSelector('[data-testid=report-page]');
  return { server, browser, page, errors };
}

test('a mail file chosen in the panel is read in the browser by the worker, fetched only then', async () => {
  const { server, browser, page, errors } = await open(DIST);
  try {
    assert.deepEqual(workerRequests(server.requests), [], 'the worker is not fetched before a mail is given');
    await page.click('[data-testid=mail-open]');
    await page.waitForSelector('[data-testid=mail-panel]');
    // the text box gets the focus after the next frame
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'mail-text', null, { timeout: 2000 });
    await page.setInputFiles('[data-testid=mail-file]', { name: '028.eml', mimeType: 'message/rfc822', buffer: Buffer.from(MAIL, 'latin1') });
    await page.waitForSelector('.report.from-mail [data-testid=report-subject]');
    assert.equal(await page.textContent('.report.from-mail [data-testid=report-subject]'), SUBJECT);
    const box = await page.textContent('[data-testid=mail-result]');
    assert.match(box, /028\.eml/);
    assert.match(box, /nothing was uploaded/);
    // the commit is linked as lkpx links it; the headline is the mail's
    const commitHref = await page.getAttribute('.report.from-mail [data-testid=report-commit] a', 'href');
    assert.match(commitHref, /^https:\/\/git\.kernel\.org\/.*4ae2edf12d49fdbaea2dfda0bb2ec06501bd3493/);
    assert.match(await page.textContent('.report.from-mail [data-testid=report-headline]'), /fio\.write_iops -11\.9%/);
    // its reproduce script comes from the mail itself
    await page.waitForSelector('.report.from-mail .script');
    const got = workerRequests(server.requests).map((r) => r.replace(/^GET \S*\/(mail-worker\S*) (\d+)$/, '$1 $2'));
    assert.deepEqual(got.sort(), ['mail-worker.js 200', 'mail-worker_bg.wasm 200', 'mail-worker_loader.js 200']);
    assert.ok(server.requests.every((r) => /^(GET|HEAD) /.test(r)), 'nothing but GETs: ' + server.requests.join('\n'));
    // the hosted data holds this very report: one click opens the hosted copy
    await page.waitForSelector('[data-testid=mail-hosted] button');
    await page.click('[data-testid=mail-hosted] button');
    await page.waitForSelector('[data-testid=report-page]:not(.from-mail)');
    assert.equal(await page.$('[data-testid=mail-result]'), null);
    assert.equal(new URL(page.url()).searchParams.get('report'), MSGID);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test('a dropped mail of a hosted job is shown with the hosted reports of that job; gzip is read too', async () => {
  const { server, browser, page, errors } = await open(DIST);
  try {
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'mine.eml', { type: 'message/rfc822' }));
      document.body.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, Buffer.from(MINE, 'latin1').toString('base64'));
    await page.waitForSelector('.report.from-mail [data-testid=report-commit]');
    assert.match(await page.textContent('.report.from-mail [data-testid=report-commit]'), /0123456789/);
    assert.equal(await page.evaluate(() => document.body.classList.contains('dropping')), false);
    // the hosted report of the same job is listed beside it (the whole list is known by then), and opens
    await page.waitForSelector('.report.from-mail [data-testid=job-report]');
    assert.equal(await page.$('[data-testid=mail-hosted]'), null, 'this mail is not in the hosted data');
    assert.equal(await page.textContent('.report.from-mail [data-testid=job-report]'), SUBJECT);
    await page.click('.report.from-mail [data-testid=job-report]');
    await page.waitForSelector('[data-testid=report-page]:not(.from-mail)');
    assert.equal(await page.textContent('[data-testid=report-subject]'), SUBJECT);

    // a gzipped copy chosen as a file reads the same
    await page.click('[data-testid=mail-open]');
    const gz = zlib.gzipSync(Buffer.from(MINE, 'latin1'));
    await page.setInputFiles('[data-testid=mail-file]', { name: 'mine.eml.gz', mimeType: 'application/gzip', buffer: gz });
    await page.waitForSelector('.report.from-mail [data-testid=report-commit]');
    assert.match(await page.textContent('[data-testid=mail-result]'), /mine\.eml\.gz/);
    assert.match(await page.textContent('.report.from-mail [data-testid=report-commit]'), /0123456789/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test('pasted text: a report is read, a mail that is not one gets the importer reason, a broken row its line', async () => {
  const { server, browser, page, errors } = await open(DIST);
  try {
    const paste = (text) =>
      page.evaluate((t) => {
        const dt = new DataTransfer();
        dt.setData('text/plain', t);
        document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      }, text);
    await paste('From: a colleague\nSubject: lunch?\n\nSee you at noon.\n');
    await page.waitForSelector('[data-testid=mail-reason]');
    assert.equal(await page.textContent('[data-testid=mail-reason]'), 'Not a report: no comparison table found.');
    assert.equal(await page.$('.report.from-mail'), null);
    // a cell turned bad: the importer names the line and keeps the rest
    const lines = TEXT.split('\n');
    const at = lines.findIndex((l) => /^\s+\d+ ±\s+\d+%\s+[-+][\d.]+%\s+\d+ ±\s+\d+%\s+\S+$/.test(l));
    assert.ok(at > 0, 'a table row to break');
    lines[at] = lines[at].replace(/(\d+) ±/, '$1x ±');
    await page.click('[data-testid=mail-open]');
    await page.fill('[data-testid=mail-text]', lines.join('\n'));
    await page.click('[data-testid=mail-read]');
    await page.waitForSelector('.report.from-mail');
    const problems = await page.textContent('[data-testid=mail-errors]');
    assert.match(problems, new RegExp(`pasted text:${at + 1}: `), problems);
    // Esc closes the panel and gives the focus back to its button; Close drops the mail
    await page.click('[data-testid=mail-open]');
    await page.waitForSelector('[data-testid=mail-panel]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=mail-panel]', { state: 'detached' });
    // the focus returns after the next frame
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'mail-open', null, { timeout: 2000 });
    await page.click('[data-testid=mail-close]');
    await page.waitForSelector('[data-testid=report-page]:not(.from-mail)');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test('under a sub-path (/x/y/) the worker loads relative to the page', async () => {
  const { server, browser, page, errors } = await open(DIST_SUB, '/x/y/');
  try {
    await page.click('[data-testid=mail-open]');
    await page.setInputFiles('[data-testid=mail-file]', { name: '028.eml', mimeType: 'message/rfc822', buffer: Buffer.from(MAIL, 'latin1') });
    await page.waitForSelector('.report.from-mail [data-testid=report-subject]');
    const got = workerRequests(server.requests);
    assert.equal(got.length, 3, got.join('\n'));
    assert.ok(got.every((r) => / \/x\/y\/mail-worker\S* 200$/.test(r)), server.requests.join('\n'));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
