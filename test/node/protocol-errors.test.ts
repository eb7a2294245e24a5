import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, errorCodeForStatus, parseRetryAfter, readErrorBody } from '../../src/protocol/index.js';

test('readErrorBody reads both error shapes and what failing servers send instead', () => {
  assert.deepEqual(readErrorBody({ error: { code: 'UNAUTHORIZED', message: 'Invalid key' } }), { code: 'UNAUTHORIZED', message: 'Invalid key' });
  assert.deepEqual(readErrorBody({ error: 'Agent not found' }), { code: undefined, message: 'Agent not found' });
  assert.deepEqual(readErrorBody({ message: 'Bad gateway' }), { code: undefined, message: 'Bad gateway' });
  assert.deepEqual(readErrorBody('  plain text  '), { code: undefined, message: 'plain text' });
  assert.deepEqual(readErrorBody({ error: { code: 5 } }), { code: undefined, message: undefined });
  assert.deepEqual(readErrorBody(null), { code: undefined, message: undefined });
  assert.deepEqual(readErrorBody({ error: 5, message: 'Bad gateway' }), { code: undefined, message: 'Bad gateway' }, 'an error that is neither text nor an object: the top-level message');
  assert.deepEqual(readErrorBody({ error: null, message: 'Bad gateway' }), { code: undefined, message: 'Bad gateway' });
  assert.deepEqual(readErrorBody({ error: {}, message: 'Bad gateway' }), { code: undefined, message: undefined }, 'an error object is read alone');
  assert.deepEqual(readErrorBody(errorBody('NOT_FOUND', 'gone')), { code: 'NOT_FOUND', message: 'gone' });
});

test('parseRetryAfter reads seconds and HTTP dates', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now), 30);
  assert.equal(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now), 0, 'a date in the past means now');
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter('-5', now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

test('errorCodeForStatus names the usual code of a status', () => {
  assert.equal(errorCodeForStatus(402), 'USAGE_LIMIT');
  assert.equal(errorCodeForStatus(429), 'RATE_LIMITED');
  assert.equal(errorCodeForStatus(599), 'INTERNAL_ERROR');
  assert.equal(errorCodeForStatus(418), 'HTTP_ERROR');
});
