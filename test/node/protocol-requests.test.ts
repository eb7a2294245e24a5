import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AGENT_QUERY_FIELDS,
  FAMILY_WORDS,
  MODEL_NAMES,
  UPLOAD_MIME_TYPES,
  checkAgentQuery,
  checkAgentUpdate,
  checkConversationsQuery,
  checkDatastoreQuery,
  checkDatastoreUpdate,
  checkEmptyBody,
  checkFileDatasourceFields,
  checkFileUploadFields,
  checkUpdateDocument,
  checkUpsertDocuments,
  checkV1Upsert,
  checkWebDatasource,
  describeProblems,
  isKnownModelName,
  uploadMimeTypeOf,
  type CheckResult,
} from '../../src/protocol/index.js';

function problemsOf(result: CheckResult<unknown>): Record<string, string> {
  return result.ok ? {} : Object.fromEntries(result.problems.map((p) => [p.field, p.reason]));
}

/** Asserts that `field` is accepted at each of `good` and refused at each of `bad`, with `reason`. */
function edges(check: (body: unknown) => CheckResult<unknown>, base: object, field: string, good: unknown[], bad: unknown[], reason: RegExp) {
  for (const value of good) {
    const result = check({ ...base, [field]: value });
    assert.ok(result.ok, `${field}=${JSON.stringify(value)} should pass: ${JSON.stringify(problemsOf(result))}`);
  }
  for (const value of bad) {
    const problems = problemsOf(check({ ...base, [field]: value }));
    assert.match(problems[field] ?? '(accepted)', reason, `${field}=${JSON.stringify(value)} should be refused`);
  }
}

const query = { query: 'How?' };

describe('agent query body (4.1)', () => {
  test('temperature: 0..1 inclusive', () =>
    edges(checkAgentQuery, query, 'temperature', [0, 0.5, 1], [-0.0001, 1.0001, -1, 2, '0.5', null], /between 0 and 1|number/));
  test('presencePenalty: -2..2 inclusive', () =>
    edges(checkAgentQuery, query, 'presencePenalty', [-2, 0, 2], [-2.0001, 2.0001, '1'], /between -2 and 2|number/));
  test('frequencyPenalty: -2..2 inclusive', () =>
    edges(checkAgentQuery, query, 'frequencyPenalty', [-2, 0, 2], [-2.5, 2.5], /between -2 and 2/));
  test('topP: 0..1 inclusive', () => edges(checkAgentQuery, query, 'topP', [0, 0.1, 1], [-0.1, 1.1], /between 0 and 1/));
  test('maxCompletionTokens and maxTokens: whole numbers from 1', () => {
    edges(checkAgentQuery, query, 'maxCompletionTokens', [1, 4096], [0, -1, 1.5], /at least 1|whole/);
    edges(checkAgentQuery, query, 'maxTokens', [1, 100], [0, 2.5, '100'], /at least 1|whole|number/);
  });
  test('query: required, a string with some text', () => {
    assert.equal(problemsOf(checkAgentQuery({})).query, 'is required');
    edges(checkAgentQuery, {}, 'query', ['a', ' a '], ['', '   ', 5, null], /empty|string/);
  });
  test('streaming: boolean', () => edges(checkAgentQuery, query, 'streaming', [true, false], ['true', 1], /true or false/));
  test('promptType: raw or customer_support', () =>
    edges(checkAgentQuery, query, 'promptType', ['raw', 'customer_support'], ['Raw', 'other', ''], /one of: raw, customer_support/));
  test('filters: custom_ids and datasource_ids are arrays of strings', () => {
    edges(checkAgentQuery, query, 'filters', [{}, { custom_ids: ['a'] }, { datasource_ids: [] }], ['x', null], /object/);
    const problems = problemsOf(checkAgentQuery({ ...query, filters: { custom_ids: 'a', datasource_ids: [1] } }));
    assert.match(problems['filters.custom_ids'] ?? '', /array of strings/);
    assert.match(problems['filters.datasource_ids.0'] ?? '', /string/);
  });
  test('modelName: any identifier by default, only section 2 identifiers when strict', () => {
    assert.ok(checkAgentQuery({ ...query, modelName: 'claude_opus_9' }).ok, 'the real service may know newer models');
    assert.ok(checkAgentQuery({ ...query, modelName: 'claude_opus_5' }, { strictModelNames: true }).ok);
    assert.match(problemsOf(checkAgentQuery({ ...query, modelName: 'claude_opus_9' }, { strictModelNames: true })).modelName ?? '', /model identifiers/);
    assert.match(problemsOf(checkAgentQuery({ ...query, modelName: '' })).modelName ?? '', /non-empty/);
  });
  test('returns every invalid field at once, each with its reason', () => {
    const result = checkAgentQuery({ query: '', temperature: 3, presencePenalty: -3, streaming: 'yes' });
    assert.equal(result.ok, false);
    assert.deepEqual(Object.keys(problemsOf(result)).sort(), ['presencePenalty', 'query', 'streaming', 'temperature']);
    assert.match(describeProblems(result.ok ? [] : result.problems), /temperature must be between 0 and 1/);
  });
  test('a body that is not an object is refused as a whole', () => {
    for (const body of [null, 'query', 42, [query]]) assert.match(problemsOf(checkAgentQuery(body))['(body)'] ?? '', /JSON object/);
  });
  test('drops fields the interface does not define, keeps those it does', () => {
    const result = checkAgentQuery({ ...query, conversationId: 'c', visitorId: 'v', evil: 1 });
    assert.deepEqual(result.ok && result.value, { query: 'How?', conversationId: 'c', visitorId: 'v' });
  });
  test('AGENT_QUERY_FIELDS lists the fields of 4.1', () => {
    assert.deepEqual([...AGENT_QUERY_FIELDS].sort(), [
      'conversationId', 'filters', 'frequencyPenalty', 'maxCompletionTokens', 'maxTokens', 'modelName', 'presencePenalty',
      'promptTemplate', 'promptType', 'query', 'streaming', 'systemPrompt', 'temperature', 'topP', 'userPrompt', 'visitorId',
    ]);
  });
});

