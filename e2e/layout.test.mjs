// The page fits its window: in every tab (Reports, Trend, Compare, Changes with and without a
// testcase), at 1400 px and at 400 px, nothing sticks out past the right edge — long cells wrap, or
// are cut with their whole text in a tooltip — no box scrolls sideways (but a script's `pre`), and
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
  // the compare of nothing opens the newest headline's commit too: its panel's module must be in
  // before the next page, or its fetch is cut off (a failed request)
  ['compare', '?view=compare', async (page) => {
    await page.getByTestId('compare-table').waitFor();
    await page.getByTestId('commit-panel').waitFor();
    // the panel shows before its module is in (a loading notice): wait until nothing is on its way
    await page.waitForLoadState('networkidle');
  }],
  ['changes, no testcase', '?view=changes', (page) => page.getByTestId('recent-changes').waitFor()],
  ['changes of a testcase', '?view=changes&testcase=fio-basic', (page) => page.locator('[data-testid=changes-csv]:not([disabled])').waitFor()],
];

/** Visible elements whose right edge is past the window's (a box that scrolls sideways by itself
 *  is no excuse: a table cut at the edge of its box is what the reader saw), and boxes that scroll
 *  sideways; only a script's `pre` keeps its long lines and may scroll. */
const sticking = (page) =>
  page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const name = (el) => {
      const id = el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : '';
      return `${el.tagName.toLowerCase()}${id}.${[...el.classList].join('.')}`;
    };
    const inPre = (el) => !!el.closest('pre');
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || inPre(el)) continue;
      if (r.right > w + 1) out.push(`${name(el)} right=${Math.round(r.right)}`);
      const o = getComputedStyle(el).overflowX;
      if ((o === 'auto' || o === 'scroll') && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'PRE') {
        out.push(`${name(el)} scrolls sideways: ${el.scrollWidth} > ${el.clientWidth}`);
      }
    }
    return { w, scroll: document.documentElement.scrollWidth, out };
  });

/** Follows `page`'s requests: `quiet()` waits until none has been on its way for 300 ms (a module
 *  a view fetches after its first paint — the commit panel's — must be in before the next page, or
 *  its fetch is cut off: a failed request); `stop()` ends the following. */
function inFlight(page) {
  const pending = new Set();
  const add = (r) => pending.add(r);
  const done = (r) => pending.delete(r);
  page.on('request', add);
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    async quiet() {
      for (let still = 0; still < 3; ) {
        await page.waitForTimeout(100);
        still = pending.size ? 0 : still + 1;
      }
    },
    stop() {
      page.off('request', add);
      page.off('requestfinished', done);
      page.off('requestfailed', done);
    },
  };
}

for (const width of [1400, 400]) {
  test(`${width} px: every tab fits the window`, async () => {
    const { page, errors } = site.ctx;
    const requests = inFlight(page);
    await page.setViewportSize({ width, height: 900 });
    try {
      for (const [name, query, ready] of TABS) {
        await page.goto(`${site.srv.url}${query}`);
        await ready(page);
        await requests.quiet();
        const { w, scroll, out } = await sticking(page);
        assert.ok(scroll <= w, `${name} at ${width} px: the page scrolls sideways (${scroll} > ${w})`);
        assert.deepEqual(out.slice(0, 12), [], `${name} at ${width} px: ${out.length} elements past the right edge`);
      }
    } finally {
      requests.stop();
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
