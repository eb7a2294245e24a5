// Fragments analysed for the search index on a reader thread (search/fields.ts) must index
// exactly as fragments analysed by the index itself: same hits, same scores, whatever the
// slices they are added in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnalysedFragments, analyseFragments } from '../../emulator/src/search/fields.js';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import type { FragmentRow } from '../../emulator/src/store/records.js';

const sentences = [
  'The widget keeps its colour when the page reloads; set systemPrompt in the agent.',
  'A harbour seal watches the ferry; the HTMLElement upgrade runs once per page.',
  'Rate limits throttle each visitor: 10 requests a minute, then HTTP 429.',
  'Right-to-left languages such as Arabic and Hebrew flip the bubble.',
  'The proxy keeps the API key secret; the browser never sees it.',
  'Customise the theme with CSS custom properties, or restyle it entirely.',
];

function fragments(count: number): FragmentRow[] {
  return Array.from({ length: count }, (_, i) => {
    const text = `${sentences[i % sentences.length]} Route${i % 7} near marker_${i % 13}. ${sentences[(i * 5) % sentences.length]}`;
    const section = i % 3 === 0 ? undefined : i % 3 === 1 ? ['Guide'] : ['Guide', `Part ${i % 4}`, 'Theming and colour'];
    return { id: `f${i}`, text, offset: i * 200, ...(section ? { section } : {}) };
  });
}

const questions = ['How do I change the colour of the widget?', 'what is the systemPrompt', 'rate limit per visitor', 'arabic right to left', 'Is my API key exposed in the browser?', 'html element route3 marker_5', 'theming guide part 2'];

test('fragments analysed beforehand and added in slices index exactly as fragments analysed by the index', () => {
  const rows = fragments(61);
  const here = new FragmentIndex();
  here.replace('ds', rows);
  // Analysed as a reader thread does, and copied as a message between threads copies it.
  const analysed = new AnalysedFragments(structuredClone(analyseFragments(rows)));
  const sliced = new FragmentIndex();
  for (let from = 0; from < rows.length; from += 7) sliced.add('ds', rows.slice(from, from + 7), { analysed, from });
  assert.equal(sliced.size, here.size);
  for (const question of questions) {
    const expected = here.query(question, { topK: 10 }).map((hit) => [hit.fragment.id, hit.score]);
    assert.ok(expected.length > 0, question);
    assert.deepEqual(
      sliced.query(question, { topK: 10 }).map((hit) => [hit.fragment.id, hit.score]),
      expected,
      question,
    );
  }
});

test('a datasource added from analysed slices is removed as one analysed by the index is', () => {
  const rows = fragments(20);
  // The same datastore twice: one datasource kept, one added then removed (by the index's own analysis in `here`, from analysed slices in `sliced`).
  const here = new FragmentIndex();
  const sliced = new FragmentIndex();
  for (const index of [here, sliced]) index.replace('kept', rows.slice(0, 10));
  here.replace('removed', rows.slice(10));
  const analysed = new AnalysedFragments(analyseFragments(rows.slice(10)));
  sliced.add('removed', rows.slice(10, 15), { analysed, from: 0 });
  sliced.add('removed', rows.slice(15), { analysed, from: 5 });
  for (const index of [here, sliced]) index.remove('removed');
  assert.equal(sliced.size, 10);
  for (const question of questions) {
    assert.deepEqual(
      sliced.query(question, { topK: 5 }).map((hit) => [hit.fragment.id, hit.score]),
      here.query(question, { topK: 5 }).map((hit) => [hit.fragment.id, hit.score]),
      question,
    );
  }
});
