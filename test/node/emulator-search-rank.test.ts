// The second stage of the emulator's search (emulator/src/search/rank.ts),
// through the index the agents query: what it ranks first, and why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractMarkdown } from '../../emulator/src/ingest/markdown.js';
import { fragmentsOf } from '../../emulator/src/ingest-queue.js';
import { FragmentIndex, HEADING_MATCH } from '../../emulator/src/search/fragment-index.js';
import { leads, shownScore } from '../../emulator/src/search/score.js';
import { pooledScores } from '../../emulator/src/search/rank.js';
import type { FragmentRow } from '../../emulator/src/store/records.js';
import { GARDEN_SECTIONS } from '../fixtures/garden-sections.js';

let id = 0;
const fragment = (text: string, section: string[]): FragmentRow => ({ id: `f${++id}`, text, offset: 0, section }) as FragmentRow;
// Filler sections, so that the words of the tests are rare in the index, as a question's subject is in real documents.
const filler = Array.from({ length: 30 }, (_, i) => fragment(`Paragraph ${i} about colours, fonts, focus rings and keyboard use of the chat.`, ['Widget', `Part ${i}`]));

test('the titles around a passage (its document\'s, its parent section\'s) weigh above its words: the section under "Pear trees" comes before a passage naming them in passing', () => {
  const index = new FragmentIndex();
  index.replace('filler', Array.from({ length: 30 }, (_, i) => fragment(`Paragraph ${i} about colours, fonts, focus rings and keyboard use of the chat.`, ['The chat widget', 'Styling it', `Part ${i}`])));
  index.replace('beekeeping', [fragment('Beekeeping. Hives sit at the edge of the orchard; the bees pollinate the pear trees in spring. Honey from the pear trees is taken in August, when the orchard is quiet.', ['Beekeeping', 'Where the hives stand'])]);
  index.replace('orchard', [fragment('Cut each stem just above an outward bud, and burn what you cut.', ['Orchard', 'Pear trees', 'Pruning'])]);
  assert.deepEqual(index.query('What should I know about pear trees?', { topK: 2 }).map((hit) => hit.datasourceId), ['orchard', 'beekeeping']);
});

test('a word found in three spellings counts once: the passage holding more of the question comes first', () => {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  // "host" in three spellings (its synonyms "platform" and "deploy"), and "proxy" twice: two of the question's three concepts.
  index.replace('overview', [fragment('Host the proxy on a platform, deploy the proxy.', ['Overview'])]);
  // "proxy", "Vercel" and "host" once each: all three.
  index.replace('recipe', [fragment('The proxy on Vercel is a hosted function.', ['Recipes'])]);
  assert.deepEqual(index.query('Can I host the proxy on Vercel?', { topK: 2 }).map((hit) => hit.datasourceId), ['recipe', 'overview']);
});

test('a word of the question counts once, however many of its synonyms a passage uses', () => {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  // "host" and both its synonyms: one concept of two, however strongly.
  index.replace('synonyms', [fragment('Host it, deploy it, pick a platform: host, deploy, platform.', ['Overview'])]);
  // "host" and "Vercel": both concepts.
  index.replace('both', [fragment('Host the page on Vercel.', ['Recipes'])]);
  assert.deepEqual(index.query('host on Vercel', { topK: 2 }).map((hit) => hit.datasourceId), ['both', 'synonyms']);
});

test('a synonym of several words stands for the question\'s word only where all its words are, and weighs no more than that word', () => {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  // "throttle" has the synonym "rate limit": "limit" alone is not it.
  index.replace('limits', [fragment('The upload limit and the size limit of a body.', ['Limits'])]);
  index.replace('sessions', [fragment('Sessions of visitors, and what each may send.', ['Sessions'])]);
  assert.deepEqual(index.query('throttle visitors', { topK: 2 }).map((hit) => hit.datasourceId), ['sessions']);
  // Both words of it: the phrase counts, at 0.7 of the word it stands for, below the word itself.
  index.replace('rate limit', [fragment('A rate limit per visitor.', ['Rate'])]);
  index.replace('throttle', [fragment('Throttle each visitor.', ['Throttle'])]);
  const hits = index.query('throttle visitors', { topK: 4 });
  assert.deepEqual(hits.slice(0, 2).map((hit) => hit.datasourceId), ['throttle', 'rate limit']);
  assert.ok(!hits.some((hit) => hit.datasourceId === 'limits'), JSON.stringify(hits.map((hit) => hit.datasourceId)));
});

test('the score shown: 0.7 at 27% of the question held by a document leading the next ones by 1.2, higher the further it leads, never cited below 27%, and 1 only out of reach', () => {
  assert.equal(shownScore({ share: 0.27, ofBest: 1, lead: 1.2 }), 0.7);
  // The same passage, its document level with the others, or far ahead of them.
  assert.ok(shownScore({ share: 0.27, ofBest: 1, lead: 1 }) < 0.5);
  assert.ok(shownScore({ share: 0.4, ofBest: 1, lead: 2 }) > 0.9);
  // Under 27% of the question, however far its document leads: not above the threshold.
  assert.ok(shownScore({ share: 0.2, ofBest: 1, lead: 5 }) < 0.7);
  // A passage weaker than the best scores less.
  assert.ok(shownScore({ share: 0.4, ofBest: 0.8, lead: 1.5 }) < shownScore({ share: 0.4, ofBest: 1, lead: 1.5 }));
  assert.ok(shownScore({ share: 0.6, ofBest: 1, lead: 2 }) < 1);
});

