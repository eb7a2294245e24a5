// The second stage of the emulator's search (emulator/src/search/rank.ts),
// through the index the agents query: what it ranks first, and why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conceptMatch, coordinatedScore, pooledScores } from '../../emulator/src/search/rank.js';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import type { FragmentRow } from '../../emulator/src/store/records.js';

let id = 0;
const fragment = (text: string, section: string[]): FragmentRow => ({ id: `f${++id}`, text, offset: 0, section }) as FragmentRow;
// Filler sections, so that the words of the tests are rare in the index, as a question's subject is in real documents.
const filler = Array.from({ length: 30 }, (_, i) => fragment(`Paragraph ${i} about colours, fonts, focus rings and keyboard use of the chat.`, ['Widget', `Part ${i}`]));

test('a word found in three spellings counts once: the passage holding more of the question comes first', () => {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  // "host" in three spellings (its synonyms "platform" and "deploy"), and "proxy" twice: two of the question's three concepts.
  index.replace('overview', [fragment('Host the proxy on a platform, deploy the proxy.', ['Overview'])]);
  // "proxy", "Vercel" and "host" once each: all three.
  index.replace('recipe', [fragment('The proxy on Vercel is a hosted function.', ['Recipes'])]);
  assert.deepEqual(index.query('Can I host the proxy on Vercel?', { topK: 2 }).map((hit) => hit.datasourceId), ['recipe', 'overview']);
});

test('a phrase of the question counts whole only when all its words, or a synonym, are there; a word once however it is spelled', () => {
  const fileTypes = { terms: ['file', 'type', 'mime', 'format'], own: 2, weight: 2 };
  assert.equal(conceptMatch(fileTypes, new Set(['type'])), 0.5);
  assert.equal(conceptMatch(fileTypes, new Set(['file', 'type'])), 1);
  assert.equal(conceptMatch(fileTypes, new Set(['format'])), 1);
  const host = { terms: ['host', 'deploi', 'platform'], own: 1, weight: 2 };
  const proxy = { terms: ['proxi'], own: 1, weight: 1 };
  // MiniSearch's score of 90 for three matched terms, all of one concept: one concept's worth, a third of it.
  assert.equal(coordinatedScore(90, ['host', 'deploi', 'platform'], [host, proxy]), 30);
  assert.equal(coordinatedScore(90, ['host', 'proxi', 'host_proxi'], [host, proxy]), 60);
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
