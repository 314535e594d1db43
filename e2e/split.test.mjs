// The release app is split (scripts/build-app.sh): the first screen fetches only its own module,
// and each other tab's module is fetched the first time that tab opens, at '/' and under a
// sub-path, and once only. The first screen's app shell (every file it fetches outside data/,
// index.html included) is printed, raw and gzip -6, and kept within its budget, 350 KB gzip.
// Expects dist/ and dist-sub/ (see app.test.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, DIST, DIST_SUB } from './harness.mjs';

// Issue 9's budget for the app shell of the first screen (gzip).
const SHELL_BUDGET_GZIP = 350 * 1000;

/** The paths (below the served prefix) of the successful GETs in `requests`. */
function fetched(requests, prefix) {
  return requests
    .filter((r) => / 200$/.test(r))
    .map((r) => r.split(' ')[1].split('?')[0])
    .map((p) => p.slice(prefix.length));
}
const moduleFiles = (paths) => paths.filter((p) => /^app-[0-9a-f]{16}\/.*\.wasm$/.test(p));

for (const [dist, prefix] of [
  [DIST, '/'],
  [DIST_SUB, '/x/y/'],
]) {
  test(`the first screen fetches only its own module; each tab's comes when it opens (${prefix})`, async () => {
    const server = await serve(dist, { prefix });
    const { browser, page, errors } = await launch();
    try {
      await page.goto(server.url);
      await page.waitForSelector('[data-testid=report-list] li');
      await page.waitForSelector('[data-testid=report-page]');
      const first = fetched(server.requests, prefix);
      assert.deepEqual(
        moduleFiles(first).map((p) => p.replace(/^app-\w+\//, '')),
        ['app_bg.wasm'],
        'only the first module: ' + first.join(' '),
      );
      // the shell: what the first screen fetched outside data/ (index.html included), gzip -6
      let raw = 0;
      let gzip = 0;
      for (const p of first.filter((p) => !p.startsWith('data/'))) {
        const buf = fs.readFileSync(path.join(dist, p === '' ? 'index.html' : p));
        raw += buf.length;
        gzip += zlib.gzipSync(buf, { level: 6 }).length;
      }
      console.log(`# first-screen app shell (${prefix}): ${raw} B, gzip -6 ${gzip} B`);
      // the root is fetched once, while the app's module downloads (index.html preloads it), not after
      assert.equal(first.filter((p) => p === 'data/index.json').length, 1, first.join(' '));
      const timing = await page.evaluate(() =>
        performance.getEntriesByType('resource').map((e) => ({ name: e.name, start: e.startTime, end: e.responseEnd })),
      );
      const root = timing.find((e) => e.name.endsWith('/data/index.json'));
      const wasm = timing.find((e) => e.name.endsWith('/app_bg.wasm'));
      assert.ok(root && wasm && root.start < wasm.end, `root requested at ${root?.start} ms, the module in at ${wasm?.end} ms`);

      for (const [tab, module, ready] of [
        ['trend', 'split_trend', '[data-testid=chart] canvas'],
        ['compare', 'split_compare', '[data-testid=compare-table]'],
        ['changes', 'split_changes', '[data-testid=changes-min], [data-testid=recent-changes]'],
      ]) {
        const before = server.requests.length;
        await page.getByTestId(`view-tab-${tab}`).click();
        await page.waitForSelector(ready, { timeout: 20000 });
        const now = moduleFiles(fetched(server.requests.slice(before), prefix));
        assert.ok(
          now.some((p) => p.endsWith(`/${module}.wasm`)),
          `opening ${tab} fetched its module: ${now.join(' ')}`,
        );
        // the first view that loads a catalog also fetches the catalogs' parser and merge, once
        assert.equal(now.filter((p) => p.endsWith('/split_catalogs.wasm')).length, tab === 'trend' ? 1 : 0, now.join(' '));
        assert.equal(await page.$('[data-testid=tab-loading]'), null, `${tab}: the loading notice is gone`);
      }
      // back to the first screen and to Trend again: nothing fetched a second time
      const before = server.requests.length;
      await page.getByTestId('view-tab-reports').click();
      await page.waitForSelector('[data-testid=report-page]');
      await page.getByTestId('view-tab-trend').click();
      await page.waitForSelector('[data-testid=chart] canvas');
      assert.deepEqual(moduleFiles(fetched(server.requests.slice(before), prefix)), []);
      assert.deepEqual(errors, []);
      assert.ok(gzip <= SHELL_BUDGET_GZIP, `app shell ${gzip} B gzip > ${SHELL_BUDGET_GZIP}`);
    } finally {
      await browser.close();
      await server.close();
    }
  });
}

test('a tab whose module fails to load says so, and opening it again retries', async () => {
  const server = await serve(DIST);
  const { browser, page, errors } = await launch();
  try {
    let blocked = true;
    await page.route('**/split_trend.wasm', (route) => (blocked ? route.abort() : route.continue()));
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=report-page]');
    await page.getByTestId('view-tab-trend').click();
    await page.waitForSelector('[data-testid=error]');
    assert.match(await page.textContent('[data-testid=error]'), /could not be loaded/);
    assert.equal(await page.$('[data-testid=chart]'), null);
    blocked = false;
    await page.getByTestId('view-tab-reports').click();
    await page.waitForSelector('[data-testid=report-page]');
    await page.getByTestId('view-tab-trend').click();
    await page.waitForSelector('[data-testid=chart] canvas', { timeout: 20000 });
    assert.equal(await page.$('[data-testid=error]'), null);
    // the blocked fetch is the only error the page saw
    assert.ok(errors.every((e) => /split_trend|Failed to fetch|failed to load|net::ERR_FAILED/i.test(e)), errors.join('\n'));
  } finally {
    await browser.close();
    await server.close();
  }
});

test('the catalogs\' module failing to load is a visible error; a reload recovers', async () => {
  const server = await serve(DIST);
  const { browser, page, errors } = await launch();
  try {
    let blocked = true;
    await page.route('**/split_catalogs.wasm', (route) => (blocked ? route.abort() : route.continue()));
    await page.goto(`${server.url}?testcase=blogbench&metric=blogbench.write_score`);
    await page.waitForSelector('[data-testid=error]');
    assert.match(await page.textContent('[data-testid=error]'), /could not be loaded/);
    assert.match(await page.locator('header.top').innerText(), /LKP Explorer/);
    blocked = false;
    await page.reload();
    await page.waitForSelector('[data-testid=chart] canvas', { timeout: 20000 });
    assert.equal(await page.$('[data-testid=error]'), null);
    assert.ok(errors.every((e) => /split_catalogs|Failed to fetch|failed to load|net::ERR_FAILED/i.test(e)), errors.join('\n'));
  } finally {
    await browser.close();
    await server.close();
  }
});
