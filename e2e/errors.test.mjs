// End-to-end tests of broken data: a corrupted trend shard, a missing compare shard, a missing page of
// changes, a malformed
// index.json and an index of another schema version each show a visible message naming the file,
// never a blank page or an uncaught error. Each test serves a temporary copy of dist/.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, DIST, loadIndex, firstHeadline, seriesOf, chunkOf, chartReady, compareFileOf, carriedText } from './harness.mjs';

const index = loadIndex();
const headline = firstHeadline(index);

const temps = [];
after(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

/** A copy of dist/ changed by `mutate(dir)`, served and opened at `query`. */
async function openBroken(mutate, query = '', serveOptions = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lkpx-broken-'));
  temps.push(dir);
  fs.cpSync(DIST, dir, { recursive: true });
  mutate(dir);
  const srv = await serve(dir, serveOptions);
  const ctx = await launch();
  await ctx.page.goto(srv.url + query);
  return { ...ctx, srv };
}

async function expectError(ctx, pattern) {
  const box = ctx.page.getByTestId('error');
  await box.waitFor({ timeout: 20000 });
  const text = await box.innerText();
  assert.match(text, pattern);
  // The page around it is still there.
  assert.match(await ctx.page.locator('header.top').innerText(), /LKP Explorer/);
  const pageErrors = ctx.errors.filter((e) => e.startsWith('pageerror'));
  assert.deepEqual(pageErrors, []);
  return text;
}

async function close(ctx) {
  await ctx.browser.close();
  await ctx.srv.close();
}

test('a corrupted trend shard shows an error naming the file', async () => {
  // Load the first screen once to learn which shard it reads, then corrupt that file and reload.
  let dataDir;
  const ctx = await openBroken((dir) => (dataDir = path.join(dir, 'data')), '?view=trend');
  let rel;
  try {
    await ctx.page.waitForFunction(chartReady);
    // the commit panel's module may still be on its way: a reload would abort it (a failed request)
    await ctx.page.waitForLoadState('networkidle');
    const hit = ctx.srv.requests.find((r) => / \/data\/s\/\S+\.json\.gz 200$/.test(r));
    assert.ok(hit, ctx.srv.requests.join('\n'));
    rel = hit.split(' ')[1].replace(/^\/data\//, '');
    fs.writeFileSync(path.join(dataDir, rel), '{"schema":1, garbage');
    await ctx.page.reload();
    const text = await expectError(ctx, new RegExp(`could not load data/${rel.replace(/\./g, '\\.')}: malformed JSON`));
    assert.ok(text.length < 400, text);
    // The rest of the page still works: filters are there.
    await ctx.page.getByTestId('facet-testcase').waitFor();
    assert.deepEqual(ctx.errors, []);
  } finally {
    await close(ctx);
  }
});

const escaped = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A job one report measured, not the newest (the first screen carries the newest's document). */
const pagedJob = index.jobs.find((j) => j.report != null && index.catalogs[j.testcase].reports[j.report].id !== index.root.newest[0].id);

test("a compare file cut short (a broken gzip: the document its one report's page carries) shows an error naming the file", async () => {
  const job = pagedJob;
  const rel = compareFileOf(index, job);
  assert.match(rel, /^m\//, "one report measured the job: Compare reads the document its page carries");
  const cut = (dir) => {
    const f = path.join(dir, rel, 'index.html');
    const html = fs.readFileSync(f, 'utf8');
    const b64 = carriedText(html);
    const gz = Buffer.from(b64, 'base64');
    assert.deepEqual([gz[0], gz[1]], [0x1f, 0x8b], 'stored gzip-compressed');
    fs.writeFileSync(f, html.replace(b64, gz.subarray(0, Math.floor(gz.length / 2)).toString('base64')));
  };
  const ctx = await openBroken(cut, `?view=compare&job=${job.id}`);
  try {
    await expectError(ctx, new RegExp(`could not load ${escaped(rel)}: broken gzip`));
  } finally {
    await close(ctx);
  }
});

test('behind a host that sends the stored gzip with Content-Encoding, every file still reads', async () => {
  const ctx = await openBroken(() => {}, `?view=compare&job=${index.jobs[headline.job].id}`, { encodeGz: true });
  try {
    await ctx.page.getByTestId('compare-table').waitFor({ timeout: 20000 });
    await ctx.page.goto(ctx.srv.url + '?view=trend');
    await ctx.page.waitForFunction(chartReady);
    assert.equal(await ctx.page.getByTestId('error').count(), 0);
    assert.ok(ctx.srv.requests.some((r) => /\/data\/s\/\S+\.json\.gz 200$/.test(r)), ctx.srv.requests.join('\n'));
    assert.deepEqual(ctx.errors, []);
  } finally {
    await close(ctx);
  }
});

test('a missing compare file shows an error naming the file', async () => {
  const job = pagedJob;
  const rel = compareFileOf(index, job);
  const ctx = await openBroken((dir) => fs.rmSync(path.join(dir, rel, 'index.html')), `?view=compare&job=${job.id}`);
  try {
    await expectError(ctx, new RegExp(`could not load ${escaped(rel)}: HTTP 404`));
  } finally {
    await close(ctx);
  }
});

test('a missing trend chunk while Changes makes every change shows an error naming the file, and no loading status', async () => {
  const chunks = index.catalogs['fio-basic'].chunks;
  const gone = chunks[chunks.length - 1];
  const ctx = await openBroken((dir) => fs.rmSync(path.join(dir, 'data', gone)), '?view=changes&testcase=fio-basic');
  try {
    await expectError(ctx, new RegExp(`could not load data/${gone.replace(/\./g, '\\.')}: HTTP 404`));
    assert.equal(await ctx.page.getByTestId('changes-loading').count(), 0);
  } finally {
    await close(ctx);
  }
});

test('a malformed index.json shows an error naming it', async () => {
  const ctx = await openBroken((dir) => fs.writeFileSync(path.join(dir, 'data', 'index.json'), '<html>not json</html>'));
  try {
    await expectError(ctx, /could not load data\/index\.json: malformed JSON/);
    assert.deepEqual(ctx.errors, []);
  } finally {
    await close(ctx);
  }
});

test('an index of another schema version is refused with a message', async () => {
  const ctx = await openBroken((dir) => {
    const file = path.join(dir, 'data', 'index.json');
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    data.schema = 999;
    fs.writeFileSync(file, JSON.stringify(data));
  });
  try {
    await expectError(ctx, /could not load data\/index\.json: data schema 999, but this page reads schema \d+/);
    assert.deepEqual(ctx.errors, []);
  } finally {
    await close(ctx);
  }
});

test('a missing index.json shows an error naming it', async () => {
  const ctx = await openBroken((dir) => fs.rmSync(path.join(dir, 'data', 'index.json')));
  try {
    await expectError(ctx, /could not load data\/index\.json: HTTP 404/);
  } finally {
    await close(ctx);
  }
});
