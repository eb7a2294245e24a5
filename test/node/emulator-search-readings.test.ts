// A question's word the datastore never uses, read as one it holds (emulator/src/search/readings.ts):
// split in two words the text writes side by side, joined with its neighbour, or spelled as the
// word a typing slip missed; and never where the reading would be a guess.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ANSWERABLE_THRESHOLD } from '../../emulator/src/options.js';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import { typingSlips } from '../../emulator/src/search/readings.js';
import type { FragmentRow } from '../../emulator/src/store/records.js';

let id = 0;
const fragment = (text: string, section: string[]): FragmentRow => ({ id: `f${++id}`, text, offset: 0, section }) as FragmentRow;
// Filler, so the garden's words are rare in the index as a question's subject is in real documents.
const filler = Array.from({ length: 60 }, (_, i) => fragment(`Note ${i} on the shop's opening hours, prices and the delivery of orders.`, ['Shop', `Note ${i}`]));

function garden(): FragmentIndex {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  index.replace('pond', [
    fragment('To set up a pond, dig a hole twice as deep as the liner is thick, lay the liner and fill it slowly.', ['Garden', 'Build a pond']),
    fragment('A pond needs shade on half its surface, or algae take it over in summer.', ['Garden', 'Pond care']),
    fragment('Frogs come to a pond by themselves within a year.', ['Garden', 'Pond life']),
  ]);
  index.replace('water', [
    fragment('Put a rain barrel under the gutter: a rain barrel of 200 litres waters a small bed all summer.', ['Garden', 'Water']),
    fragment('Rain falls mostly in autumn here; a bucket of rain is enough for seedlings.', ['Garden', 'Seasons']),
  ]);
  index.replace('panel', [fragment('The greenhouse panel shows the temperature. Its login page asks for the code printed on the greenhouse door.', ['Greenhouse', 'Panel'])]);
  index.replace('compost', [
    fragment('Turn the compost every two weeks; compost that smells is too wet.', ['Garden', 'Compost']),
    fragment('Compost is ready when it is dark and crumbly, after about a year.', ['Garden', 'Compost']),
    fragment('The greenhouse keeps tomatoes warm; open the greenhouse roof on hot days.', ['Greenhouse', 'Tomatoes']),
    fragment('Thread the vine along a string from the greenhouse roof.', ['Greenhouse', 'Vines']),
  ]);
  return index;
}

const first = (index: FragmentIndex, question: string) => index.query(question, { topK: 3 })[0];

test('a word the documents write as two ("setup": "set up") is read as those two, so the question is answerable', () => {
  const hit = first(garden(), 'pond setup');
  assert.equal(hit?.fragment.section?.at(-1), 'Build a pond');
  // Unread, "setup" weighed as the rarest word: the question was not answerable, however well "pond" matched.
  assert.ok(hit.answerable >= DEFAULT_ANSWERABLE_THRESHOLD, `answerable ${hit.answerable}`);
});

test('a word split in two only where the text writes them side by side: "rainbarrel" is "rain barrel", "rainbucket" is nothing', () => {
  const index = garden();
  assert.equal(first(index, 'rainbarrel')?.fragment.section?.at(-1), 'Water');
  // "bucket of rain" holds both words, not next to each other.
  assert.equal(first(index, 'rainbucket'), undefined);
});

test('a word joined with its neighbour into one the documents use: "log in" finds "login"', () => {
  assert.equal(first(garden(), 'log in')?.datasourceId, 'panel');
});

test('a letter left out or two letters swapped are read as the word the documents use', () => {
  const index = garden();
  // "greenhose": a letter left out of greenhouse; "compsot": two neighbours swapped.
  assert.equal(first(index, 'greenhose')?.fragment.section?.[0], 'Greenhouse');
  assert.equal(first(index, 'compsot')?.datasourceId, 'compost');
  assert.ok(typingSlips('netlfi', 'netlifi', 1) === 1 && typingSlips('recepi', 'recipi', 1) > 1);
});

test('a real word, a short one or a name is left as it is: no guess stands in for it', () => {
  const index = garden();
  // One letter changed ("threat" is not "thread"), or dropped ("composts" stems as "compost" anyway; "greenhouses" too).
  assert.equal(first(index, 'threat'), undefined);
  // A name inside the sentence, however close to a word the documents use.
  assert.equal(first(index, 'Is there a Greenhose app?'), undefined);
  // Four letters are too few to tell a slip from another word.
  assert.equal(first(index, 'pnod'), undefined);
});

test('a word still unknown no longer sinks a question whose other words name one section; beside words met only in passing it still does', () => {
  const index = garden();
  // "gotchas" is nowhere: "pond" names the pond sections (one document), so the question is about them.
  const hit = first(index, 'pond gotchas');
  assert.equal(hit?.datasourceId, 'pond');
  assert.ok(hit.answerable >= DEFAULT_ANSWERABLE_THRESHOLD, `answerable ${hit.answerable}`);
  // "frogs" is only said in passing (no title names it): the unknown word is what the question is about.
  const passing = first(index, 'frogs subscription');
  assert.ok(passing === undefined || passing.answerable < DEFAULT_ANSWERABLE_THRESHOLD, `answerable ${passing?.answerable}`);
});

test('a question with a word still unknown, asked of datasources the filter lets none through, finds nothing rather than failing', () => {
  const index = garden();
  // "zephyr" is nobody's word; the filter names no datasource of the index (the fuzzing of the query route found it).
  assert.deepEqual(index.query('zephyr pond pond', { topK: 5, datasourceFilter: (datasourceId) => datasourceId === 'nowhere' }), []);
  assert.ok(index.query('zephyr pond pond', { topK: 5 }).length > 0, 'unfiltered, the pond is found');
});
