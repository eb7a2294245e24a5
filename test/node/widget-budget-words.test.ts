// The chat's words for a site whose daily budget is spent (src/widget/answer-engine/failures.ts): the wait until the
// budget's reset in whole hours and minutes, rounded up. (In the browsers, against the real proxy:
// widget-sessions.test.ts and widget-sessions-words.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureFromResponse } from '../../src/widget/answer-engine/failures.js';

const spent = (retryAfter: number) =>
  failureFromResponse(Response.json({ error: { code: 'DAILY_BUDGET_SPENT', message: 'spent' } }, { status: 429, headers: { 'retry-after': String(retryAfter) } }));
const wait = async (retryAfter: number) => /\(in (.+)\)\.$/.exec((await spent(retryAfter)).message ?? '')?.[1];

test('the wait is said in whole hours and minutes, rounded up to the minute, never as 60 minutes', async () => {
  assert.equal(await wait(3599), '1 h');
  assert.equal(await wait(7199), '2 h');
  assert.equal(await wait(3600), '1 h');
  assert.equal(await wait(3601), '1 h 1 min');
  assert.equal(await wait(5400), '1 h 30 min');
  assert.equal(await wait(59), '1 min');
  assert.equal(await wait(61), '2 min');
  const failure = await spent(3599);
  assert.equal(failure.kind, 'usage-limit');
  assert.equal(failure.retryAfter, undefined, 'not a wait the chat counts down');
});
