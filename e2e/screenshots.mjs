// README's screenshots, taken from the built site (dist/) in headless Chromium:
//   docs/screenshot.png               the first screen (reports list, newest report open)
//   docs/screenshot-distribution.png  the seed fio report's latency bins with the maintainer's reply
//   docs/screenshot-mail.png          a real .eml read in the browser, beside the hosted job
//   docs/screenshot-narrow.png        a 400 px wide screen
// Usage: node e2e/screenshots.mjs   (after trunk build --release)
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, DIST, ROOT, loadIndex } from './harness.mjs';

const out = (f) => path.join(ROOT, 'docs', f);
const index = loadIndex();
const seed = index.reports.find((r) => (r.notes || []).some((n) => n.startsWith('This is not a regression')));
const seedJob = index.jobs[seed.sections[0].job];
const server = await serve(DIST);
const { browser, page } = await launch();
await page.setViewportSize({ width: 1280, height: 820 });
await page.emulateMedia({ colorScheme: 'light' });

await page.goto(server.url);
await page.getByTestId('report-page').waitFor();
await page.screenshot({ path: out('screenshot.png') });

await page.goto(`${server.url}?view=compare&job=${seedJob.id}`);
await page.locator('[data-testid=compare-row][data-metric="fio.latency_2ms%"] [data-testid=dist-link]').click();
await page.getByTestId('dist-chart').waitFor();
await page.screenshot({ path: out('screenshot-distribution.png') });

await page.goto(server.url);
await page.getByTestId('report-page').waitFor();
await page.getByTestId('mail-open').click();
const mail = fs.readFileSync(path.join(ROOT, 'fixtures/corpus/raw/043.eml'));
await page.setInputFiles('[data-testid=mail-file]', { name: '043.eml', mimeType: 'message/rfc822', buffer: mail });
await page.locator('.report.from-mail').waitFor();
await page.screenshot({ path: out('screenshot-mail.png') });

await page.setViewportSize({ width: 400, height: 820 });
await page.goto(server.url);
await page.getByTestId('report-page').waitFor();
await page.screenshot({ path: out('screenshot-narrow.png') });

await browser.close();
await server.close();
for (const f of ['screenshot.png', 'screenshot-distribution.png', 'screenshot-mail.png', 'screenshot-narrow.png']) {
  console.log(f, fs.statSync(out(f)).size, 'bytes');
}
