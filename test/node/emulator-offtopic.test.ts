// Questions the documents do not answer, on made-up documents: a passage that shares a side word
// with the question, quotes its words as an example, holds one part of a word written with hyphens,
// or matches "founded" by "found", or holds the question's one word that the documents use beside
// one they never use ("free trial"), does not make it answerable; a question about money is answered
// only from a passage stating a price. Each test fails on the emulator before these rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asksForPrice, statesPrice } from '../../emulator/src/answers/price.js';
import { extractMarkdown } from '../../emulator/src/ingest/markdown.js';
import { fragmentsOf } from '../../emulator/src/ingest-queue.js';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import { searchTerm } from '../../emulator/src/search/terms.js';
import { DEFAULT_ANSWERABLE_THRESHOLD } from '../../emulator/src/options.js';
import { eventually, startTestEmulator, type TestEmulator } from '../fixtures/emulator/harness.js';

const workshop: Record<string, string> = {
  'bikes.md':
    '# Bicycle repairs\n\nBring the bicycle, whatever its model, to the workshop; a mechanic checks the brakes, the chain and the gears while you wait.\n\n## Delete old bookings\n\nA booking you no longer need is deleted from the calendar: press Delete beside it, and the slot opens for someone else.\n',
  'members.md':
    '# Members\n\nThe tool room holds saws, drills, clamps, stands, pumps and spoke keys. Members sign each tool out and back in, keep the benches clean, sweep the floor after work, return borrowed stands to the rack, and report a broken tool at the desk; a new member shows a photo and an address there and gets an account card. Of course, guests may watch.\n',
  'lessons.md':
    '# Lessons\n\nEvening lessons teach wheel truing on the workshop stands; the course was tuned over the years to what members ask. A lesson lasts two hours, and a cancelled one is deleted from the list.\n\n## Questions we get\n\nThe front desk logs what visitors ask, such as "How do I wax my skis?" and "wax skis", counted together, so the lessons follow what people want.\n',
  'history.md': '# Where parts come from\n\nMost spare parts are found in the donated bicycles; what is not found there is ordered from the wholesaler.\n',
};

let index: FragmentIndex;
before(() => {
  index = new FragmentIndex();
  for (const [name, text] of Object.entries(workshop)) index.replace(name, fragmentsOf(extractMarkdown(Buffer.from(text))));
});

const best = (question: string) => index.query(question, { topK: 8 })[0];
const answerable = (question: string) => (best(question)?.answerable ?? 0) >= DEFAULT_ANSWERABLE_THRESHOLD;

