// End-to-end tests of the LKP Explorer page against the real published data, in headless Chromium:
// first screen, filters and metric finder with permalinks, hover and click on a point, the commit
// panel and its reproduce script, back/forward, the compare table with a mail's numbers, a sub-path
// build and dropped URL parameters. Expects dist/ (trunk build --release) and dist-sub/
// (trunk build --release --public-url /x/y/ --dist dist-sub).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, useSite, launch, canvasInkPixels, DIST, DIST_SUB, loadIndex, firstHeadline, seriesOf, chunkOf, compareFileOf } from './harness.mjs';

const index = loadIndex();
const CHART = '[data-testid=chart]';
const CANVAS = '[data-testid=chart] canvas';

/** The series of `metric` in the last trend chunk the page fetched (the test reads what the page
 * read, without re-spelling paths). */
function lastShard(requests, metric, dir = DIST) {
  const hits = requests.filter((r) => / \/data\/s\/\S+\.json\.gz 200$/.test(r));
  assert.ok(hits.length > 0, 'a trend chunk was fetched');
  const rel = hits.at(-1).split(' ')[1].replace(/^\/data\//, '');
  return seriesOf(index, rel, metric, dir);
}

const chartState = (page) =>
  page.$eval(CHART, (el) => ({
    drawn: Number(el.dataset.drawn),
    points: Number(el.dataset.points),
    draws: Number(el.dataset.draws),
    xy: el.dataset.xy || '',
  }));

/** Wait until the chart has been drawn more than `after` times, with at least one series. */
async function waitDrawn(page, after = 0) {
  await page.waitForFunction(
    (n) => {
      const el = document.querySelector('[data-testid=chart]');
      return el && el.dataset.pending === 'false' && Number(el.dataset.draws) > n && Number(el.dataset.drawn) > 0;
    },
    after,
    { timeout: 20000 },
  );
  // Let a resize-triggered redraw of the same frame settle.
  await page.waitForTimeout(100);
}

const canvasData = (page) => page.$eval(CANVAS, (c) => c.toDataURL());
const query = (page) => new URL(page.url()).searchParams;

/** The served site and its browser page, for every test of this file. */
const site = useSite();

/** The permalink key of a report summary: its Message-ID, else its id. */
const keyOf = (r) => r.message_id ?? r.id;
/** Text as the page lays it out: runs of white space are one space. */
const norm = (t) => t.replace(/\s+/g, ' ').trim();

test('first screen: the reports list, newest first, with the newest report open, from no query at all', async () => {
  const { page, errors } = site.ctx;
  const from = site.srv.requests.length;
  await page.goto(site.srv.url);
  const list = page.getByTestId('report-list');
  await list.waitFor();
  assert.match(await page.getByTestId('reports-count').innerText(), new RegExp(`\\b${index.root.newest.length}\\b.* reports`));
  const keys = await page.locator('[data-testid=report-item]').evaluateAll((els) => els.map((e) => e.dataset.report));
  const newest = index.root.newest.map(keyOf);
  assert.deepEqual(keys, newest.slice(0, keys.length), 'newest first, in the order of the root');
  assert.ok(keys.length >= Math.min(20, index.totals.reports), `${keys.length} rows`);
  // The newest report is open beside the list: its subject, its tables.
  const open = page.getByTestId('report-page');
  await open.waitFor();
  assert.equal(await open.getAttribute('data-report-id'), index.root.newest[0].id);
  assert.equal(norm(await page.getByTestId('report-subject').innerText()), norm(index.root.newest[0].subject));
  const lines = (await page.locator('[data-testid=report-rows]').first().innerText()).trim().split('\n');
  assert.ok(lines.length > 1 && /base\s+%change\s+head\s+metric/.test(lines[0]), 'the open report shows its rows as the mail prints them');
  assert.equal(await page.getByTestId('report-search').isVisible(), true, 'the search box is visible');
  assert.equal(new URL(page.url()).search, '', 'the first screen needs no query');
  // the app drew it (the static first screen gone) from the document the first screen carries:
  // no report's page and no document fetched
  await page.waitForFunction(() => !document.getElementById('static'), null, { timeout: 30_000 });
  const fetched = site.srv.requests.slice(from);
  assert.ok(fetched.some((r) => r.includes('/data/index.json 200')), fetched.join('\n'));
  assert.deepEqual(fetched.filter((r) => / \/(m|data\/d)\//.test(r)), [], fetched.join('\n'));
  assert.deepEqual(errors, []);
});

test('search: a Message-ID, a commit prefix or subject words open the report; ?report= is its permalink', async () => {
  const { page, errors } = site.ctx;
  await page.goto(site.srv.url);
  await page.getByTestId('report-list').waitFor();
  const search = page.getByTestId('report-search');
  const withMid = index.root.newest.filter((r) => r.message_id && r.commit && r.subject);
  const byMid = withMid[3];
  const byCommit = withMid[5];
  const byWords = withMid[7];
  const cases = [
    [`<${byMid.message_id}>`, byMid],
    [byCommit.commit.slice(0, 9), byCommit],
    [byWords.subject.split(/\s+/).filter((w) => /^[a-z_.-]{5,}$/i.test(w)).slice(0, 2).join(' '), byWords],
  ];
  for (const [typed, want] of cases) {
    await search.fill(typed);
    await page.getByTestId('search-option').first().waitFor();
    await search.press('Enter');
    await page.waitForFunction((k) => new URL(location.href).searchParams.get('report') === k, keyOf(want));
    await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId === id, want.id);
    assert.equal(norm(await page.getByTestId('report-subject').innerText()), norm(want.subject), `typed ${typed}`);
  }
  // The permalink reloads to the same report.
  await page.reload();
  await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId === id, byWords.id);
  // An address by report id (older links) opens the report too, though its page is named by its Message-ID.
  const old = withMid.filter((r) => r.id !== index.root.newest[0].id).at(-1);
  await page.goto(`${site.srv.url}?report=${old.id}`);
  await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId === id, old.id);
  assert.equal(norm(await page.getByTestId('report-subject').innerText()), norm(old.subject));
  assert.equal(await page.getByTestId('error').count(), 0);
  // `/` focuses the search box from anywhere.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'report-search');
  assert.deepEqual(errors, []);
});

