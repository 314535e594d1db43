// Search as kernel developers search lore, on the fixtures plus the real public-inbox epoch of
// fixtures/archives, imported by the release lkpx: for every report whose mail names its commit's title
// and is addressed to its author, the whole title, the author's address, the author's name and the rarest
// word of the title each find it; the published index answers (no page of the full list is fetched);
// bad input gives a hint, never an error or a frozen tab.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, archiveSite, readDoc } from './harness.mjs';

let site;
let srv;
let root;
let docs;

before(async () => {
  let www;
  let all;
  ({ site, www, root, all } = archiveSite('search'));
  docs = all.map((r) => ({ summary: r, doc: readDoc(r, www) }));
  srv = await serve(www);
});

after(async () => {
  await srv?.close();
  fs.rmSync(site, { recursive: true, force: true });
});

const norm = (s) => s.replace(/\s+/g, ' ').trim();
const words = (s) => (s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 2);

/** The reports whose head commit has a title and whose first recipient is a person: who wrote that commit. */
function authored() {
  const out = [];
  for (const { summary, doc } of docs) {
    const title = doc.commits?.[0]?.subject;
    const to = doc.to?.[0] ?? '';
    const m = to.match(/^"?([^"<]+?)"?\s*<([^>]+@[^>]+)>$/);
    if (title && m && !/robot|lkp/i.test(to)) out.push({ summary, title, name: m[1].trim(), address: m[2] });
  }
  return out;
}

/** Wait until the suggestions shown are the index's answer to `q` (`data-query` on the list). */
async function settled(page, q) {
  await page.waitForFunction((q) => document.getElementById('report-search-options')?.dataset.query === q, q, { timeout: 15_000 });
}

/** Type `q` into a fresh page's search box; the suggestions' texts once they settle, and the data files fetched. */
async function suggest(page, q) {
  const before = srv.requests.length;
  const box = page.getByTestId('report-search');
  await box.fill(q);
  await settled(page, q);
  const texts = await page.getByTestId('search-option').allInnerTexts();
  const files = srv.requests.slice(before).map((r) => r.split(' ')[1]).filter((u) => u.includes('/data/'));
  return { texts, files };
}

test('a commit title, its author address, the author name and a word of the title each find the report', async () => {
  const cases = authored();
  assert.ok(cases.length >= 5, `${cases.length} reports addressed to their commit's author`);
  const df = new Map();
  for (const { doc } of docs) for (const w of new Set(docs.length && [doc.subject ?? '', ...(doc.commits ?? []).map((c) => c.subject ?? '')].flatMap(words))) df.set(w, (df.get(w) ?? 0) + 1);
  const { browser, page, errors } = await launch();
  try {
    await page.goto(srv.url);
    await page.getByTestId('report-list').waitFor();
    for (const c of cases) {
      const rare = words(c.title).filter((w) => !/^\d+$/.test(w)).sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0) || b.length - a.length)[0];
      for (const q of [c.title, c.address, c.name, rare]) {
        const { texts, files } = await suggest(page, q);
        assert.ok(texts.some((t) => norm(t).includes(norm(c.summary.subject))), `"${q}" finds ${c.summary.message_id}: ${JSON.stringify(texts)}`);
        assert.ok(!files.some((f) => root.pages.some((p) => f.endsWith(p))), `"${q}" fetched no page of the full list: ${files}`);
      }
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('the index answers a query from its shards and a few summaries, and Enter opens the report', async () => {
  const c = authored()[0];
  const { browser, page, errors } = await launch();
  try {
    await page.goto(srv.url);
    await page.getByTestId('report-list').waitFor();
    const { files } = await suggest(page, c.address);
    assert.ok(files.every((f) => f.includes('/data/q/')), `only the index's files: ${files}`);
    // the index's own file (at the first search), the term's shard in each of the two segments (the
    // newest week's reports and the rest), the summaries of the few reports found
    const shards = files.filter((f) => /\/t\d+\.json\.gz$/.test(f));
    assert.ok(shards.length >= 1 && shards.length <= 2, `one shard per segment: ${files}`);
    assert.ok(files.length <= 6, `the index, its shards and the summaries of a few reports: ${files}`);
    await page.getByTestId('report-search').press('Enter');
    await page.waitForFunction((id) => document.querySelector('[data-testid=report-page]')?.dataset.reportId === id, c.summary.id);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('bad input: an unknown prefix, an unbalanced quote, a 10,000-character paste, a regex each give a hint or words', async () => {
  const { browser, page, errors } = await launch();
  try {
    await page.goto(srv.url);
    await page.getByTestId('report-list').waitFor();
    const hint = page.getByTestId('search-hint');
    for (const [q, said] of [
      ['zz:fsmark', /zz: is no prefix/],
      ['"unbalanced fsmark', /unbalanced quote/],
      ['fsmark '.repeat(1500), /first 200 characters/],
      ['d:2024-13', /no date range/],
    ]) {
      await page.getByTestId('report-search').fill(q);
      await settled(page, q);
      assert.match((await hint.allInnerTexts()).join(' '), said, q.slice(0, 40));
    }
    const { texts } = await suggest(page, '^(fsmark)[0-9]*.*$');
    assert.ok(texts.length > 0, 'a regex-looking string is searched as its words');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('the bar says what a prefix asks, and a found report shows its headline change coloured by its direction', async () => {
  const c = authored()[0];
  const { browser, page, errors } = await launch();
  try {
    await page.goto(srv.url);
    await page.getByTestId('report-list').waitFor();
    const q = `a:${c.address}`;
    await page.getByTestId('report-search').fill(q);
    await settled(page, q);
    assert.match(await page.getByTestId('search-meaning').innerText(), /^a: an address or a name/);
    const sub = page.getByTestId('search-option').first().locator('.sub');
    const word = c.summary.word;
    if (word === 'regression' || word === 'improvement') assert.equal(await sub.getAttribute('class'), `sub ${word}`);
    assert.ok((await sub.innerText()).includes(c.summary.metric ?? ''), await sub.innerText());
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
