// How text becomes search terms (emulator/src/search/terms.ts): a question and
// a document must give the same term for the same word, or the search misses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { indexedText, questionConcepts, searchTerm, searchTerms } from '../../emulator/src/search/terms.js';

test('a name between symbols is its words: <kagent-chat> is found by "kagent" and by "chat"', () => {
  assert.deepEqual(searchTerms('`<kagent-chat>` and {kagent-chat}'), ['kagent', 'chat']);
});

test('a word and its derived forms give one term, whether Porter turned its final y into i or not', () => {
  assert.equal(searchTerm('deploy'), searchTerm('deployment'));
  assert.equal(searchTerm('deploys'), searchTerm('deployed'));
  assert.equal(searchTerm('key'), searchTerm('keys'));
});

test('a table row is indexed without the column names written before each cell, the header line keeping them once', () => {
  const table = ['Platform | Entry', 'Platform: Node (any host); Entry: `npx kagent-proxy`', 'Platform: Vercel; Entry: `kagent-chat/proxy/vercel`'].join('\n');
  assert.equal(indexedText(table), ['Platform | Entry', 'Node (any host); `npx kagent-proxy`', 'Vercel; `kagent-chat/proxy/vercel`'].join('\n'));
  // A fragment that starts inside the table keeps the names of its first row; prose with one colon is left as it is.
  assert.equal(indexedText('Flag: --a; Default: 1\nFlag: --b; Default: 2\nNote: a sentence.'), 'Flag: --a; Default: 1\n--b; 2\nNote: a sentence.');
});

test('"add", like "put" and "set", is an everyday verb of how-to questions: it counts for a third, the thing to add for all its weight', () => {
  const concepts = questionConcepts('How do I add the compost to my beds?');
  assert.equal(concepts.find((concept) => concept.words === 'add')?.isLight, true);
  assert.equal(concepts.find((concept) => concept.words === 'compost')?.isLight, false);
});

test('a version number is also the word "version": a name and a dotted number, three dotted parts, v and a number; not a measure, a share or an address', () => {
  for (const text of ['Needs Python 3.11 or later.', 'Pin it at 1.4.2 for now.', 'Since v2.0 it streams.', 'Tested in Safari 17.5.']) {
    assert.ok(searchTerms(text).includes('version'), text);
  }
  // A name's version is also read as that name's ("Python 3.11": pythonversion), which "Python version" and "version of Python" search.
  assert.ok(searchTerms('Needs Python 3.11.').includes(searchTerm('pythonversion')!));
  // A whole number after a name is that name's version too, though not the word "version" ("Step 2" would be one).
  assert.ok(searchTerms('Runs on Python 3.').includes(searchTerm('pythonversion')!));
  assert.ok(!searchTerms('Runs on Python 3.').includes('version'));
  for (const question of ['What Python version?', 'Which version of Python?', 'Which Vue.js version?', 'Does it run on Python 3?']) {
    const wanted = searchTerm(question.includes('Vue') ? 'vueversion' : 'pythonversion')!;
    assert.ok(questionConcepts(question).some((concept) => concept.terms.includes(wanted)), question);
  }
  for (const text of ['The file weighs Photo 48.6 KB.', 'AUC 0.80 at best.', 'Listen on 127.0.0.1 only.', 'Step 2 of the recipe.']) {
    assert.ok(!searchTerms(text).includes('version'), text);
  }
});

test('a system error code a question quotes (ENOENT, EADDRINUSE) is what the asker saw, not a name: an acronym still is', () => {
  const concepts = questionConcepts('The planner fails with ENOENT on GDPR exports, where are the files?');
  assert.equal(concepts.find((concept) => concept.words === 'ENOENT')?.isName, false);
  assert.equal(concepts.find((concept) => concept.words === 'GDPR')?.isName, true);
});

test('a rate (a unit per second) is also the word "speed"; a fraction or a path is not', () => {
  for (const text of ['Pump | litres/s', 'It reads 6.3 MB/s.', 'Ten requests per second.']) assert.ok(searchTerms(text).includes(searchTerm('speed')!), text);
  for (const text of ['Read and/or write.', 'See docs/setup.md.', 'It takes 3 s.']) assert.ok(!searchTerms(text).includes(searchTerm('speed')!), text);
});