test('arrow keys move the open report through the list, keeping the focus there', async () => {
  const { page, errors } = site.ctx;
  await page.goto(site.srv.url);
  await page.getByTestId('report-list').waitFor();
  const keys = index.root.newest.map(keyOf);
  await page.locator('[data-testid=report-item] a').first().focus();
  for (const [key, at] of [['ArrowDown', 1], ['ArrowDown', 2], ['ArrowUp', 1]]) {
    await page.keyboard.press(key);
    await page.waitForFunction((k) => new URL(location.href).searchParams.get('report') === k, keys[at]);
    await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId === id, index.root.newest[at].id);
    await page.waitForFunction((k) => document.activeElement?.dataset?.value === k, keys[at]);
  }
  assert.deepEqual(errors, []);
});

test("a report page says everything the mail said: the seed fio report's latency shift and the maintainer's reply", async () => {
  const { page, errors } = site.ctx;
  const seed = index.root.newest.find((r) => r.metric === 'fio.latency_2ms%' && r.commit?.startsWith('b027d4c97b'));
  assert.ok(seed, 'the seed report is in the bundled data');
  await page.goto(`${site.srv.url}?report=${encodeURIComponent(keyOf(seed))}`);
  await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId === id, seed.id);
  // a row as the mail prints it: base, %change, head, metric (the line ending with the metric)
  const row = async (m) => {
    const text = await page.locator('[data-testid=report-rows]').first().innerText();
    return text.split('\n').find((l) => l.trimEnd().endsWith(`  ${m}`))?.replace(/\s+/g, ' ') ?? '';
  };
  // The 2 ms bin grew by 7.1 points and the 4 ms bin shrank by 7.3: the rows as the mail printed them.
  assert.match(await row('fio.latency_2ms%'), /46\.56.*\+7\.1.*53\.61/);
  assert.match(await row('fio.latency_4ms%'), /25\.2.*-7\.3.*17\.86/);
  const notes = page.getByTestId('report-notes');
  await notes.waitFor();
  assert.match(await notes.innerText(), /This is not a regression/);
  assert.match(await page.getByTestId('report-base').innerText(), /8925a3dc47.*xfs_buf_incore/);
  assert.match(await page.getByTestId('report-commit').innerText(), /b027d4c97b/);
  assert.deepEqual(errors, []);
});

