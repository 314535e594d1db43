// The job history of a report page on a dataset bigger than the root's newest reports: the real
// fixtures plus 300 synthetic mails (`lkpx synth --mails`, derived from the fixtures, so jobs
// recur), imported by the release lkpx the data-freshness stage built. A report outside the root's
// newest lists the other reports of its job from one small file of the reports list by job
// (`by_job` in index.json), without loading the whole list, and offers the job's trend.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, ROOT, readJson, decodeReports, pageDir, copyShell, placePages } from './harness.mjs';

const LKPX = path.join(ROOT, 'target', 'release', 'lkpx');
let site;

before(() => {
  assert.ok(fs.existsSync(LKPX), `${LKPX} missing: build it with cargo build --release -p importer`);
  site = fs.mkdtempSync(path.join(os.tmpdir(), 'lkpx-history-'));
  const mails = path.join(site, 'mails');
  execFileSync(LKPX, ['synth', '--mails', '300', '--from', 'fixtures', '--out', mails], { cwd: ROOT, stdio: 'pipe' });
  copyShell(path.join(site, 'www'));
  execFileSync(LKPX, ['import', '--out', path.join(site, 'www', 'data'), mails, 'fixtures/seeds', 'fixtures/corpus'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  placePages(path.join(site, 'www'));
});

after(() => fs.rmSync(site, { recursive: true, force: true }));

const read = (rel) => readJson(path.join(site, 'www', 'data', rel));
const jobKey = (r) => (r.machine ? JSON.stringify([r.testcases[0], r.machine, r.params || {}]) : null);

/** A report not among the root's newest whose job has at least three reports, and its job's others. */
function pick(root) {
  const all = root.pages.flatMap((p) => read(p).reports);
  const byJob = new Map();
  for (const r of all) {
    const k = jobKey(r);
    if (k) byJob.set(k, [...(byJob.get(k) || []), r]);
  }
  const newest = new Set(root.newest.map((r) => r.id));
  for (const r of all) {
    const same = byJob.get(jobKey(r)) || [];
    const commits = new Set(same.flatMap((x) => [x.commit, x.base]).filter(Boolean).map((c) => c.slice(0, 10)));
    if (!newest.has(r.id) && same.length >= 3 && commits.size >= 3) return { report: r, others: same.filter((x) => x.id !== r.id) };
  }
  throw new Error('no job with three reports outside the newest');
}

test('a report outside the newest lists its job from one file of the list by job', async () => {
  const root = read('index.json');
  assert.ok(root.totals.reports > root.newest.length, `${root.totals.reports} reports, ${root.newest.length} newest`);
  assert.ok(root.by_job.length >= 2, 'the root names the list by job');
  const { report, others } = pick(root);
  const srv = await serve(path.join(site, 'www'));
  const { browser, page, errors } = await launch();
  try {
    await page.goto(`${srv.url}?report=${encodeURIComponent(report.message_id || report.id)}`);
    await page.waitForSelector('[data-testid=job-history] [data-testid=job-report]', { timeout: 20000 });
    const listed = await page.$$eval('[data-testid=job-history] [data-testid=job-report]', (a) => a.map((x) => x.textContent));
    assert.deepEqual(listed.sort(), others.map((r) => r.subject || r.id).sort());
    assert.match(await page.textContent('[data-testid=job-history] h3'), new RegExp(`\\(${others.length}\\)`));
    assert.ok(await page.isVisible('[data-testid=job-trend]'), 'three commits or more: the trend is offered');
    // one file of the list by job, no page of the whole list, no catalog
    const got = srv.requests.filter((r) => r.startsWith('GET ') && r.includes('/data/l/')).map((r) => r.split(' ')[1].slice(6));
    const byJob = got.filter((p) => root.by_job.includes(p));
    assert.equal(byJob.length, 1, got.join('\n'));
    assert.deepEqual(got.filter((p) => root.pages.includes(p)), [], 'no page of the whole list');
    assert.deepEqual(srv.requests.filter((r) => r.includes('/data/t/')), [], 'no catalog');
    // following one opens that report, whose history lists the first one back
    await page.click('[data-testid=job-history] [data-testid=job-report]');
    await page.waitForFunction(
      (subject) => [...document.querySelectorAll('[data-testid=job-history] [data-testid=job-report]')].some((a) => a.textContent === subject),
      report.subject || report.id,
    );
    assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
  } finally {
    await browser.close();
    await srv.close();
  }
});

/** Each testcase's catalog with its rest (every report), as the importer wrote it. */
function catalogs() {
  return read('index.json').testcases.map((t) => {
    const c = read(t.catalog);
    return { testcase: t.name, jobs: c.jobs || [], reports: decodeReports(read(c.rest).reports) };
  });
}

test("Compare reads a job's own file when several reports measured it, else its one report's page (its document)", async () => {
  const cats = catalogs();
  const several = cats.flatMap((c) => c.jobs).find((j) => j.shard);
  const one = cats.flatMap((c) => c.jobs.map((j) => ({ j, c }))).find(({ j }) => j.report != null);
  assert.ok(several && one, 'jobs of both kinds');
  assert.match(several.shard, /^j\//);
  const doc = `m/${pageDir(one.c.reports[one.j.report])}/`;
  const srv = await serve(path.join(site, 'www'));
  const { browser, page, errors } = await launch();
  try {
    for (const [job, file] of [
      [several, `data/${several.shard}`],
      [one.j, doc],
    ]) {
      const from = srv.requests.length;
      await page.goto(`${srv.url}?view=compare&job=${job.id}`);
      await page.waitForSelector('[data-testid=compare-row]', { timeout: 20000 });
      const fetched = srv.requests.slice(from);
      assert.ok(fetched.some((r) => r.includes(`/${file} 200`)), `${file}:\n${fetched.join('\n')}`);
      assert.equal(fetched.filter((r) => /\/data\/j\//.test(r)).length, job.shard ? 1 : 0, fetched.join('\n'));
      assert.equal(await page.getByTestId('error').count(), 0);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await srv.close();
  }
});
