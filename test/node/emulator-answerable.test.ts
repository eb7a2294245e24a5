// Whether the datastore holds what answers a question at all (`answerable`, score.ts), on made-up
// documents: a question whose own words the documents mostly lack gets "I don't know" even when a
// passage matching its common words scores as a source; one they answer keeps its source.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickSources, type Retrieved } from '../../emulator/src/answers/retrieve.js';
import { extractMarkdown } from '../../emulator/src/ingest/markdown.js';
import { fragmentsOf } from '../../emulator/src/ingest-queue.js';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import { answerable } from '../../emulator/src/search/score.js';
import { DEFAULT_ANSWERABLE_THRESHOLD, DEFAULT_CLOSEST_THRESHOLD, DEFAULT_SOURCE_THRESHOLD } from '../../emulator/src/options.js';
import type { DatasourceRow } from '../../emulator/src/store/records.js';

const garden: Record<string, string> = {
  'roses.md': '# Roses\n\nPrune roses in late winter, just above an outward-facing bud. Cut out dead and crossing stems first.\n\n## Feeding\n\nFeed roses in spring with a balanced fertiliser, and again after the first flush of flowers.\n',
  'tomatoes.md': '# Tomatoes\n\nSow tomato seeds indoors six weeks before the last frost. Plant them out once nights stay warm.\n\n## Watering\n\nWater tomatoes deeply twice a week; uneven watering splits the fruit.\n',
  'lawns.md': '# Lawns\n\nMow the lawn weekly in summer, never taking more than a third of the blade. Rake out moss in autumn.\n',
  'shop.md': '# The shop\n\nThe garden shop opens at nine. Seeds, tools and compost are sold by the bag.\n',
};

function ask(question: string): { retrieved: Retrieved[]; picked: ReturnType<typeof pickSources> } {
  const index = new FragmentIndex();
  for (const [name, text] of Object.entries(garden)) index.replace(name, fragmentsOf(extractMarkdown(Buffer.from(text))));
  const retrieved = index.query(question, { topK: 8 }).map((hit) => ({ ...hit, datasource: { id: hit.datasourceId, name: hit.datasourceId, type: 'file', config: {}, custom_id: null } as unknown as DatasourceRow }));
  return { retrieved, picked: pickSources(retrieved, DEFAULT_SOURCE_THRESHOLD, () => undefined, DEFAULT_CLOSEST_THRESHOLD, undefined, DEFAULT_ANSWERABLE_THRESHOLD) };
}

test('a question about what the documents lack gets no source, though a passage matching its common words scores as one', () => {
  const { retrieved, picked } = ask('Does the garden shop repair bicycles?');
  assert.ok(retrieved[0]!.score > DEFAULT_SOURCE_THRESHOLD, `the shop's passage scores ${retrieved[0]!.score}`);
  assert.ok(retrieved[0]!.answerable < DEFAULT_ANSWERABLE_THRESHOLD, `answerable ${retrieved[0]!.answerable}`);
  assert.deepEqual(picked.sources, []);
  assert.equal(picked.closest, false);
});

test('a question the documents answer keeps its source', () => {
  const { retrieved, picked } = ask('When should I prune my roses?');
  assert.ok(retrieved[0]!.answerable >= DEFAULT_ANSWERABLE_THRESHOLD, `answerable ${retrieved[0]!.answerable}`);
  assert.deepEqual(
    picked.sources.map((source) => source.datasource_name),
    ['roses.md'],
  );
});

test('answerable grows with the share of the question the passage holds, its lead, and the share the datastore holds at all', () => {
  const base = { share: 0.3, lead: 1.3, inDatastore: 0.8 };
  assert.ok(answerable({ ...base, share: 0.5 }) > answerable(base));
  assert.ok(answerable({ ...base, lead: 1.8 }) > answerable(base));
  assert.ok(answerable({ ...base, inDatastore: 1 }) > answerable(base));
  assert.equal(answerable({ ...base, share: 0 }), 0);
});

test('a question whose words the documents mostly never use is not answerable, however well a passage holds the rest', () => {
  // A passage holding 60% of what the datastore knows of the question, its document far ahead of the others.
  const strong = { share: 0.6, lead: 2.5 };
  assert.equal(answerable({ ...strong, inDatastore: 0.35 }), 0);
  assert.ok(answerable({ ...strong, inDatastore: 0.45 }) > 0.8);
});

test('a short question typed in haste ("whats", "pls", "dont", "vs") is read as the same question written out', () => {
  for (const [hasty, written] of [
    ['whats the feeding for roses', 'what is the feeding for roses'],
    ['pls prune roses', 'prune roses'],
    ['dont know when to sow tomato seeds', 'do not know when to sow tomato seeds'],
    ['watering tomatoes vs lawns', 'watering tomatoes or lawns'],
  ] as const) {
    // Each shorthand was a word no document holds: the question's standing fell (answerable 0.36 to 0.99 where written out it is 0.67 to 1).
    const standing = (question: string) => {
      const { retrieved, picked } = ask(question);
      return { sources: picked.sources.map((source) => source.datasource_name), score: retrieved[0]?.score, answerable: retrieved[0]?.answerable };
    };
    assert.notDeepEqual(standing(written).sources, [], `"${written}" is answered`);
    assert.deepEqual(standing(hasty), standing(written), `"${hasty}" stands as "${written}"`);
  }
});
