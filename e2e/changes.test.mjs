// End-to-end tests of issue 4's views against the real published data, in headless Chromium: the
// Changes table (filters in the URL, reload, links), the notes of a report, detected steps on the
// trend, and the latency distribution of the seed fio report. Expects dist/ (trunk build --release).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useSite, DIST, loadIndex, firstHeadline, seriesOf, chunkOf, decodeChange, encodeChange, chartReady, readJson, changeCountOf } from './harness.mjs';

const index = loadIndex();
const query = (page) => new URL(page.url()).searchParams;
const waitQuery = (page, key, value) =>
  page.waitForFunction(([k, v]) => new URL(location.href).searchParams.get(k) === v, [key, value]);

// The blogbench job on xfs whose report states blogbench.write_score +5.2% (10702 → 11259).
const blogHeadline = index.headlines.find(
  (h) => h.testcase === 'blogbench' && h.metric === 'blogbench.write_score' && h.job != null && h.change === 5.2,
);
const blogJob = index.jobs[blogHeadline.job];

// The seed fio report: a maintainer answered "This is not a regression" (2ms/4ms latency bins).
const seedReport = index.reports.findIndex((r) => (r.notes || []).some((n) => n.startsWith('This is not a regression')));
const seedJob = index.jobs[index.reports[seedReport].sections[0].job];
const [seedBase, seedHead] = index.reports[seedReport].sections[0].commits.map((c) => index.commits[c]);

/** The served site and its browser page, for every test of this file. */
const site = useSite();

test('the data is what these tests expect', () => {
  assert.equal(blogJob.params.fs, 'xfs');
  assert.equal(seedJob.testcase, 'fio-basic');
  assert.deepEqual([seedJob.params.fs, seedJob.params.rw], ['xfs', 'randwrite']);
  assert.ok(seedBase.id.startsWith('8925a3dc47') && seedHead.id.startsWith('b027d4c97b'));
});

test('Changes tab: the blogbench xfs change; filters in the URL; reload; sort; trend link', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?testcase=blogbench&p.fs=xfs`);
  await page.getByTestId('view-tab-changes').click();
  await waitQuery(page, 'view', 'changes');
  await page.getByTestId('changes-table').waitFor();
  const rowSel = `[data-testid=change-row][data-metric="blogbench.write_score"][data-job="${blogJob.id}"]`;
  const row = page.locator(rowSel);
  assert.equal(await row.count(), 1);
  assert.equal(await row.locator('td.change').innerText(), '+5.2%');
  assert.match(await row.innerText(), /10702 → 11259/);
  assert.match(await row.getAttribute('class'), /dir-improvement/);
  assert.equal(await row.getAttribute('data-source'), 'stated');
  assert.match(await row.locator('td.sig').innerText(), /unknown/, 'no run counts: significance unknown, not made up');
  const all = await page.locator('[data-testid=change-row]').count();
  assert.ok(all > 1, `${all} rows`);
  // Only xfs jobs (the facet selection scopes the jobs).
  const jobs = await page.locator('[data-testid=change-row]').evaluateAll((rs) => [...new Set(rs.map((r) => r.dataset.job))]);
  assert.ok(jobs.every((j) => index.jobs.find((x) => x.id === j).params.fs === 'xfs'), jobs.join());

  // Direction filter: rows and URL change.
  await page.getByTestId('changes-dir').selectOption('improvement');
  await waitQuery(page, 'ch.dir', 'improvement');
  const classes = await page.locator('[data-testid=change-row]').evaluateAll((rs) => rs.map((r) => r.className));
  assert.ok(classes.length > 0 && classes.length < all, `${classes.length} of ${all}`);
  assert.ok(classes.every((c) => c.includes('dir-improvement')), classes.join());
  // Namespace filter.
  await page.getByTestId('changes-ns').selectOption('blogbench');
  await waitQuery(page, 'ch.ns', 'blogbench');
  const metrics = await page.locator('[data-testid=change-row]').evaluateAll((rs) => rs.map((r) => r.dataset.metric));
  assert.ok(metrics.length > 0 && metrics.every((m) => m.startsWith('blogbench.')), metrics.join());
  assert.equal(await page.locator(rowSel).count(), 1);

  // Reload restores the view and its filters.
  await page.reload();
  await page.getByTestId('changes-table').waitFor();
  assert.equal(await page.getByTestId('changes-dir').inputValue(), 'improvement');
  assert.equal(await page.getByTestId('changes-ns').inputValue(), 'blogbench');
  assert.equal(await page.locator(rowSel).count(), 1);

  // Sorting by metric name is in the URL too.
  await page.getByTestId('changes-ns').selectOption('');
  await page.getByTestId('changes-sort-metric').click();
  await waitQuery(page, 'ch.sort', 'metric');
  const sorted = await page.locator('[data-testid=change-row]').evaluateAll((rs) => rs.map((r) => r.dataset.metric));
  assert.deepEqual(sorted, [...sorted].sort());

  // The row's trend link: that metric and job, the head commit selected.
  await page.locator(rowSel).getByTestId('change-trend').click();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('view'));
  assert.equal(query(page).get('metric'), 'blogbench.write_score');
  assert.equal(query(page).get('jobs'), blogJob.id);
  assert.equal(query(page).get('commit'), index.commits[blogHeadline.head].id);
  await page.waitForFunction(chartReady);
  await page.getByTestId('commit-panel').waitFor();
  // Back returns to the filtered Changes view.
  await page.goBack();
  await page.getByTestId('changes-table').waitFor();
  assert.equal(query(page).get('ch.dir'), 'improvement');
  assert.deepEqual(errors, []);
});

test('the seed fio report: its note beside the change, and the 2ms/4ms shift as one distribution', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?view=changes&testcase=fio-basic&p.rw=randwrite&ch.ns=fio`);
  await page.getByTestId('changes-table').waitFor();
  const row = page.locator(`[data-testid=change-row][data-metric="fio.latency_2ms%"][data-job="${seedJob.id}"]`);
  assert.equal(await row.count(), 1);
  assert.equal(await row.locator('td.change').innerText(), '+7.1');
  assert.match(await row.getByTestId('change-note').textContent(), /This is not a regression/);
  // fio-basic's changes are two files: leave once both are in (leaving earlier aborts the second, as it should)
  await page.locator('[data-testid=changes-csv]:not([disabled])').waitFor();

  // Compare view → "distribution" link of a bin row.
  await page.goto(`${site.srv.url}?view=compare&job=${seedJob.id}`);
  await page.getByTestId('compare-table').waitFor();
  await page.locator('[data-testid=compare-row][data-metric="fio.latency_2ms%"] [data-testid=dist-link]').click();
  await waitQuery(page, 'view', 'dist');
  await checkSeedDistribution(page);

  // Trend of a bin metric → "show latency distribution", for the selected commit's report pair.
  const q = new URLSearchParams({ testcase: 'fio-basic', metric: 'fio.latency_4ms%', jobs: seedJob.id, job: seedJob.id, commit: seedHead.id });
  await page.goto(`${site.srv.url}?${q}`);
  await page.getByTestId('show-dist').click();
  await waitQuery(page, 'view', 'dist');
  await checkSeedDistribution(page);
  // Reload keeps it.
  await page.reload();
  await checkSeedDistribution(page);
  assert.deepEqual(errors, []);
});

