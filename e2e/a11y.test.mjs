// Accessibility in headless Chromium: axe-core (the engine of the Lighthouse and Deque checks) finds
// zero violations on every view — the first screen, search suggestions, a report page with its
// perf-profile tree, the trend with the commit panel open, Compare, Changes (with and without a
// testcase), the latency distribution, the mail panel and a mail read in the browser — in light and in
// dark mode, at 1280 px and on a 400 px wide screen. Expects dist/ (trunk build --release).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useSite, ROOT, loadIndex, chartReady } from './harness.mjs';

const AXE = fs.readFileSync(path.join(ROOT, 'e2e/node_modules/axe-core/axe.min.js'), 'utf8');
const index = loadIndex();
const seedReport = index.reports.findIndex((r) => (r.notes || []).some((n) => n.startsWith('This is not a regression')));
const seedJob = index.jobs[index.reports[seedReport].sections[0].job];
const MAIL = fs.readFileSync(path.join(ROOT, 'fixtures/corpus/raw/028.eml'));

/** The served site and its browser page, for every test of this file. */
const site = useSite();

/** axe's violations on the page as it is now, one line per rule: id, impact, nodes, first targets. */
async function violations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: AXE });
  const v = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((x) => ({ id: x.id, impact: x.impact, n: x.nodes.length, help: x.help, nodes: x.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join(' ')}`) }));
  });
  return v.map((x) => `${x.id} (${x.impact}, ${x.n} nodes): ${x.help}\n    ${x.nodes.join('\n    ')}`);
}

/** The views, each: how to get there from a fresh load (light and dark, wide and narrow). */
const VIEWS = [
  ['first screen: reports list and the newest report', async (page) => {
    await page.goto(site.srv.url);
    await page.getByTestId('report-page').waitFor();
  }],
  ['search suggestions', async (page) => {
    await page.goto(site.srv.url);
    await page.getByTestId('report-page').waitFor();
    await page.keyboard.press('/');
    await page.keyboard.type('btrfs');
    await page.locator('.options.open li').first().waitFor();
    // the index's answer in (the next view's navigation would cut its fetches off)
    await page.waitForFunction(() => document.getElementById('report-search-options')?.dataset.query === 'btrfs');
  }],
  ['the seed fio report (notes, tables, profile)', async (page) => {
    const r = index.reports[seedReport];
    await page.goto(`${site.srv.url}?report=${encodeURIComponent(r.message_id ?? r.id)}`);
    await page.getByTestId('report-page').waitFor();
  }],
  ['a report with a perf-profile call tree', async (page) => {
    const r = index.reports.find((r) => /4ae2edf12d/.test(r.subject ?? ''));
    await page.goto(`${site.srv.url}?report=${encodeURIComponent(r.message_id ?? r.id)}`);
    await page.getByTestId('report-page').waitFor();
  }],
  ['trend with the commit panel', async (page) => {
    await page.goto(`${site.srv.url}?testcase=blogbench&metric=blogbench.write_score`);
    await page.waitForFunction(chartReady);
    const box = await page.locator('[data-testid=chart] canvas').boundingBox();
    const xy = await page.$eval('[data-testid=chart]', (el) => el.dataset.xy);
    const [x, y] = xy.split(';').at(-1).split(',').map(Number);
    await page.mouse.click(box.x + x, box.y + y);
    await page.getByTestId('commit-panel').waitFor();
  }],
  ['compare', async (page) => {
    await page.goto(`${site.srv.url}?view=compare&job=${seedJob.id}`);
    await page.getByTestId('compare-table').waitFor();
  }],
  ['changes, no testcase', async (page) => {
    await page.goto(`${site.srv.url}?view=changes`);
    await page.locator('main.content table').first().waitFor();
  }],
  ['changes of a testcase', async (page) => {
    await page.goto(`${site.srv.url}?view=changes&testcase=fio-basic`);
    await page.locator('[data-testid=changes-csv]:not([disabled])').waitFor();
  }],
  ['latency distribution', async (page) => {
    await page.goto(`${site.srv.url}?view=compare&job=${seedJob.id}`);
    await page.locator('[data-testid=compare-row][data-metric="fio.latency_2ms%"] [data-testid=dist-link]').click();
    await page.getByTestId('dist-chart').waitFor();
  }],
  ['the filter drawer open (narrow screens; the panel as it is on wide ones)', async (page) => {
    await page.goto(site.srv.url);
    await page.getByTestId('report-page').waitFor();
    const toggle = page.getByTestId('filters-toggle');
    if (await toggle.isVisible()) {
      await toggle.click();
      await page.locator('aside.filters').waitFor({ state: 'visible' });
    }
  }],
  ['the mail panel, then a mail read in the browser', async (page) => {
    await page.goto(site.srv.url);
    await page.getByTestId('report-page').waitFor();
    await page.getByTestId('mail-open').click();
    await page.getByTestId('mail-panel').waitFor();
    const open = await violations(page);
    await page.setInputFiles('[data-testid=mail-file]', { name: '028.eml', mimeType: 'message/rfc822', buffer: MAIL });
    await page.locator('.report.from-mail').waitFor();
    return open.map((v) => `(the open panel) ${v}`);
  }],
];

for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['light', 400]]) {
  test(`axe-core: zero violations on every view (${scheme}, ${width} px)`, async () => {
    const { page, errors } = site.ctx;
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    const found = [];
    for (const [name, go] of VIEWS) {
      const mid = (await go(page)) || [];
      const v = [...mid, ...(await violations(page))];
      if (v.length) found.push(`${name}:\n  ${v.join('\n  ')}`);
    }
    assert.deepEqual(found, [], found.join('\n'));
    assert.deepEqual(errors, []);
  });
}
