// The answer type the emulator's search checks (emulator/src/search/answer-type.ts):
// a question about price is answered only from a passage that states one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asksForPrice, statesPrice } from '../../emulator/src/search/answer-type.js';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import type { FragmentRow } from '../../emulator/src/store/records.js';

let id = 0;
const fragment = (text: string, section: string[]): FragmentRow => ({ id: `f${++id}`, text, offset: 0, section }) as FragmentRow;
const filler = Array.from({ length: 30 }, (_, i) => fragment(`Paragraph ${i} about colours, fonts, focus rings and keyboard use of the chat.`, ['Widget', `Part ${i}`]));

test('questions about money ask for a price; questions about a measure do not', () => {
  for (const question of ['How much does the hosted service cost per month?', 'What is the pricing?', 'Is there a fee for more agents?', 'Is it expensive to run?']) {
    assert.equal(asksForPrice(question), true, question);
  }
  for (const question of ['How much CPU does the proxy use per request?', 'What does a request cost in memory?', 'How much delay does the proxy add?', 'How do I host the proxy?']) {
    assert.equal(asksForPrice(question), false, question);
  }
});

test('a passage states a price with an amount and its currency, or by saying it is free', () => {
  for (const text of ['The Pro plan is $29 a month.', 'It costs 10 EUR per seat.', 'Pro: 29 € a month', 'Team plan, 49 CHF', 'The emulator is free of charge.', 'Self-hosting costs nothing.', 'A free tier answers 100 questions.']) {
    assert.equal(statesPrice(text), true, text);
  }
  for (const text of ['Each request costs about 120 µs of CPU.', 'Use `${origin}/api` as the endpoint.', 'Requests per second at 16 connections.', 'See the pricing page.', 'A lock-free queue; feel free to ask.']) {
    assert.equal(statesPrice(text), false, text);
  }
});

test('a price question is not answered from a passage that only shares its words, and is from one that states a price', () => {
  const index = new FragmentIndex();
  index.replace('filler', filler);
  index.replace('proxy', [fragment('The hosted service is called per request; each call costs the proxy about 120 µs of CPU.', ['Proxy', 'Cost'])]);
  const question = 'How much does the hosted service cost per request?';
  const [alone] = index.query(question, { topK: 1 });
  assert.equal(alone?.datasourceId, 'proxy');
  // Its words match, but it names no price: under the 0.7 an answer cites.
  assert.ok(alone.score < 0.7, `scored ${alone.score}`);
  // Without the price it matches as well as any passage can.
  assert.ok(index.query('How much CPU does the hosted service cost per request?', { topK: 1 })[0]!.score > 0.7);

  index.replace('pricing', [fragment('The hosted service costs $0.002 per request, billed monthly.', ['Pricing'])]);
  const [first] = index.query(question, { topK: 2 });
  assert.equal(first?.datasourceId, 'pricing');
  assert.ok(first.score > 0.7, `scored ${first.score}`);
});
