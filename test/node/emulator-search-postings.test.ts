// The search index's bookkeeping through additions, removals and tidies (search/postings.ts):
// each term's count of live fragments is the number of live fragments holding it, so a
// removal takes out exactly what was added and a tidy gives each term a block its entries fit.
// A value pushed as one of the index's arrays grew was written to the old array and lost; a
// removal then counted down the wrong term, the next tidy gave that term a block too small, and
// the entries appended after it overwrote the next block's header: its chain pointed back into
// itself and the tidy looped for ever (the emulator hung in openapi-fuzz.test.ts in CI).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { AnalysedFragments, analyseFragments } from '../../emulator/src/search/fields.js';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import { Postings } from '../../emulator/src/search/postings.js';

/** Word `i` of a vocabulary of distinct words (each its own index term: no stopword, nothing the stemmer joins). */
const LETTERS = 'bcdfghjklmnpqrstvwxz';
const word = (i: number) => `zq${LETTERS[i % 20]}${LETTERS[Math.floor(i / 20) % 20]}k`;
const VOCABULARY = 60;

type Step = { add: number[] } | { remove: number } | 'tidy';

/** Runs `steps` on fresh postings, checking after each that every word's count and postings are its live fragments'. */
function run(steps: readonly Step[]): void {
  const postings = new Postings<string>();
  const live = new Map<number, Set<number>>();
  for (const [at, step] of steps.entries()) {
    if (step === 'tidy') {
      const tidy = postings.tidySteps();
      while (!tidy.next().done);
    } else if ('add' in step) {
      const analysed = new AnalysedFragments(analyseFragments([{ text: step.add.map(word).join(' ') }]));
      live.set(postings.add('fragment', analysed, 0, new Int32Array(analysed.termCount).fill(-1)), new Set(step.add));
    } else {
      const keys = [...live.keys()];
      if (keys.length === 0) continue;
      const key = keys[step.remove % keys.length]!;
      postings.remove(key);
      live.delete(key);
    }
    for (let w = 0; w < VOCABULARY; w++) {
      const id = postings.termId(word(w));
      if (id === undefined) continue;
      const holding = [...live].filter(([, words]) => words.has(w)).map(([key]) => key);
      const found: number[] = [];
      postings.forEachPosting(id, (key) => found.push(key));
      const where = `after step ${at} (${JSON.stringify(step)}), word ${w}`;
      assert.deepEqual(found, holding, `${where}: its postings`);
      assert.equal(postings.documentFrequency(id), holding.length, `${where}: its count of live fragments`);
    }
  }
}

test("every term's count of live fragments and its postings are the live fragments holding it, through additions, removals and tidies", () => {
  const step = fc.oneof(
    { weight: 4, arbitrary: fc.record({ add: fc.array(fc.nat(VOCABULARY - 1), { minLength: 1, maxLength: 30 }) }) },
    { weight: 3, arbitrary: fc.record({ remove: fc.nat() }) },
    { weight: 2, arbitrary: fc.constant('tidy' as const) },
  );
  fc.assert(fc.property(fc.array(step, { maxLength: 80 }), run), { seed: 25, numRuns: 200 });
});

/**
 * A random sequence, shrunk, on which the code before the fix looped for ever in a query after
 * step 20 and in the tidy of step 21 (the counts were wrong from step 13 on, which fails this test first).
 */
const LOOPED: Step[] = [
  { add: [36, 36, 20] },
  { remove: 0 },
  { add: [48, 4, 20, 8, 8, 56, 28, 24, 16, 36, 40, 0, 52, 16, 48, 20, 28, 24, 8] },
  { add: [16] },
  { remove: 0 },
  { remove: 0 },
  { add: [32, 24, 4, 52, 0, 32, 0, 4, 24, 16, 24] },
  { add: [20] },
  'tidy',
  { add: [4, 4, 48, 0, 16, 32, 4] },
  { remove: 1 },
  { add: [52, 0, 0, 56, 44, 0, 28] },
  { add: [24, 28, 4, 0, 28, 36, 16, 48, 48, 48, 16, 56, 24, 56, 24] },
  { remove: 3 },
  { add: [24, 52, 0, 56, 20, 4, 20, 56, 32, 48, 4, 28, 20, 16, 4, 32, 12] },
  { add: [4, 4, 36, 48, 20, 12, 12, 8, 44, 16, 48, 28, 36, 28, 12, 20, 20, 36, 8, 24, 16, 20, 12, 24, 52, 20, 20] },
  { remove: 4 },
  { add: [52, 52, 20, 0, 48, 44, 36, 44, 52, 56, 44, 44, 48, 40, 52, 56, 36] },
  'tidy',
  { add: [28, 20, 36, 56, 4, 40, 40, 36, 16, 8, 20, 8, 36, 32, 8, 28, 8, 28, 28] },
  { add: [0, 28, 28, 4, 32, 8, 36, 24, 36, 28, 8, 44, 20, 44, 28, 32, 40, 48, 28] },
  'tidy',
];

test('the additions, removals and tidies after which a tidy looped for ever run through, the counts right at each step', () => {
  run(LOOPED);
});

test("a document's words are still found after documents added after a tidy are removed", () => {
  const index = new FragmentIndex();
  index.add('first', [{ id: 'f1', text: Array.from({ length: 20 }, (_, i) => word(i)).join(' '), offset: 0 }]);
  // The tidy writes the arrays again at the size they hold: the next additions make them grow.
  assert.equal(index.tidy(), true);
  for (let k = 0; k < 6; k++) index.add(`other${k}`, [{ id: `o${k}`, text: `${word(100 + k)} ${word(200 + k)}`, offset: 0 }]);
  for (let k = 0; k < 6; k++) index.remove(`other${k}`);
  for (let i = 0; i < 20; i++) assert.deepEqual(index.query(word(i), { topK: 10 }).map((hit) => hit.fragment.id), ['f1'], word(i));
});