async function checkSeedDistribution(page) {
  await page.getByTestId('dist-chart').waitFor();
  assert.equal(await page.getByTestId('dist-base').inputValue(), seedBase.id);
  assert.equal(await page.getByTestId('dist-head').inputValue(), seedHead.id);
  const bins = await page.locator('[data-testid=dist-row]').evaluateAll((rs) =>
    rs.map((r) => [r.dataset.metric, r.dataset.base, r.dataset.head]),
  );
  const two = bins.find((b) => b[0] === 'fio.latency_2ms%');
  const four = bins.find((b) => b[0] === 'fio.latency_4ms%');
  assert.deepEqual(two, ['fio.latency_2ms%', '46.56', '53.61']);
  assert.deepEqual(four, ['fio.latency_4ms%', '25.20', '17.86']);
  // Bins in value order: 750us before 2ms before 4ms before 100ms.
  const order = bins.map((b) => b[0]);
  const at = (m) => order.indexOf(m);
  assert.ok(at('fio.latency_750us%') < at('fio.latency_2ms%') && at('fio.latency_2ms%') < at('fio.latency_4ms%'), order.join());
  assert.ok(at('fio.latency_4ms%') < at('fio.latency_100ms%'), order.join());
  // One bar per side per bin, the head's 2ms bar taller than its base's.
  const heights = await page.locator('.dist-bin').nth(at('fio.latency_2ms%')).locator('.bar').evaluateAll((bs) =>
    bs.map((b) => b.getBoundingClientRect().height),
  );
  assert.equal(heights.length, 2);
  assert.ok(heights[1] > heights[0], heights.join());
  assert.match(await page.getByTestId('dist-notes').innerText(), /This is not a regression/);
}

