// How text becomes search terms (emulator/src/search-terms.ts): a question and
// a document must give the same term for the same word, or the search misses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchTerm, searchTerms } from '../../emulator/src/search-terms.js';

test('a name between symbols is its words: <kagent-chat> is found by "kagent" and by "chat"', () => {
  assert.deepEqual(searchTerms('`<kagent-chat>` and {kagent-chat}'), ['kagent', 'chat']);
});

test('a word and its derived forms give one term, whether Porter turned its final y into i or not', () => {
  assert.equal(searchTerm('deploy'), searchTerm('deployment'));
  assert.equal(searchTerm('deploys'), searchTerm('deployed'));
  assert.equal(searchTerm('key'), searchTerm('keys'));
});
