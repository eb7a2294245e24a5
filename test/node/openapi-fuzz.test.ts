// Fuzzes the emulator from openapi.json: fast-check draws an operation, its
// path ids (existing or made up), query parameters and a body (one the schema
// allows, one with a field off, any JSON, text that is not JSON, a form with or
// without its file), sends it over HTTP, and asserts that every request is
// answered within a bound, never with a 5xx, and every refusal in the error
// shape. The harness checks every answer against the document as well.
// KAGENT_FUZZ_RUNS and KAGENT_FUZZ_SEED run it longer or differently.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { UPLOAD_MIME_TYPES } from '../../src/protocol/index.js';
import { startTestEmulator, tempDataDir, type TestEmulator } from '../fixtures/emulator/harness.js';
import { bodyOf, valueOf } from '../support/openapi-arbitraries.js';
import { openApiDocument, validatorAt } from '../support/openapi-contract.js';

const RUNS = Number(process.env.KAGENT_FUZZ_RUNS ?? 1000);
const SEED = Number(process.env.KAGENT_FUZZ_SEED ?? 25);
/** Each request answered, body and all, within this (a ceiling for a loaded 2-core machine; they take milliseconds). */
const BOUND_MS = 10_000;

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query';
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

const operations = Object.entries(openApiDocument.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation: operation as unknown as Operation })),
);

/** One request as drawn. */
interface Drawn {
  method: string;
  path: string;
  operationId: string;
  headers: Record<string, string>;
  body: string | FormData | undefined;
  /** What was drawn, for the report of a failure. */
  shown: string;
  /** A JSON body the document does not allow (not JSON, another content type, or off its schema). */
  offDocument: boolean;
  /** The URL names another path than the one drawn (an id of `..` or `.` is a dot segment): another operation answers. */
  elsewhere: boolean;
}

const isError = validatorAt('/components/schemas/Error');
let emulator: TestEmulator;
let data: ReturnType<typeof tempDataDir>;
type Kind = 'agent' | 'datastore' | 'datasource';
/** Ids of records of each kind that exist when the run starts; deletes draw only from `spare`. */
const ids = { existing: { agent: [], datastore: [], datasource: [] } as Record<Kind, string[]>, spare: { agent: [], datastore: [], datasource: [] } as Record<Kind, string[]> };
/** What the emulator logged: a 500 is logged with its cause, shown when one fails the test. */
const logged: string[] = [];

before(async () => {
  data = tempDataDir();
  emulator = await startTestEmulator({ dataDir: data.dir, rateLimits: { pro: Number.MAX_SAFE_INTEGER }, log: (message) => logged.push(message) });
  const { demo, client } = emulator;
  const spareAgent = await client.agents.create({ name: 'Spare', datastoreIds: [demo.datastoreId] });
  const spareStore = await client.datastores.create({ name: 'Spare store' });
  await client.datastores.upsert(demo.datastoreId, { documents: [{ id: 'refunds', text: 'Refunds take five working days. Shipping is free over 50 euros.' }] });
  const upserted = await client.documents.upsert(spareStore.id, { documents: [{ text: 'The Zephyr tablet resets after twelve seconds.', name: 'tablet.md' }] });
  ids.existing = { agent: [demo.agentId, spareAgent.id], datastore: [demo.datastoreId, spareStore.id], datasource: ['refunds', ...upserted.ids] };
  ids.spare = { agent: [spareAgent.id], datastore: [spareStore.id], datasource: upserted.ids };
});

after(async () => {
  await emulator?.close();
  data?.cleanup();
});

const idOf = (kind: Kind, forDelete = false) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(forDelete ? ids.spare : ids.existing)[kind]) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 24 }) },
    { weight: 1, arbitrary: fc.constantFrom('doc.1', '..', '%2F', ' ', 'v1', 'upsert') },
  );

/** The kind of record a path's ids name. */
const kindOf = (path: string): Kind => (path.startsWith('/agents') ? 'agent' : path.startsWith('/datasources') || path.startsWith('/files') ? 'datasource' : 'datastore');

/** Body fields that name a record: mostly one that exists. */
const namedIds = () => ({ datastoreId: idOf('datastore'), id: idOf('datasource') });

function formOf(schema: Schema): fc.Arbitrary<FormData> {
  const { file: _file, ...properties } = schema.properties as Record<string, Schema>;
  const fields = valueOf({ ...schema, required: ((schema.required as string[]) ?? []).filter((name) => name !== 'file'), properties }, 0, namedIds());
  return fc
    .record({
      fields,
      text: fc.string({ maxLength: 200 }),
      type: fc.oneof(fc.constantFrom(...UPLOAD_MIME_TYPES), fc.constantFrom('application/octet-stream', 'image/png', '')),
      name: fc.oneof(fc.constantFrom('notes.md', 'table.csv', 'deck.pptx', 'scan.pdf'), fc.string({ maxLength: 12 })),
      withFile: fc.boolean(),
    })
    .map(({ fields, text, type, name, withFile }) => {
      const form = new FormData();
      for (const [key, value] of Object.entries(fields as Record<string, unknown>)) if (value !== undefined) form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
      if (withFile) form.set('file', new Blob([text], { type }), name);
      return form;
    });
}