test('view=trend: the newest headline chart, with its commit link', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?view=trend`);
  await waitDrawn(page);
  const h = firstHeadline(index);
  assert.equal(query(page).get('metric'), h.metric, 'the URL names the shown metric');
  assert.equal(query(page).get('testcase'), h.testcase);
  const st = await chartState(page);
  assert.ok(st.drawn >= 1 && st.points >= 2, JSON.stringify(st));
  assert.ok((await canvasInkPixels(page, CANVAS)) > 3000, 'the canvas has a chart on it');
  const link = page.getByTestId('commit-link');
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), index.commits[h.head].url);
  assert.equal(await link.getAttribute('target'), '_blank');
  assert.match(await page.getByTestId('status').innerText(), new RegExp(`${index.totals.reports} reports`));
  assert.match(await page.getByTestId('legend').innerText(), /series/);
  assert.deepEqual(errors, []);
});

// The blogbench job on xfs that report "19957a1816 vs 4df0f7f145" measured.
const blogHeadline = index.headlines.find(
  (h) =>
    h.testcase === 'blogbench' &&
    h.metric === 'blogbench.write_score' &&
    h.job != null &&
    index.commits[h.head].id.startsWith('19957a1816'),
);
const blogJob = index.jobs[blogHeadline.job];

test('filters and metric finder change the URL and the chart; reloading restores the view', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?view=trend`);
  await waitDrawn(page);
  const before = await canvasData(page);
  const first = await chartState(page);

  // testcase: blogbench only.
  await page.locator('[data-testid=facet-testcase] input[data-value="blogbench"]').check();
  const start = firstHeadline(index);
  if (start.testcase !== 'blogbench') {
    await page.locator(`[data-testid=facet-testcase] input[data-value="${start.testcase}"]`).uncheck();
  }
  await page.waitForFunction(() => new URL(location.href).searchParams.get('testcase') === 'blogbench');
  // Counts follow the other facets: the fs counts now count blogbench jobs only.
  const blogJobs = index.jobs.filter((j) => j.testcase === 'blogbench');
  // (blogbench's catalog loads on the click: wait for the counts it brings)
  const xfsWant = String(blogJobs.filter((j) => j.params.fs === 'xfs').length);
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=facet-fs] label:has(input[data-value="xfs"]) .count')?.innerText === n,
    xfsWant,
  );

  await page.locator('[data-testid=facet-fs] input[data-value="xfs"]').check();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('p.fs') === 'xfs');
  const disk = blogJob.params.disk;
  await page.locator(`[data-testid=facet-disk] input[data-value="${disk}"]`).check();
  await page.waitForFunction((d) => new URL(location.href).searchParams.get('p.disk') === d, disk);

  // Metric finder: type, move with the keys, Enter.
  const search = page.getByTestId('metric-search');
  await search.fill('write_sc');
  await page.locator('[data-testid=metric-option][data-metric="blogbench.write_score"]').waitFor();
  const firstOption = await page.getByTestId('metric-option').first().getAttribute('data-metric');
  assert.equal(firstOption, 'blogbench.write_score', 'KPI first');
  await search.press('ArrowDown');
  await search.press('Enter');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('metric') === 'blogbench.write_score');
  await waitDrawn(page, 0);
  await page.waitForFunction(
    (prev) => document.querySelector('[data-testid=chart] canvas').toDataURL() !== prev,
    before,
  );
  const st = await chartState(page);

  // What the chart shows matches the shard: every matching job's series, every observation.
  const shard = lastShard(site.srv.requests, 'blogbench.write_score');
  assert.equal(shard.metric, 'blogbench.write_score');
  const matching = new Set(
    index.jobs
      .map((j, i) => [j, i])
      .filter(([j]) => j.testcase === 'blogbench' && j.params.fs === 'xfs' && j.params.disk === disk)
      .map(([, i]) => i),
  );
  const series = shard.series.filter((s) => matching.has(s.job) && s.points.mean.some((m) => m != null));
  assert.equal(st.drawn, series.length);
  assert.equal(st.points, series.reduce((n, s) => n + s.points.mean.filter((m) => m != null).length, 0));
  assert.notDeepEqual(st, first);

  // Reload the permalink: same view, pixel for pixel.
  const url = page.url();
  const image = await canvasData(page);
  await page.reload();
  await waitDrawn(page);
  assert.equal(page.url(), url);
  const again = await chartState(page);
  assert.equal(again.drawn, st.drawn);
  assert.equal(again.points, st.points);
  assert.equal(await canvasData(page), image);
  assert.equal(
    await page.locator('[data-testid=facet-fs] input[data-value="xfs"]').isChecked(),
    true,
    'facet selection restored',
  );
  assert.deepEqual(errors, []);
});

