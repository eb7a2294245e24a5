// The search index's memory (issue 25 point 4): once a datastore settles, its index gives back
// the room its arrays grew into while it was built (search/postings.ts `tidySteps`), answering
// exactly as before and staying right for the changes that come after; a tidy in steps that
// meets a change gives up rather than swap in stale arrays; the datastores' indexes tidy
// themselves once their changes stop (search/indexes.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import { DatastoreIndexes } from '../../emulator/src/search/indexes.js';
import type { FragmentRow } from '../../emulator/src/store/records.js';

/** A deterministic corpus: words drawn from a vocabulary of 3,000, the first ones far more often (as in text). */
function corpus(documents: number, perDocument: number, seed = 7): { id: string; fragments: FragmentRow[] }[] {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  const word = () => `w${Math.floor(3000 * random() ** 3).toString(36)}x`;
  return Array.from({ length: documents }, (_, d) => ({
    id: `doc${d}`,
    fragments: Array.from({ length: perDocument }, (_, f) => ({
      id: `doc${d}-f${f}`,
      text: Array.from({ length: 60 }, word).join(' '),
      offset: f * 400,
      ...(f % 2 ? { section: [`Title ${word()}`, `Part ${word()}`] } : {}),
    })),
  }));
}

const questions = ['w0x w1x', 'w2ax w10x w3x', 'w5x w7x w9x w11x', 'w1ox', 'w2x w4x w6x w8x w12x w14x', 'title part w3x'];
const answers = (index: FragmentIndex) => questions.map((question) => index.query(question, { topK: 20 }).map((hit) => [hit.fragment.id, hit.score]));

test('a tidied index gives back the room it grew into, answers exactly as before, and stays right through later changes', () => {
  const documents = corpus(300, 4);
  const index = new FragmentIndex();
  for (const { id, fragments } of documents) index.replace(id, fragments);
  const before = { bytes: index.bytes, answers: answers(index) };
  assert.ok(before.answers.every((hits) => hits.length > 0));

  assert.equal(index.tidy(), true);
  assert.ok(index.bytes < 0.8 * before.bytes, `${index.bytes} bytes after, ${before.bytes} before`);
  assert.deepEqual(answers(index), before.answers);
  // Nothing more to give back: a second tidy leaves it as it is.
  const tidied = index.bytes;
  assert.equal(index.tidy(), false);
  assert.equal(index.bytes, tidied);

  // Changes after a tidy: the same answers as an index built with them and never tidied.
  const more = corpus(40, 3, 11).map(({ id, fragments }) => ({ id: `more-${id}`, fragments }));
  const reference = new FragmentIndex();
  for (const { id, fragments } of documents) reference.replace(id, fragments);
  for (const each of [index, reference]) {
    for (const { id, fragments } of more) each.replace(id, fragments);
    for (const { id } of documents.slice(0, 120)) each.remove(id);
    each.replace('doc200', corpus(1, 5, 3)[0]!.fragments);
  }
  assert.equal(index.size, reference.size);
  assert.deepEqual(answers(index), answers(reference));
  // Removed fragments are given back too.
  assert.equal(index.tidy(), true);
  assert.deepEqual(answers(index), answers(reference));
});

test('a tidy in steps that meets a change between its steps gives up, and the index stays right', () => {
  const documents = corpus(400, 4);
  const index = new FragmentIndex();
  const reference = new FragmentIndex();
  for (const each of [index, reference]) for (const { id, fragments } of documents) each.replace(id, fragments);
  const steps = index.tidySteps();
  assert.equal(steps.next().done, false, 'more than one step');
  const late = corpus(5, 2, 5).map(({ id, fragments }) => ({ id: `late-${id}`, fragments }));
  for (const each of [index, reference]) {
    for (const { id, fragments } of late) each.replace(id, fragments);
    each.remove('doc3');
  }
  let step = steps.next();
  while (!step.done) step = steps.next();
  assert.equal(step.value, false);
  assert.deepEqual(answers(index), answers(reference));
  // Tried again once things are quiet, it goes through.
  assert.equal(index.tidy(), true);
  assert.deepEqual(answers(index), answers(reference));
});

test("a datastore's index tidies itself once its changes stop", async () => {
  const indexes = new DatastoreIndexes();
  for (const { id, fragments } of corpus(300, 4)) indexes.set('store', id, fragments);
  const built = indexes.of('store').bytes;
  const before = answers(indexes.of('store'));
  await indexes.tidied();
  assert.ok(indexes.of('store').bytes < 0.8 * built, `${indexes.of('store').bytes} bytes after, ${built} before`);
  assert.deepEqual(answers(indexes.of('store')), before);
});
