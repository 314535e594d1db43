// The page fits its window: in every tab (Reports, Trend, Compare, Changes with and without a
// testcase), at 1400 px and at 400 px, nothing sticks out past the right edge — long cells wrap, or
// are cut with their whole text in a tooltip, or sit in a box that scrolls sideways by itself — and
// the page never scrolls sideways. The filters' count reads sensibly with no testcase chosen.
// Expects dist/ (trunk build --release).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSite, chartReady, loadIndex } from './harness.mjs';

/** The served site and its browser page, for every test of this file. */
const site = useSite();

const TABS = [
  ['reports', '', (page) => page.getByTestId('report-page').waitFor()],
  ['trend', '?view=trend', (page) => page.waitForFunction(chartReady)],
  ['compare', '?view=compare', (page) => page.getByTestId('compare-table').waitFor()],
  ['changes, no testcase', '?view=changes', (page) => page.getByTestId('recent-changes').waitFor()],
  ['changes of a testcase', '?view=changes&testcase=fio-basic', (page) => page.locator('[data-testid=changes-csv]:not([disabled])').waitFor()],
];

/** Visible elements whose right edge is past the window's, unless a box that scrolls or clips
 *  sideways (and itself fits) holds them. */
const sticking = (page) =>
  page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const held = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if ((o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') && a.getBoundingClientRect().right <= w + 1) return true;
      }
      return false;
    };
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.right <= w + 1 || held(el)) continue;
      const id = el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : '';
      out.push(`${el.tagName.toLowerCase()}${id}.${[...el.classList].join('.')} right=${Math.round(r.right)}`);
    }
    return { w, scroll: document.documentElement.scrollWidth, out };
  });

for (const width of [1400, 400]) {
  test(`${width} px: every tab fits the window`, async () => {
    const { page, errors } = site.ctx;
    await page.setViewportSize({ width, height: 900 });
    for (const [name, query, ready] of TABS) {
      await page.goto(`${site.srv.url}${query}`);
      await ready(page);
      const { w, scroll, out } = await sticking(page);
      assert.ok(scroll <= w, `${name} at ${width} px: the page scrolls sideways (${scroll} > ${w})`);
      assert.deepEqual(out.slice(0, 12), [], `${name} at ${width} px: ${out.length} elements past the right edge`);
    }
    assert.deepEqual(errors, []);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
}

test('the filters count the whole dataset when no testcase is chosen, the matching jobs when one is', async () => {
  const { page, errors } = site.ctx;
  await page.goto(`${site.srv.url}?view=changes`);
  await page.getByTestId('recent-changes').waitFor();
  const { root } = loadIndex();
  assert.equal(
    (await page.getByTestId('facets-matching').textContent()).trim(),
    `${root.totals.jobs} jobs in ${root.testcases.length} testcases`,
  );
  await page.goto(`${site.srv.url}?view=changes&testcase=fio-basic`);
  const jobs = root.testcases.find((t) => t.name === 'fio-basic').jobs;
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=facets-matching]')?.textContent.trim() === `${n} of ${n} jobs`,
    jobs,
  );
  assert.deepEqual(errors, []);
});