test('hover shows a tooltip, a click opens the commit panel with link and reproduce script; back/forward', async () => {
  const { page, errors } = site.ctx;
  const q = new URLSearchParams({ testcase: 'blogbench', metric: 'blogbench.write_score', jobs: blogJob.id });
  await page.goto(`${site.srv.url}?${q}`);
  await waitDrawn(page);
  assert.equal(await page.getByTestId('commit-panel').count(), 0);
  const { xy } = await chartState(page);
  const points = xy.split(';').map((p) => p.split(',').map(Number));
  assert.ok(points.length >= 2, xy);
  const box = await page.locator(CANVAS).boundingBox();
  // The head commit of the report is the newest point of this job.
  const head = index.commits[blogHeadline.head];
  let clicked = null;
  for (const [x, y] of points) {
    await page.mouse.move(box.x + x, box.y + y);
    const tip = page.getByTestId('tooltip');
    await tip.waitFor({ timeout: 5000 });
    const text = await tip.innerText();
    if (text.includes(head.id.slice(0, 12))) {
      assert.match(text, /11259/);
      assert.match(text, /runs/);
      clicked = [x, y];
      break;
    }
  }
  assert.ok(clicked, 'a point of the head commit was found by hovering');
  const draws = (await chartState(page)).draws;
  await page.mouse.click(box.x + clicked[0], box.y + clicked[1]);
  const panel = page.getByTestId('commit-panel');
  await panel.waitFor();
  assert.equal(query(page).get('commit'), head.id);
  assert.equal(await page.getByTestId('commit-link').getAttribute('href'), head.url);
  assert.match(await page.getByTestId('commit-link').innerText(), new RegExp(head.subject.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  // The script shown is the file the report (else the job) names, byte for byte.
  const report = index.reports.find((r) => r.id === query(page).get('report'));
  const hash = report?.script ?? blogJob.script;
  assert.ok(hash, 'this report has a reproduce script');
  const script = fs.readFileSync(path.join(DIST, 'data', 'r', `${hash}.sh`), 'utf8');
  const pre = page.getByTestId('reproduce-script');
  await pre.waitFor();
  assert.equal(await pre.evaluate((el) => el.textContent), script);
  assert.match(await panel.innerText(), /Reports that measured it/);
  await waitDrawn(page, draws); // the selected commit is highlighted: a redraw

  // Back: the panel goes; forward: it comes back.
  await page.goBack();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('commit'));
  await page.getByTestId('commit-panel').waitFor({ state: 'detached' });
  await page.goForward();
  await page.getByTestId('commit-panel').waitFor();
  assert.equal(query(page).get('commit'), head.id);

  // Download: a file named after the job and commit, holding the script.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-script').click()]);
  assert.match(download.suggestedFilename(), /^reproduce-blogbench-[0-9a-f]{12}\.sh$/);
  assert.equal(fs.readFileSync(await download.path(), 'utf8'), script);

  // From the panel to the compare table of the report's pair.
  await page.getByTestId('compare-from-panel').click();
  await page.getByTestId('compare-table').waitFor();
  assert.equal(await page.getByTestId('compare-base').inputValue(), index.commits[blogHeadline.base].id);
  assert.equal(await page.getByTestId('compare-head').inputValue(), head.id);
  assert.deepEqual(errors, []);
});

test('a value a 2018 mail printed without ± is drawn with the "≤ 2 %" band, and the tooltip says so', async () => {
  const { page, errors } = site.ctx;
  const seed = index.headlines.find((h) => h.metric === 'fio.latency_2ms%' && index.commits[h.head].id.startsWith('b027d4c97b'));
  const job = index.jobs[seed.job];
  const q = new URLSearchParams({ testcase: 'fio-basic', metric: 'fio.latency_100ms%', jobs: job.id });
  await page.goto(`${site.srv.url}?${q}`);
  await waitDrawn(page);
  const { xy } = await chartState(page);
  const points = xy.split(';').map((p) => p.split(',').map(Number));
  const box = await page.locator(CANVAS).boundingBox();
  const texts = [];
  for (const [x, y] of points) {
    await page.mouse.move(box.x + x, box.y + y);
    const tip = page.getByTestId('tooltip');
    await tip.waitFor({ timeout: 5000 });
    texts.push(await tip.innerText());
  }
  // The mail: "8.19  +0.2  8.40  fio.latency_100ms%", no ± on either side.
  assert.ok(texts.some((t) => /8\.19/.test(t) && /± ≤ 2%/.test(t)), texts.join('\n---\n'));
  assert.ok(texts.some((t) => /8\.4/.test(t) && /± ≤ 2%/.test(t)), texts.join('\n---\n'));
  assert.deepEqual(errors, []);
});

test("compare table shows the mail's numbers; sorting, filtering and a row click", async () => {
  const { page, errors } = site.ctx;
  const from = site.srv.requests.length;
  await page.goto(`${site.srv.url}?view=compare&job=${blogJob.id}`);
  const table = page.getByTestId('compare-table');
  await table.waitFor();
  // one report alone measured the job: no file of its own, Compare reads that report's document
  assert.equal(blogJob.shard, undefined);
  const doc = compareFileOf(index, blogJob);
  assert.match(doc, /^m\//, "the report's page, which carries its document");
  const fetched = site.srv.requests.slice(from);
  assert.ok(fetched.some((r) => r.includes(`/${doc} 200`)), fetched.join('\n'));
  assert.ok(!fetched.some((r) => r.includes('/data/j/')), fetched.join('\n'));
  const row = page.locator('[data-testid=compare-row][data-metric="blogbench.write_score"]');
  const cells = await row.locator('td').allInnerTexts();
  assert.deepEqual(cells, ['blogbench.write_score', '10702', '+5.2%', '11259']);
  assert.match(await row.getAttribute('class'), /dir-improvement/);
  // Default pair: the report's base and head.
  assert.equal(await page.getByTestId('compare-base').inputValue(), index.commits[blogHeadline.base].id);
  assert.equal(await page.getByTestId('compare-head').inputValue(), index.commits[blogHeadline.head].id);

  // Default order: largest |change| first.
  const changes = await page.locator('[data-testid=compare-row] td.change').allInnerTexts();
  const mags = changes.filter((c) => c !== '').map((c) => Math.abs(parseFloat(c)));
  for (let i = 1; i < mags.length; i++) assert.ok(mags[i - 1] >= mags[i], `sorted by |change|: ${mags}`);

  await page.getByTestId('sort-name').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('sort') === 'name');
  const names = await page.locator('[data-testid=compare-row]').evaluateAll((rows) => rows.map((r) => r.dataset.metric));
  assert.deepEqual(names, [...names].sort());

  await page.getByTestId('compare-ns').selectOption('vmstat');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('ns') === 'vmstat');
  const vm = await page.locator('[data-testid=compare-row]').evaluateAll((rows) => rows.map((r) => r.dataset.metric));
  assert.ok(vm.length > 0 && vm.every((m) => m.startsWith('vmstat.')), vm.join());
  await page.getByTestId('compare-ns').selectOption('');
  await page.getByTestId('compare-dir').selectOption('improvement');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('dir') === 'improvement');
  const classes = await page.locator('[data-testid=compare-row]').evaluateAll((rows) => rows.map((r) => r.className));
  assert.ok(classes.length > 0 && classes.every((c) => c.includes('dir-improvement')), classes.join());

  // Reload keeps the table's state.
  await page.reload();
  await page.getByTestId('compare-table').waitFor();
  assert.equal(await page.getByTestId('compare-dir').inputValue(), 'improvement');

  // A row opens that metric's trend for this job.
  await page.locator('[data-testid=compare-row][data-metric="blogbench.write_score"]').click();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('view'));
  assert.equal(query(page).get('metric'), 'blogbench.write_score');
  assert.equal(query(page).get('jobs'), blogJob.id);
  await waitDrawn(page);
  assert.equal((await chartState(page)).drawn, 1);
  assert.deepEqual(errors, []);
});