describe('agent update body (4.2)', () => {
  test('every field optional; temperature 0..1; visibility and promptType enums', () => {
    assert.ok(checkAgentUpdate({}).ok);
    edges(checkAgentUpdate, {}, 'temperature', [0, 1], [-0.01, 1.01], /between 0 and 1/);
    edges(checkAgentUpdate, {}, 'visibility', ['public', 'private'], ['Public', 'internal'], /one of: public, private/);
    edges(checkAgentUpdate, {}, 'promptType', ['raw', 'customer_support'], ['x'], /one of/);
    edges(checkAgentUpdate, {}, 'name', ['A'], [1], /string/);
  });
});

describe('empty bodies of the deletes', () => {
  test('accepts {} only', () => {
    assert.ok(checkEmptyBody({}).ok);
    assert.equal(checkEmptyBody({ cascade: true }).ok, false);
    assert.equal(checkEmptyBody(null).ok, false);
  });
});

describe('datastore bodies (4.4, 4.5)', () => {
  test('query: query required, topK a whole number from 1, filters', () => {
    assert.equal(problemsOf(checkDatastoreQuery({ topK: 3 })).query, 'is required');
    edges(checkDatastoreQuery, query, 'topK', [1, 10, 1000], [0, -1, 2.5, '3'], /at least 1|whole|number/);
    edges(checkDatastoreQuery, query, 'filters', [{ custom_ids: ['x'] }], [[]], /object/);
  });
  test('update: type is qdrant', () => {
    edges(checkDatastoreUpdate, {}, 'type', ['qdrant'], ['pinecone', ''], /one of: qdrant/);
  });
});

