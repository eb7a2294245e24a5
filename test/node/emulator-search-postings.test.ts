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
const VOCABULARY = 40;

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

test("a document's words are still found after documents added after a tidy are removed", () => {
  const index = new FragmentIndex();
  index.add('first', [{ id: 'f1', text: Array.from({ length: 20 }, (_, i) => word(i)).join(' '), offset: 0 }]);
  // The tidy writes the arrays again at the size they hold: the next additions make them grow.
  assert.equal(index.tidy(), true);
  for (let k = 0; k < 6; k++) index.add(`other${k}`, [{ id: `o${k}`, text: `${word(100 + k)} ${word(200 + k)}`, offset: 0 }]);
  for (let k = 0; k < 6; k++) index.remove(`other${k}`);
  for (let i = 0; i < 20; i++) assert.deepEqual(index.query(word(i), { topK: 10 }).map((hit) => hit.fragment.id), ['f1'], word(i));
});