test('legend checkboxes and the commit range pickers narrow the chart and the URL', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?testcase=blogbench&metric=blogbench.write_score`);
  await waitDrawn(page);
  const all = await chartState(page);
  assert.ok(all.drawn >= 2, JSON.stringify(all));
  // Hide the first series.
  const boxes = page.locator('[data-testid=legend] input[type=checkbox]');
  assert.equal(await boxes.count(), all.drawn);
  const hidden = await boxes.first().getAttribute('data-job');
  await boxes.first().uncheck();
  await waitDrawn(page, all.draws);
  assert.equal((await chartState(page)).drawn, all.drawn - 1);
  assert.ok(!query(page).get('jobs').split(',').includes(hidden));
  // Show it again: back to "all", and the parameter leaves the URL.
  await boxes.first().check();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('jobs'));
  // Range: from the second commit with data on.
  const opts = await page.getByTestId('range-from').locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.ok(opts.length >= 3, opts.join());
  const draws = (await chartState(page)).draws;
  await page.getByTestId('range-from').selectOption(opts[2]);
  await waitDrawn(page, draws);
  assert.equal(query(page).get('from'), opts[2]);
  assert.ok((await chartState(page)).points < all.points);
  assert.deepEqual(errors, []);
});

test('the chart follows its container width, and hit-testing works on a HiDPI screen', async () => {
  const { page, browser, errors } = site.ctx;
  await page.goto(`${site.srv.url}?testcase=blogbench&metric=blogbench.write_score`);
  await waitDrawn(page);
  const wide = await page.$eval(CANVAS, (c) => c.width);
  const draws = (await chartState(page)).draws;
  await page.setViewportSize({ width: 900, height: 900 });
  await waitDrawn(page, draws);
  const narrow = await page.$eval(CANVAS, (c) => c.width);
  assert.ok(narrow < wide - 200, `${narrow} < ${wide}`);
  await page.setViewportSize({ width: 1280, height: 900 });

  const hidpi = await browser.newContext({ viewport: { width: 1100, height: 800 }, deviceScaleFactor: 2 });
  try {
    const p2 = await hidpi.newPage();
    const pageErrors = [];
    p2.on('pageerror', (e) => pageErrors.push(String(e)));
    await p2.goto(`${site.srv.url}?testcase=blogbench&metric=blogbench.write_score`);
    await waitDrawn(p2);
    const { w, cw } = await p2.$eval(CANVAS, (c) => ({ w: c.width, cw: c.clientWidth }));
    assert.ok(Math.abs(w - 2 * cw) <= 2, `device pixels: ${w} vs css ${cw}`);
    const [x, y] = (await chartState(p2)).xy.split(';')[0].split(',').map(Number);
    const box = await p2.locator(CANVAS).boundingBox();
    await p2.mouse.move(box.x + x, box.y + y);
    await p2.getByTestId('tooltip').waitFor({ timeout: 5000 });
    await p2.mouse.move(box.x + x + 40, box.y + y + 40);
    await p2.getByTestId('tooltip').waitFor({ state: 'detached' });
    assert.deepEqual(pageErrors, []);
  } finally {
    await hidpi.close();
  }
  assert.deepEqual(errors, []);
});

/** The canvas pixel at CSS (x, y) as [r, g, b]. */
const canvasPixel = (page, x, y) =>
  page.$eval(
    CANVAS,
    (c, [x, y]) => {
      const k = window.devicePixelRatio || 1;
      return [...c.getContext('2d').getImageData(Math.round(x * k), Math.round(y * k), 1, 1).data.slice(0, 3)];
    },
    [x, y],
  );

test('dark mode follows the system, the toggle overrides it and is remembered; the chart follows', async () => {
  const { browser } = site.ctx;
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(`${site.srv.url}?view=trend`);
    await waitDrawn(page);
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    assert.equal(bg, 'rgb(24, 26, 29)', 'a dark system gives the dark page');
    assert.deepEqual(await canvasPixel(page, 2, 2), [24, 26, 29], 'and the dark chart');
    const toggle = page.getByTestId('theme-toggle');
    assert.equal(await toggle.innerText(), 'theme: auto');
    await toggle.click(); // auto → dark
    await toggle.click(); // dark → light
    assert.equal(await toggle.innerText(), 'theme: light');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    await page.waitForFunction(() => getComputedStyle(document.documentElement).backgroundColor === 'rgb(255, 255, 255)');
    await page.waitForFunction(() => {
      const c = document.querySelector('[data-testid=chart] canvas');
      return [...c.getContext('2d').getImageData(2, 2, 1, 1).data.slice(0, 3)].join() === '255,255,255';
    });
    // Remembered across a reload, over the system's preference.
    await page.reload();
    await waitDrawn(page);
    assert.equal(await page.getByTestId('theme-toggle').innerText(), 'theme: light');
    assert.deepEqual(await canvasPixel(page, 2, 2), [255, 255, 255]);
    await page.getByTestId('theme-toggle').click(); // light → auto: the system's dark again
    await page.waitForFunction(() => getComputedStyle(document.documentElement).backgroundColor === 'rgb(24, 26, 29)');
    assert.equal(await page.evaluate(() => localStorage.getItem('lkpx-theme')), null);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('tab switches push history; Copy link is there', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?view=trend`);
  await waitDrawn(page);
  const trendUrl = page.url();
  await page.getByTestId('view-tab-compare').click();
  await page.getByTestId('compare-table').waitFor();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('view') === 'compare');
  await page.goBack();
  await waitDrawn(page);
  assert.equal(page.url(), trendUrl);
  await page.getByTestId('view-tab-reports').click();
  await page.getByTestId('report-list').waitFor();
  // the URL is written after the next frame (Nav::push), not with the view
  await page.waitForFunction(() => new URLSearchParams(location.search).get('view') === 'reports');
  await page.goBack();
  await waitDrawn(page);
  assert.equal(page.url(), trendUrl);
  await site.ctx.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(site.srv.url).origin });
  await page.getByTestId('copy-link').click();
  await page.waitForFunction(() => document.querySelector('.bar .copied')?.textContent === 'link copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), page.url());
  assert.deepEqual(errors, []);
});

