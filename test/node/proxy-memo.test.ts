// The proxy's bounded memo (src/proxy/core/memo.ts), behind its route matching and address keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoized } from '../../src/proxy/core/memo.js';

const counting = <T>(result: (key: string) => T) => {
  const calls: string[] = [];
  return { calls, work: (key: string) => (calls.push(key), result(key)) };
};

test('a key seen before is answered from the memo, an undefined result included', () => {
  const { calls, work } = counting((key) => (key === 'none' ? undefined : key.toUpperCase()));
  const remembered = memoized(work, { maxKeys: 10, maxKeyLength: 10 });
  assert.equal(remembered('a'), 'A');
  assert.equal(remembered('a'), 'A');
  assert.equal(remembered('none'), undefined);
  assert.equal(remembered('none'), undefined);
  assert.deepEqual(calls, ['a', 'none']);
});

test('long keys are never kept, and a flood of distinct keys starts the memo afresh instead of growing it', () => {
  const { calls, work } = counting((key) => key.length);
  const remembered = memoized(work, { maxKeys: 3, maxKeyLength: 5 });
  remembered('toolong');
  remembered('toolong');
  assert.deepEqual(calls, ['toolong', 'toolong']);

  calls.length = 0;
  for (const key of ['a', 'b', 'c']) remembered(key);
  remembered('a');
  assert.deepEqual(calls, ['a', 'b', 'c'], 'three keys fit');
  // A fourth clears the memo: the first three are worked out again.
  remembered('d');
  remembered('a');
  assert.deepEqual(calls, ['a', 'b', 'c', 'd', 'a']);
});