test('a passage\'s lead is its score over the mean of the next four other documents\' best', () => {
  const hits = [
    { datasourceId: 'a', score: 12 },
    { datasourceId: 'a', score: 11 },
    { datasourceId: 'b', score: 6 },
    { datasourceId: 'c', score: 4 },
    { datasourceId: 'd', score: 2 },
    { datasourceId: 'e', score: 2 },
    { datasourceId: 'f', score: 1 },
  ];
  const lead = leads(hits);
  assert.equal(lead[0], 12 / ((6 + 4 + 2 + 2) / 4));
  assert.equal(lead[1], 11 / ((6 + 4 + 2 + 2) / 4));
  assert.equal(lead[2], 6 / ((12 + 4 + 2 + 2) / 4));
  // Alone in what was found: the level at which 27% of the question is cited.
  assert.deepEqual(leads([{ datasourceId: 'a', score: 3 }]), [1.2]);
});

test('a document that answers in several passages comes before one that names the subject once, and no score rises for it', () => {
  const hits = [
    { datasourceId: 'overview', raw: 10 },
    { datasourceId: 'guide', raw: 9 },
    { datasourceId: 'guide', raw: 9 },
    { datasourceId: 'guide', raw: 6 },
  ];
  const pooled = pooledScores(hits, 0.3, 2);
  // The overview's passage alone: 10 / 1.3. The guide's best, with two passages of 9 and 6 beside it: 9 × (1 + 0.3 × 15/18) / 1.3.
  assert.ok(Math.abs(pooled[0]! - 10 / 1.3) < 1e-9, String(pooled[0]));
  assert.ok(Math.abs(pooled[1]! - (9 * (1 + 0.3 * (15 / 18))) / 1.3) < 1e-9, String(pooled[1]));
  assert.ok(pooled[1]! > pooled[0]!);
  assert.ok(pooled.every((score, i) => score <= hits[i]!.raw));
  // Within a document the order stays: 9, 9, then 6.
  assert.ok(pooled[1] === pooled[2] && pooled[2]! > pooled[3]!);
});

test('for a how-to question, the section whose own title names the task comes before a passage naming its words in passing', () => {
  const index = new FragmentIndex();
  for (const [name, text] of Object.entries(GARDEN_SECTIONS)) index.replace(name, fragmentsOf(extractMarkdown(Buffer.from(text))));
  const first = (headingMatch: number) => index.query('How do I add seedlings to my bed?', { topK: 3, headingMatch })[0]!.fragment.section?.at(-1);
  // BM25 alone: the passage repeating the words wins; the title's match puts the section about the task first.
  assert.equal(first(0), 'Slug traps');
  assert.equal(first(HEADING_MATCH), 'Plant seedlings in your bed');
  // The title orders the passages; what each holds of the question (the score's share) stays its words'.
  const plain = index.query('How do I add seedlings to my bed?', { topK: 3, standing: true });
  const titled = index.query('How do I add seedlings to my bed?', { topK: 3, standing: true, headingMatch: HEADING_MATCH });
  const shareOf = (hits: typeof plain, title: string) => hits.find((hit) => hit.fragment.section?.at(-1) === title)!.standing!.share;
  assert.equal(shareOf(titled, 'Slug traps'), shareOf(plain, 'Slug traps'));
  assert.equal(shareOf(titled, 'Plant seedlings in your bed'), shareOf(plain, 'Plant seedlings in your bed'));
});

test('"which version do I need?" finds the passage naming the tool with its version number, before one that only says "version" or gives another tool\'s', () => {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  // The word "version" and no tool.
  index.replace('changes', [fragment('An older version of a recipe stays readable.', ['Recipes'])]);
  // The tool and its number: the answer.
  index.replace('setup', [fragment('You need Python 3.11 or later, and a clone of the garden planner.', ['Set up'])]);
  index.replace('python', Array.from({ length: 12 }, (_, i) => fragment(`Python script ${i} waters the beds.`, ['Scripts'])));
  // Another tool's version beside the same name, said twice: "python version" asks for Python's.
  index.replace('sprinkler', [fragment('The Python sprinkler script drives Firmware 2.4 valves; Firmware 2.4 waters the python beds.', ['Sprinkler'])]);
  assert.equal(index.query('what python version do I need minimum?', { topK: 3 })[0]?.datasourceId, 'setup');
  assert.equal(index.query('which version of Python do I need?', { topK: 3 })[0]?.datasourceId, 'setup');
});

test('a question quoting a system error code the documents never use still finds its passage above the citation line', () => {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  index.replace('setup', [fragment('The planner keeps its plans in a folder of its own: set PLANNER_DIR to choose where.', ['Where plans are kept'])]);
  index.replace('beds', [fragment('Beds are planned in rows, and each row keeps its plants.', ['Beds'])]);
  const [best] = index.query('the planner fails with ENOENT, where does it keep its plans?', { topK: 2 });
  assert.equal(best?.datasourceId, 'setup');
  assert.ok(best.score > 0.7, `${best.score}`);
});

test('"how fast" finds the table of rates (litres/s) that never says fast, before a passage on the same thing without one', () => {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  // Both hold the question's words (pump, fill, barrel); only one gives how fast.
  index.replace('limits', [fragment('A pump fills a barrel of 200 litres at most, then stops.', ['Pump limits'])]);
  index.replace('figures', [fragment('Filling a barrel, by pump:\n\nPump | litres/s\nPump: hand; litres/s: 0.2\nPump: electric; litres/s: 1.5', ['Measured'])]);
  assert.equal(index.query('How fast does a pump fill a barrel?', { topK: 2 })[0]?.datasourceId, 'figures');
});