describe('datasource bodies (4.7)', () => {
  const web = { datastoreId: 'ds', type: 'web_page', config: { source_url: 'https://example.com/a' } };
  test('web form: http(s) source_url, web types only, sitemap only for web_site', () => {
    assert.ok(checkWebDatasource(web).ok);
    assert.ok(checkWebDatasource({ ...web, type: 'web_site', config: { source_url: 'http://x.test', sitemap: 'http://x.test/sitemap.xml' } }).ok);
    assert.match(problemsOf(checkWebDatasource({ ...web, config: { source_url: 'javascript:alert(1)' } }))['config.source_url'] ?? '', /http\(s\)/);
    assert.match(problemsOf(checkWebDatasource({ ...web, config: { source_url: 'not a url' } }))['config.source_url'] ?? '', /http\(s\)/);
    assert.match(problemsOf(checkWebDatasource({ ...web, type: 'file' })).type ?? '', /web_page, web_site/);
    assert.match(problemsOf(checkWebDatasource({ ...web, config: { ...web.config, sitemap: 'https://example.com/s.xml' } }))['config.sitemap'] ?? '', /web_site/);
    assert.equal(problemsOf(checkWebDatasource({ type: 'web_page' })).datastoreId, 'is required');
  });
  test('file form fields: datastoreId required, type file', () => {
    assert.ok(checkFileDatasourceFields({ datastoreId: 'd', type: 'file', fileName: 'a.pdf', custom_id: 'x' }).ok);
    assert.equal(problemsOf(checkFileDatasourceFields({})).datastoreId, 'is required');
    assert.match(problemsOf(checkFileDatasourceFields({ datastoreId: 'd', type: 'web_page' })).type ?? '', /file/);
    assert.ok(checkFileUploadFields({}).ok);
  });
  test('the eight upload types, by declared type or by file name', () => {
    assert.equal(UPLOAD_MIME_TYPES.length, 8);
    for (const type of UPLOAD_MIME_TYPES) assert.equal(uploadMimeTypeOf(type, undefined), type);
    assert.equal(uploadMimeTypeOf('text/plain; charset=utf-8', undefined), 'text/plain');
    assert.equal(uploadMimeTypeOf('', 'Report.DOCX'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    assert.equal(uploadMimeTypeOf('application/octet-stream', 'notes.md'), 'text/markdown');
    assert.equal(uploadMimeTypeOf('image/png', 'photo.pdf'), undefined, 'a declared type wins over the name');
    assert.equal(uploadMimeTypeOf('', 'archive.zip'), undefined);
    assert.equal(uploadMimeTypeOf(undefined, undefined), undefined);
  });
});

describe('deprecated document bodies (4.8) and the /v1 upsert (4.9)', () => {
  test('upsert: at least one document, each with text; metadata an object', () => {
    assert.ok(checkUpsertDocuments({ documents: [{ text: 'a', name: 'n', metadata: { source: 's', author: 'a' } }] }).ok);
    assert.match(problemsOf(checkUpsertDocuments({ documents: [] })).documents ?? '', /at least one/);
    assert.equal(problemsOf(checkUpsertDocuments({ documents: [{ name: 'n' }] }))['documents.0.text'], 'is required');
    assert.match(problemsOf(checkUpsertDocuments({ documents: [{ text: 'a', metadata: 'x' }] }))['documents.0.metadata'] ?? '', /object/);
  });
  test('update: id and text required; metadata may be null', () => {
    assert.ok(checkUpdateDocument({ id: 'd', text: 't', metadata: null }).ok);
    const problems = problemsOf(checkUpdateDocument({}));
    assert.equal(problems.id, 'is required');
    assert.equal(problems.text, 'is required');
  });
  test('/v1 upsert: documents with optional id, text, metadata', () => {
    assert.ok(checkV1Upsert({ documents: [{ id: 'a', text: 't', metadata: {} }, { text: 'u' }] }).ok);
    assert.equal(problemsOf(checkV1Upsert({ documents: [{ id: 'a' }] }))['documents.0.text'], 'is required');
  });
  test('/v1 conversations query: limit from 1, after a date', () => {
    assert.ok(checkConversationsQuery({ limit: 1, after: '2026-01-02' }).ok);
    assert.ok(checkConversationsQuery({ after: '2026-01-02T03:04:05Z' }).ok);
    assert.match(problemsOf(checkConversationsQuery({ limit: 0 })).limit ?? '', /at least 1/);
    assert.match(problemsOf(checkConversationsQuery({ after: 'yesterday' })).after ?? '', /date/);
  });
});

describe('model identifiers (section 2)', () => {
  test('the table holds every identifier once, real words from FAMILY_WORDS', () => {
    assert.equal(new Set(MODEL_NAMES).size, MODEL_NAMES.length);
    assert.equal(MODEL_NAMES.length, 11 + 4 + 1 + 10 + 16 + 1 + 1 + 3 + 5 + 1 + 2 + 1 + 2 + 2 + 1);
    assert.ok(isKnownModelName('claude_opus_5'));
    assert.ok(isKnownModelName('claude_3_5_haiku'));
    assert.ok(isKnownModelName(`${FAMILY_WORDS.family_c}_${FAMILY_WORDS.family_m}_8x7b`), 'family_c embeds family_m');
    assert.ok(!isKnownModelName('claude_opus_9'));
    assert.ok(!isKnownModelName(42));
  });
});