function requestOf({ path, method, operation }: (typeof operations)[number]): fc.Arbitrary<Drawn> {
  const parameters = operation.parameters ?? [];
  const pathParams = fc.tuple(...parameters.filter((p) => p.in === 'path').map(() => idOf(kindOf(path), method === 'DELETE')));
  const query = fc.tuple(...parameters.filter((p) => p.in === 'query').map((p) => fc.option(fc.oneof(valueOf(p.schema).map(String), fc.string({ maxLength: 12 })), { nil: undefined })));
  const content = operation.requestBody?.content ?? {};
  const bodies: fc.Arbitrary<{ body: string | FormData | undefined; type: string | undefined }>[] = [];
  if (content['application/json']) {
    const schema = content['application/json'].schema;
    bodies.push(fc.record({ body: bodyOf(schema, namedIds()).map((value) => JSON.stringify(value)), type: fc.constantFrom('application/json', 'application/json; charset=utf-8') }));
    bodies.push(fc.record({ body: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '{', '[]', 'null', '{"query":')), type: fc.constantFrom('application/json', 'text/plain', undefined) }));
  }
  if (content['multipart/form-data']) bodies.push(fc.record({ body: formOf(content['multipart/form-data'].schema), type: fc.constant(undefined) }));
  if (bodies.length === 0) bodies.push(fc.constant({ body: undefined, type: undefined }));
  return fc.record({ params: pathParams, query, v1: fc.boolean(), sent: fc.oneof(...bodies), keyless: fc.integer({ min: 0, max: 19 }) }).map(({ params, query, v1, sent, keyless }) => {
    let i = 0;
    const filled = path.replace(/\{[^}]+\}/g, () => encodeURIComponent(params[i++]!));
    const search = new URLSearchParams();
    parameters.filter((p) => p.in === 'query').forEach((p, j) => query[j] !== undefined && search.set(p.name, query[j]!));
    const headers: Record<string, string> = {};
    // One request in twenty without a key.
    if (keyless > 0) headers.Authorization = `Bearer ${emulator.demo.apiKey}`;
    if (sent.type) headers['Content-Type'] = sent.type;
    const full = `${v1 ? '/v1' : ''}${filled}${search.size ? `?${search}` : ''}`;
    const shown = `${method} ${full} ${sent.type ?? ''} ${sent.body instanceof FormData ? `form ${JSON.stringify([...sent.body.keys()])}` : (sent.body ?? '').slice(0, 300)}`;
    const elsewhere = new URL(full, 'http://emulator').pathname !== full.split('?', 1)[0];
    return { method, path: full, operationId: operation.operationId, headers, body: sent.body, shown, offDocument: offDocument(operation, sent), elsewhere };
  });
}

/** Whether a JSON body is one the document refuses. */
function offDocument(operation: Operation, sent: { body: unknown; type: string | undefined }): boolean {
  const schema = operation.requestBody?.content['application/json']?.schema;
  if (!schema || typeof sent.body !== 'string') return false;
  if (sent.body === '' && operation.requestBody && !(operation.requestBody as { required?: boolean }).required) return false;
  if ((sent.type ?? '').split(';', 1)[0] !== 'application/json') return true;
  let value: unknown;
  try {
    value = JSON.parse(sent.body);
  } catch {
    return true;
  }
  return !validatorAt(`/components/schemas/${(schema.$ref as string).split('/').pop()}`)(value);
}

async function send(request: Drawn): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const signal = AbortSignal.timeout(BOUND_MS);
  try {
    const response = await fetch(emulator.url + request.path, { method: request.method, headers: request.headers, body: request.body, signal });
    const text = await response.text();
    return { status: response.status, text, ms: performance.now() - started };
  } catch (error) {
    if (signal.aborted) assert.fail(`no answer within ${BOUND_MS} ms: ${request.shown}`);
    throw error;
  }
}

describe('the emulator under requests drawn from openapi.json', () => {
  test(`${RUNS} requests over every operation: no 5xx, each answered within ${BOUND_MS / 1000} s, every refusal in the error shape`, { timeout: 300_000 }, async (t) => {
    const seen = new Map<string, Set<number>>();
    let slowest = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(...operations.map(requestOf)), async (request) => {
        const { status, text, ms } = await send(request);
        slowest = Math.max(slowest, ms);
        (seen.get(request.operationId) ?? seen.set(request.operationId, new Set()).get(request.operationId)!).add(status);
        assert.ok(status < 500, `${status} ${text.slice(0, 300)} for ${request.shown} (logged: ${logged.at(-1) ?? 'nothing'})`);
        if (status >= 400) {
          let body: unknown;
          assert.doesNotThrow(() => (body = JSON.parse(text)), `a ${status} whose body is not JSON: ${text.slice(0, 200)} for ${request.shown}`);
          assert.ok(isError(body), `a ${status} off the error shape: ${text.slice(0, 200)} for ${request.shown}`);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    t.diagnostic(`statuses by operation: ${[...seen].map(([id, statuses]) => `${id} ${[...statuses].sort().join('/')}`).join(', ')}; slowest ${Math.round(slowest)} ms`);
    assert.equal(seen.size, operations.length, 'every operation was drawn');
    assert.deepEqual(emulator.contractProblems, [], 'every answer is as openapi.json gives it');
  });

  test('every JSON body the document refuses is refused with a 4xx', async () => {
    const withJson = operations.filter(({ operation }) => operation.requestBody?.content['application/json']);
    await fc.assert(
      fc.asyncProperty(fc.oneof(...withJson.map(requestOf)).filter((request) => request.offDocument && !request.elsewhere && !(request.body instanceof FormData)), async (request) => {
        const { status, text } = await send(request);
        assert.ok(status >= 400 && status < 500, `${status} ${text.slice(0, 200)} for ${request.shown}`);
      }),
      { numRuns: Math.ceil(RUNS / 4), seed: SEED },
    );
  });

  test('deleting a document whose id the caller chose answers with the document, with a data folder', async () => {
    const { demo } = emulator;
    await emulator.client.datastores.upsert(demo.datastoreId, { documents: [{ id: 'doc.1', text: 'A document with an id of its own.' }] });
    const response = await emulator.api('DELETE', '/datasources/doc.1', {});
    assert.equal(response.status, 200, await response.text());
  });
});
