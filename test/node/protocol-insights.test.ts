import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FEEDBACK_COMMENT_MAX, checkFeedbackRequest, describeProblems, isQuestionId } from '../../src/protocol/index.js';

const questionId = 'AAAAAAAAAAAAAAAAAAAAAA';

test('a feedback body names the question, a rating and at most a short comment', () => {
  assert.deepEqual(checkFeedbackRequest({ questionId, rating: 'down', comment: 'No price list' }), { ok: true, value: { questionId, rating: 'down', comment: 'No price list' } });
  assert.equal(checkFeedbackRequest({ questionId, rating: 'up' }).ok, true);
  assert.equal(checkFeedbackRequest({ questionId, rating: 'up', comment: 'x'.repeat(FEEDBACK_COMMENT_MAX) }).ok, true);
});

test('a feedback body that is wrong is refused with every field to fix', () => {
  const result = checkFeedbackRequest({ questionId: '../x', rating: 'meh', comment: 'x'.repeat(FEEDBACK_COMMENT_MAX + 1) });
  assert.equal(result.ok, false);
  const said = describeProblems(result.ok ? [] : result.problems);
  assert.match(said, /questionId must be the Kagent-Question-Id/);
  assert.match(said, /rating must be 'up' or 'down'/);
  assert.match(said, /comment must be at most 500 characters/);
  assert.equal(checkFeedbackRequest([questionId]).ok, false, 'an array is no body');
  assert.equal(isQuestionId(questionId), true);
  assert.equal(isQuestionId(questionId + 'A'), false);
});