test('detected steps are marked on the trend at their head commit', async () => {
  const { page, errors } = site.ctx;
  // The bundled reports give no series long enough for change points: add one detected step, at
  // the blogbench headline's head commit, to the trend chunk and to the changes file as served.
  const cat = index.catalogs.blogbench;
  const chunk = chunkOf(index, 'blogbench', 'blogbench.write_score');
  const readData = (rel) => readJson(path.join(DIST, 'data', rel));
  assert.equal(cat.changes.length, 1, 'blogbench has one page of changes');
  const changesFile = readData(cat.changes[0]);
  const localJob = blogHeadline.job - index.jobOffset.blogbench;
  const stated = changesFile.changes.map(decodeChange).find((c) => c.job === localJob && c.metric === 'blogbench.write_score');
  const step = encodeChange({ ...stated, source: 'detected', headline: false, noise_ratio: 4.2, report: null });
  await page.route(`**/data/${chunk}`, async (route) => {
    const c = readData(chunk);
    c.detected = [...(c.detected || []), step];
    await route.fulfill({ contentType: 'application/json', body: JSON.stringify(c) });
  });
  // (the Changes view lists it from the chunk: its page holds the top, which the step is not)
  const q = new URLSearchParams({ testcase: 'blogbench', metric: 'blogbench.write_score', jobs: blogJob.id });
  await page.goto(`${site.srv.url}?${q}`);
  const marker = page.getByTestId('step-marker');
  await marker.waitFor();
  assert.equal(await marker.count(), 1);
  assert.match(
    await marker.locator('.step-flag').getAttribute('title'),
    /^detected step \+5\.2% .*, 4\.2× the commit-to-commit noise$/,
  );
  // The Changes view lists it as detected.
  await page.getByTestId('view-tab-changes').click();
  await page.getByTestId('changes-source').selectOption('detected');
  await waitQuery(page, 'ch.source', 'detected');
  const sources = await page.locator('[data-testid=change-row]').evaluateAll((rs) => rs.map((r) => r.dataset.source));
  assert.deepEqual(sources, ['detected']);
  await page.unroute(`**/data/${chunk}`);
  assert.deepEqual(errors, []);
});

test('Changes with no testcase: the newest headline changes of every testcase, each opening its report', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?view=changes`);
  const table = page.getByTestId('recent-changes');
  await table.waitFor();
  const withHeadline = index.root.newest.filter((r) => r.metric);
  assert.equal(await page.getByTestId('recent-change').count(), withHeadline.length);
  const tcs = new Set(withHeadline.map((r) => r.testcases[0]));
  assert.ok(tcs.size >= 10, `${tcs.size} testcases`);
  const first = withHeadline[0];
  const row = page.getByTestId('recent-change').first();
  assert.match(await row.innerText(), new RegExp(first.metric.replace(/\./g, '\\.')));
  await row.locator('button[data-act=report]').click();
  await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId === id, first.id);
  assert.equal(query(page).get('report'), first.message_id ?? first.id);
  // Back, then a testcase: its own changes table.
  await page.goBack();
  await table.waitFor();
  await page.getByTestId('recent-change').first().locator('button[data-act=testcase]').click();
  await waitQuery(page, 'testcase', first.testcases[0]);
  await page.getByTestId('changes-summary').waitFor();
  await page.locator('[data-testid=changes-csv]:not([disabled])').waitFor(); // every page in
  assert.deepEqual(errors, []);
});

test('Changes of a big testcase: its page\'s rows at once, every change once its trend chunks are in', async () => {
  const { page, errors } = site.ctx;
  await page.waitForLoadState('networkidle'); // the test before may leave a catalog's rest loading
  const cat = index.catalogs['fio-basic'];
  assert.equal(cat.changes.length, 1, 'one page: the top of its changes');
  const first = readJson(path.join(DIST, 'data', cat.changes[0])).changes.map(decodeChange);
  const all = changeCountOf(index, 'fio-basic');
  assert.ok(all > first.length, `${all} changes`);
  const last = cat.chunks[cat.chunks.length - 1];
  let release;
  const held = new Promise((r) => (release = r));
  await page.route(`**/data/${last}`, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${site.srv.url}?view=changes&testcase=fio-basic`);
  const loading = page.getByTestId('changes-loading');
  await loading.waitFor();
  const files = 1 + cat.chunks.length;
  await page.waitForFunction((t) => document.querySelector('[data-testid=changes-loading]')?.textContent.includes(t), `of ${files} files`);
  // the page is the top of the view's order: its first record is the first row
  const rows = page.locator('[data-testid=change-row]');
  assert.equal(await rows.count(), 200);
  assert.equal(await rows.first().getAttribute('data-metric'), first[0].metric);
  assert.match(await page.getByTestId('changes-summary').innerText(), new RegExp(`^${first.length} changes in scope`));
  assert.ok(await page.getByTestId('changes-csv').isDisabled(), 'no CSV of a part');
  assert.match(await page.getByTestId('changes-partial').innerText(), new RegExp(`first 1 of ${files} files`));
  release();
  await loading.waitFor({ state: 'detached' });
  await page.getByTestId('changes-partial').waitFor({ state: 'detached' });
  assert.match(await page.getByTestId('changes-summary').innerText(), new RegExp(`^${all} changes in scope`));
  assert.ok(await page.getByTestId('changes-csv').isEnabled());
  assert.equal(await rows.first().getAttribute('data-metric'), first[0].metric, 'the top row stays');
  await page.unroute(`**/data/${last}`);
  assert.deepEqual(errors, []);
});