test('unknown and garbage URL parameters are dropped with a notice, never a blank page', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?foo=bar&view=pie&metric=%E2%82&p.colour=red&commit=zzzzzzz&%ZZ=1`);
  const notice = page.getByTestId('notice');
  await notice.waitFor();
  const text = await notice.innerText();
  for (const word of ['foo', 'pie', 'colour', 'zzzzzzz']) assert.ok(text.includes(word), `${word} in ${text}`);
  // What is left of the query still shows a view: the reports list.
  await page.getByTestId('report-list').waitFor();
  assert.equal(new URL(page.url()).searchParams.get('foo'), null, 'dropped parameters leave the URL');
  assert.deepEqual(errors, []);
});

test('a build under a sub-path (/x/y/) loads its data relative to the page', async () => {
  const sub = await serve(DIST_SUB, { prefix: '/x/y/' });
  const { browser, page, errors } = await launch();
  try {
    await page.goto(`${sub.url}?view=trend`);
    await waitDrawn(page);
    assert.ok((await canvasInkPixels(page, CANVAS)) > 3000);
    assert.ok(new URL(page.url()).pathname.startsWith('/x/y/'));
    await page.getByTestId('reproduce-script').or(page.locator('.commit-panel .hint')).first().waitFor();
    await page.getByTestId('view-tab-compare').click();
    await page.getByTestId('compare-table').waitFor();
    const bad = sub.requests.filter((r) => !/ 200$/.test(r) && !/ 30\d$/.test(r));
    assert.deepEqual(bad, []);
    assert.ok(sub.requests.some((r) => r.includes('/x/y/data/index.json')));
    // every file under the sub-path: the job's compare file, or the page of its one report
    // (`Job::report`), which carries its document (none when it is the first screen's own report)
    assert.ok(sub.requests.every((r) => r.split(' ')[1].startsWith('/x/y/')), sub.requests.join('\n'));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await sub.close();
  }
});