describe('a passage that is not about the question does not make it answerable', () => {
  test('a passage holding only a side word of the question ("delete"), not its subject ("account"), which another passage holds', () => {
    const hit = best('How do I delete my account?')!;
    assert.equal(hit.datasourceId, 'bikes.md', 'the booking passage, titled Delete, ranks first');
    assert.ok(!answerable('How do I delete my account?'), `answerable ${hit.answerable}`);
    // The passage that holds the subject answers its own question.
    assert.ok(answerable('How do I get an account card?'));
    assert.ok(answerable('How do I delete an old booking?'));
  });

  test('a passage that quotes the question as an example of what people ask is not about it', () => {
    const hit = best('How do I wax my skis?')!;
    assert.equal(hit.datasourceId, 'lessons.md');
    assert.ok(!answerable('How do I wax my skis?'), `answerable ${hit.answerable}`);
    // A question that quotes the words itself asks about the quotation: it may be answered from it.
    assert.ok(answerable('Why does the desk log "wax skis"?'));
  });

  test('a word written with hyphens is held only where its parts are together: "fine-tune" is not "tuned" in a passage that never writes "fine"', () => {
    const hit = best('How do I fine-tune the course?')!;
    assert.equal(hit.datasourceId, 'lessons.md');
    assert.ok(!answerable('How do I fine-tune the course?'), `answerable ${hit.answerable}`);
    // Where the documents write it whole, it is found.
    const written = new FragmentIndex();
    written.replace('tuning.md', fragmentsOf(extractMarkdown(Buffer.from('# Tuning\n\nTo fine-tune the gears, turn the barrel adjuster a quarter turn at a time.\n'))));
    written.replace('other.md', fragmentsOf(extractMarkdown(Buffer.from('# Wheels\n\nTrue a wheel on the stand, spoke by spoke.\n'))));
    assert.ok(written.query('How do I fine-tune the gears?', { topK: 8 })[0]!.answerable >= DEFAULT_ANSWERABLE_THRESHOLD);
  });

  test('a question\'s one word the documents hold, written beside one they never use ("free trial"), is not its subject where the documents use that word alone ("a free stand")', () => {
    const stands = new FragmentIndex();
    for (const [name, text] of Object.entries(workshop)) stands.replace(name, fragmentsOf(extractMarkdown(Buffer.from(text))));
    stands.replace('stands.md', fragmentsOf(extractMarkdown(Buffer.from('# Work stands\n\nTake any free stand: a stand is free when nobody has signed it out at the desk. A long repair may keep one for a day.\n'))));
    // A repair log, so that the words of the question are rare in the datastore, as in real documents.
    stands.replace('log.md', fragmentsOf(extractMarkdown(Buffer.from(Array.from({ length: 200 }, (_, i) => `## Repair ${i}\n\nWheel ${i} was trued and its spokes tightened; the rider paid at the till.\n`).join('\n')))));
    const hit = stands.query('How long is the free trial?', { topK: 8 })[0]!;
    assert.equal(hit.datasourceId, 'stands.md');
    assert.ok(hit.answerable < DEFAULT_ANSWERABLE_THRESHOLD, `answerable ${hit.answerable}`);
    // The words the documents write together, or the word alone, are asked about.
    for (const question of ['Is there a free stand?', 'When is a stand free?']) assert.ok(stands.query(question, { topK: 8 })[0]!.answerable >= DEFAULT_ANSWERABLE_THRESHOLD, question);
  });

  test('a verb whose base is another verb\'s past keeps its forms whole: "founded" does not match "found" (of find)', () => {
    assert.notEqual(searchTerm('founded'), searchTerm('found'));
    assert.equal(searchTerm('founded'), 'founded');
    assert.equal(searchTerm('deployed'), searchTerm('deploy'), 'other verbs are stemmed as before');
    assert.equal(searchTerm('bounds'), searchTerm('bound'), 'and so is a plural');
    assert.ok(!answerable('Who founded the workshop?'), `answerable ${best('Who founded the workshop?')?.answerable}`);
    assert.ok(answerable('Where are spare parts found?'));
  });
});

describe('a question about money', () => {
  test('asks for a price when it names a cost, a price or a fee, and not a measure', () => {
    for (const question of ['How much does the hosted service cost per month?', 'What is the price of a lesson?', 'Are there fees?']) assert.ok(asksForPrice(question), question);
    for (const question of ['How much CPU does a request cost?', 'How long does a lesson last?']) assert.ok(!asksForPrice(question), question);
    assert.ok(statesPrice('A lesson costs 20 euros.') && statesPrice('Members pay $5 a month.') && statesPrice('The tool room is free for members.'));
    assert.ok(!statesPrice('Every session costs its maker about a second of one core.'));
  });

  let emulator: TestEmulator;
  before(async () => {
    emulator = await startTestEmulator();
    await emulator.client.documents.upsert(emulator.demo.datastoreId, {
      documents: [
        { name: 'Sessions', text: 'Every session costs the visitor about one second of work per month of use, and the service checks it.' },
        { name: 'Lessons', text: 'Evening lessons teach wheel truing on the workshop stands. A lesson costs 20 euros.' },
      ],
    });
    await eventually(async () => ((await emulator.client.agents.query(emulator.demo.agentId, { query: 'wheel truing lessons' })).sources.length ? true : undefined));
  });
  after(() => emulator?.close());

  test('is answered "I don\'t know" when the passages it matches state no price', async () => {
    const answer = await emulator.client.agents.query(emulator.demo.agentId, { query: 'How much does the service cost per month?' });
    assert.deepEqual(answer.sources, [], JSON.stringify(answer.sources));
    assert.match(answer.answer, /^I don't know/);
  });

  test('is answered from the passage that states one', async () => {
    const answer = await emulator.client.agents.query(emulator.demo.agentId, { query: 'How much does a lesson cost?' });
    assert.deepEqual(answer.sources.map((source) => source.datasource_name), ['Lessons']);
    assert.match(answer.answer, /20 euros/);
  });
});
