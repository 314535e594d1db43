// People's habits in headless Chromium: on a 400 px wide screen the reports and the open report come
// first and the filters wait in a drawer (opened from the bar, closed by Esc or its button, the focus
// going back); a keyboard-only visit — `/` to search, arrows and Enter to open, Tab through controls —
// always shows where the focus is. Expects dist/ (trunk build --release).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSite, chartReady } from './harness.mjs';

/** The served site and its browser page, for every test of this file. */
const site = useSite();

const focused = (page) => page.evaluate(() => document.activeElement?.dataset.testid ?? document.activeElement?.tagName);
const focusRing = (page) =>
  page.evaluate(() => {
    const s = getComputedStyle(document.activeElement);
    return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
  });

test('400 px: the report list and the open report first, the filters in a drawer', async () => {
  const { page, errors } = site.ctx;
  await page.setViewportSize({ width: 400, height: 800 });
  await page.goto(site.srv.url);
  await page.getByTestId('report-page').waitFor();
  assert.equal(await page.locator('aside.filters').isVisible(), false, 'the filters wait in the drawer');
  const list = await page.getByTestId('report-list').boundingBox();
  assert.ok(list.y < 400 && list.x >= 0 && list.x + list.width <= 400 + 1, JSON.stringify(list));
  const widest = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(widest <= 400, `no sideways scrolling: the page is ${widest} px wide`);
  // the report is below the list, as wide as the screen
  const rep = await page.getByTestId('report-page').boundingBox();
  assert.ok(rep.y > list.y && rep.width <= 400, JSON.stringify(rep));

  await page.getByTestId('filters-toggle').click();
  await page.locator('aside.filters').waitFor({ state: 'visible' });
  assert.equal(await page.getByTestId('filters-toggle').getAttribute('aria-expanded'), 'true');
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'filters-close', null, { timeout: 2000 });
  // a filter chosen in the drawer narrows the list and is counted on the button
  const before = await page.getByTestId('reports-count').textContent();
  await page.locator('[data-testid=facet-testcase] input').first().check();
  await page.waitForFunction((b) => document.querySelector('[data-testid=reports-count]')?.textContent !== b, before);
  assert.match(await page.getByTestId('filters-toggle').textContent(), /^Filters \(1\)$/);
  assert.equal(await page.locator('aside.filters').isVisible(), true, 'the drawer stays open while choosing');
  await page.keyboard.press('Escape');
  await page.locator('aside.filters').waitFor({ state: 'hidden' });
  // the focus returns after the next frame
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'filters-toggle', null, { timeout: 2000 });
  assert.equal(await page.getByTestId('filters-toggle').getAttribute('aria-expanded'), 'false');
  // and its Close button closes it too
  await page.getByTestId('filters-toggle').click();
  await page.getByTestId('filters-close').click();
  await page.locator('aside.filters').waitFor({ state: 'hidden' });
  assert.deepEqual(errors, []);
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('keyboard only: / searches, arrows and Enter open, Tab shows the focus, Esc closes the commit panel', async () => {
  const { page, errors } = site.ctx;
  await page.goto(site.srv.url);
  await page.getByTestId('report-page').waitFor();
  const first = await page.getByTestId('report-page').getAttribute('data-report-id');
  await page.keyboard.press('/');
  assert.equal(await focused(page), 'report-search');
  assert.ok(await focusRing(page), 'the search box shows its focus');
  // a commit prefix: its report is the first suggestion; arrows move, Enter opens the highlighted one
  await page.keyboard.type('4ae2edf12d');
  await page.locator('.options.open li').first().waitFor();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.locator('.options.open li[aria-selected=true]').count(), 1);
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId !== id, first);
  assert.match(await page.getByTestId('report-subject').textContent(), /4ae2edf12d: fio\.write_iops/);
  // Tab moves through the controls, each showing a focus ring
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('Tab');
    assert.ok(await focusRing(page), `Tab ${i + 1}: ${await focused(page)} shows no focus`);
  }
  // Esc closes the commit panel of a trend point
  await page.goto(`${site.srv.url}?testcase=blogbench&metric=blogbench.write_score`);
  await page.waitForFunction(chartReady);
  const box = await page.locator('[data-testid=chart] canvas').boundingBox();
  const [x, y] = (await page.$eval('[data-testid=chart]', (el) => el.dataset.xy)).split(';')[0].split(',').map(Number);
  await page.mouse.click(box.x + x, box.y + y);
  await page.getByTestId('commit-panel').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('commit-panel').waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
});
