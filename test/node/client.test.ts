import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KagentClient, KagentError } from '../../src/client/index.js';
import { DONE_EVENT, answerEvent, endpointResponseEvent, errorLine } from '../../src/protocol/index.js';
import { listen, type TestServer } from '../support/http.js';
import { SAMPLE_ANSWER, byteChunks, sampleStreamChunks, streamResponse } from '../support/scripted-service.js';

const API_KEY = 'sk_test_9f8e7d6c5b4a3210SECRET';

interface Seen {
  method: string;
  path: string;
  search: string;
  headers: Headers;
  body: string;
  form?: FormData;
}

const agent = { id: 'a1', name: 'Helper', description: '', modelName: 'claude_4_5_haiku', temperature: 0, visibility: 'private', systemPrompt: '', userPrompt: '', promptType: 'raw', promptTemplate: '' };
const datastore = { id: 'ds1', name: 'Docs', description: '', type: 'qdrant', visibility: 'private' };
const datasource = { id: 'src1', type: 'file', name: 'a.pdf', status: 'unsynched', groupId: null, createdAt: '2026-11-21', updatedAt: '2026-11-21', lastSynch: null, config: {} };
const fragment = { text: 'Reset it from Settings.', score: 0.9, source: 'https://x.test/a', datasource_id: 'src1', datasource_name: 'a.pdf', custom_id: 'c1', offset: 12 };

/** What the test server answers, per "METHOD path". */
const routes: Record<string, (request: Request) => Response | Promise<Response>> = {
  'POST /agents/a1/query': () => Response.json(SAMPLE_ANSWER),
  'POST /v1/agents/a1/query': () => Response.json(SAMPLE_ANSWER),
  'PATCH /agents/a1': () => Response.json({ ...agent, name: 'Renamed' }),
  'POST /agents': () => Response.json(agent, { status: 201 }),
  'GET /agents/a1': () => Response.json(agent),
  'POST /datastores': () => Response.json(datastore, { status: 201 }),
  'GET /datastores': () => Response.json({ data: [datastore], meta: { page: 1, limit: 20, total: 1 } }),
  'GET /datastores/ds1': () => Response.json(datastore),
  'GET /datastores/ds1/datasources': () => Response.json({ data: [datasource], meta: { page: 1, limit: 20, total: 1 } }),
  'GET /datasources/src1': () => Response.json({ ...datasource, status: 'synched' }),
  'DELETE /agents/a1': () => Response.json(agent),
  'GET /v1/agents': () => Response.json({ data: [agent], meta: { page: 1, limit: 20, total: 1 } }),
  'GET /v1/agents/a1/conversations': () => Response.json({ data: [{ id: 'conv1', createdAt: '2026-11-20T10:00:00Z' }], meta: { page: 1, limit: 5, total: 1 } }),
  'POST /datastores/ds1/query': () => Response.json([fragment]),
  'PATCH /datastores/ds1': () => Response.json({ ...datastore, name: 'Renamed' }),
  'DELETE /datastores/ds1': () => Response.json(datastore),
  'POST /v1/datastores/ds1/upsert': () => Response.json({ ids: ['doc1'] }),
  'POST /datasources': () => Response.json(datasource, { status: 201 }),
  'DELETE /datasources/src1': () => Response.json(datasource),
  'POST /datastores/upsert/ds1': () => Response.json({ ids: ['doc1', 'doc2'] }),
  'POST /datastores/update/ds1': () => Response.json({ id: 'doc1' }),
  'POST /external/datastores/file-upload/ds1': () => Response.json(datasource),
};

/**
 * Each test has a server of its own, closed when it ends: a request a test left behind (aborted, or
 * still being read under load) reaches its own test's server and state, never the next test's answer.
 */
interface Service {
  server: TestServer;
  seen: Seen[];
  /** Replaces the next answer, whatever the route. */
  next?: (request: Request) => Response | Promise<Response>;
}
let service: Service;

async function startService(): Promise<Service> {
  const state: Omit<Service, 'server'> = { seen: [] };
  const server = await listen(async (request) => {
    // Taken as the request arrives, before its body is awaited.
    const url = new URL(request.url);
    const answer = state.next ?? routes[`${request.method} ${url.pathname}`];
    state.next = undefined;
    const type = request.headers.get('Content-Type') ?? '';
    const entry: Seen = { method: request.method, path: url.pathname, search: url.search, headers: request.headers, body: '' };
    state.seen.push(entry);
    if (type.startsWith('multipart/form-data')) entry.form = await request.formData();
    else entry.body = await request.text();
    return answer ? answer(request) : Response.json({ error: { code: 'NOT_FOUND', message: 'no route' } }, { status: 404 });
  });
  return Object.assign(state, { server });
}
beforeEach(async () => {
  service = await startService();
});
afterEach(() => service.server.close());

const client = () => new KagentClient({ baseUrl: service.server.url, apiKey: API_KEY });

/** Runs `call`, expects it to reject with a KagentError, and returns it. */
async function failure(call: () => Promise<unknown>): Promise<KagentError> {
  try {
    await call();
  } catch (error) {
    assert.ok(error instanceof KagentError, `expected a KagentError, got ${String(error)}`);
    assert.ok(!error.message.includes(API_KEY) && !String(error.stack).includes(API_KEY), 'the key leaked into an error');
    return error;
  }
  assert.fail('expected the call to fail');
}

describe('client, every endpoint over real HTTP', () => {
  test('agents.query posts the body with the key and reads the answer', async () => {
    const answer = await client().agents.query('a1', { query: 'Hi?', conversationId: 'conv1', visitorId: 'v1' });
    assert.equal(answer.answer, SAMPLE_ANSWER.answer);
    assert.equal(answer.sources[0]?.datasource_name, 'Guide.pdf');
    const [request] = service.seen;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/agents/a1/query');
    assert.equal(request?.headers.get('authorization'), `Bearer ${API_KEY}`);
    assert.equal(request?.headers.get('content-type'), 'application/json');
    assert.deepEqual(JSON.parse(request!.body), { query: 'Hi?', conversationId: 'conv1', visitorId: 'v1' });
  });

  test('pathPrefix /v1 sends the versioned form', async () => {
    await new KagentClient({ baseUrl: `${service.server.url}/`, apiKey: API_KEY, pathPrefix: '/v1' }).agents.query('a1', { query: 'Hi?' });
    assert.equal(service.seen[0]?.path, '/v1/agents/a1/query');
  });

  test('a base URL with a path (a proxy mounted under /api) keeps it', async () => {
    service.next = () => Response.json(SAMPLE_ANSWER);
    await new KagentClient({ baseUrl: `${service.server.url}/api/chat/` }).agents.query('a1', { query: 'Hi?' });
    assert.equal(service.seen[0]?.path, '/api/chat/agents/a1/query');
    assert.equal(service.seen[0]?.headers.get('authorization'), null, 'no key, no Authorization header');
  });

  test('agents.update, delete, list and conversations', async () => {
    const c = client();
    assert.equal((await c.agents.update('a1', { name: 'Renamed', temperature: 0.2, visibility: 'public' })).name, 'Renamed');
    assert.deepEqual(JSON.parse(service.seen[0]!.body), { name: 'Renamed', temperature: 0.2, visibility: 'public' });
    assert.equal((await c.agents.delete('a1')).id, 'a1');
    assert.equal(service.seen[1]?.method, 'DELETE');
    assert.equal(service.seen[1]?.body, '{}');
    const list = await c.agents.list();
    assert.equal(service.seen[2]?.path, '/v1/agents');
    assert.deepEqual(list.meta, { page: 1, limit: 20, total: 1 });
    assert.equal(list.data[0]?.modelName, 'claude_4_5_haiku');
    const conversations = await c.agents.conversations('a1', { limit: 5, after: new Date('2026-11-01T00:00:00Z') });
    assert.equal(service.seen[3]?.path, '/v1/agents/a1/conversations');
    assert.equal(service.seen[3]?.search, '?limit=5&after=2026-11-01T00%3A00%3A00.000Z');
    assert.equal(conversations.data[0]?.id, 'conv1');
  });

  test('the create, get and list operations the interface leaves out (as the emulator has them)', async () => {
    const c = client();
    assert.equal((await c.agents.create({ name: 'Helper', datastoreIds: ['ds1'], temperature: 0.1 })).id, 'a1');
    assert.deepEqual(JSON.parse(service.seen[0]!.body), { name: 'Helper', datastoreIds: ['ds1'], temperature: 0.1 });
    assert.equal((await c.agents.get('a1')).name, 'Helper');
    assert.equal((await c.datastores.create({ name: 'Docs', visibility: 'public' })).id, 'ds1');
    assert.equal(service.seen[2]?.path, '/datastores');
    assert.equal((await c.datastores.list()).data[0]?.id, 'ds1');
    assert.equal((await c.datastores.get('ds1')).type, 'qdrant');
    assert.equal((await c.datastores.datasources('ds1')).data[0]?.id, 'src1');
    assert.equal((await c.datasources.get('src1')).status, 'synched');
    assert.deepEqual(service.seen.map((r) => `${r.method} ${r.path}`), ['POST /agents', 'GET /agents/a1', 'POST /datastores', 'GET /datastores', 'GET /datastores/ds1', 'GET /datastores/ds1/datasources', 'GET /datasources/src1']);
    const error = await failure(() => c.datastores.create({ name: '' }));
    assert.equal(error.problems[0]?.field, 'name');
  });

  test('a list that comes as a bare array is read as the list form', async () => {
    service.next = () => Response.json([agent, { ...agent, id: 'a2' }]);
    const list = await client().agents.list();
    assert.deepEqual(list.meta, { page: 1, limit: 2, total: 2 });
  });

  test('datastores.query, update, delete and the /v1 upsert', async () => {
    const c = client();
    const fragments = await c.datastores.query('ds1', { query: 'reset', topK: 3, filters: { custom_ids: ['c1'] } });
    assert.deepEqual(fragments, [fragment]);
    assert.deepEqual(JSON.parse(service.seen[0]!.body), { query: 'reset', topK: 3, filters: { custom_ids: ['c1'] } });
    assert.equal((await c.datastores.update('ds1', { name: 'Renamed', type: 'qdrant' })).name, 'Renamed');
    assert.equal(service.seen[1]?.method, 'PATCH');
    assert.equal((await c.datastores.delete('ds1')).id, 'ds1');
    assert.equal(service.seen[2]?.body, '{}');
    assert.deepEqual(await c.datastores.upsert('ds1', { documents: [{ id: 'doc1', text: 'Hello', metadata: { source: 's' } }] }), { ids: ['doc1'] });
    assert.equal(service.seen[3]?.path, '/v1/datastores/ds1/upsert');
  });

  test('datasources.uploadFile sends multipart with the file, its type and fields', async () => {
    const pdf = new Blob(['%PDF-1.4 tiny'], { type: '' });
    const created = await client().datasources.uploadFile({ datastoreId: 'ds1', file: pdf, fileName: 'guide.pdf', custom_id: 'guide' });
    assert.equal(created.status, 'unsynched');
    const form = service.seen[0]!.form!;
    assert.match(service.seen[0]!.headers.get('content-type') ?? '', /^multipart\/form-data; boundary=/);
    assert.equal(form.get('type'), 'file');
    assert.equal(form.get('datastoreId'), 'ds1');
    assert.equal(form.get('fileName'), 'guide.pdf');
    assert.equal(form.get('custom_id'), 'guide');
    const file = form.get('file') as File;
    assert.equal(file.name, 'guide.pdf');
    assert.equal(file.type, 'application/pdf', 'type inferred from the name when the Blob has none');
    assert.equal(await file.text(), '%PDF-1.4 tiny');
  });

  test('datasources.uploadFile refuses an unsupported type before sending anything', async () => {
    const error = await failure(() => client().datasources.uploadFile({ datastoreId: 'ds1', file: new File(['x'], 'photo.png', { type: 'image/png' }) }));
    assert.equal(error.code, 'UNSUPPORTED_MIME_TYPE');
    assert.equal(error.status, 0);
    assert.match(error.message, /photo\.png.*image\/png.*application\/pdf/);
    assert.equal(service.seen.length, 0);
  });

  test('datasources.createFromWeb and delete', async () => {
    const c = client();
    await c.datasources.createFromWeb({ datastoreId: 'ds1', type: 'web_site', name: 'Site', config: { source_url: 'https://x.test', sitemap: 'https://x.test/sitemap.xml' } });
    assert.deepEqual(JSON.parse(service.seen[0]!.body), { datastoreId: 'ds1', type: 'web_site', name: 'Site', config: { source_url: 'https://x.test', sitemap: 'https://x.test/sitemap.xml' } });
    assert.equal((await c.datasources.delete('src1')).id, 'src1');
    assert.equal(service.seen[1]?.path, '/datasources/src1');
  });

  test('the deprecated document endpoints', async () => {
    const c = client();
    assert.deepEqual(await c.documents.upsert('ds1', { documents: [{ text: 'a', name: 'A', metadata: { author: 'me' } }, { text: 'b' }] }), { ids: ['doc1', 'doc2'] });
    assert.equal(service.seen[0]?.path, '/datastores/upsert/ds1');
    assert.deepEqual(await c.documents.update('ds1', { id: 'doc1', text: 'new text', metadata: null }), { id: 'doc1' });
    assert.equal(service.seen[1]?.path, '/datastores/update/ds1');
    await c.documents.uploadFile('ds1', { file: new File(['a,b\n1,2\n'], 'data.csv', { type: 'text/csv' }), custom_id: 'sheet' });
    assert.equal(service.seen[2]?.path, '/external/datastores/file-upload/ds1');
    assert.equal((service.seen[2]?.form?.get('file') as File).type, 'text/csv');
    assert.equal(service.seen[2]?.form?.get('custom_id'), 'sheet');
    assert.equal(service.seen[2]?.form?.get('fileName'), 'data.csv');
  });

  test('ids are one path segment: slashes and dot segments cannot reach another endpoint', async () => {
    service.next = () => Response.json(agent);
    await client().agents.update('../datastores/ds1', { name: 'x' });
    assert.equal(service.seen[0]?.path, '/agents/%2E%2E%2Fdatastores%2Fds1');
  });
});

describe('client, bodies checked before sending', () => {
  test('an invalid body is refused with every invalid field, and nothing is sent', async () => {
    const error = await failure(() => client().agents.query('a1', { query: '', temperature: 2, presencePenalty: 3 }));
    assert.equal(error.code, 'INVALID_REQUEST');
    assert.deepEqual(error.problems.map((p) => p.field).sort(), ['presencePenalty', 'query', 'temperature']);
    assert.equal(service.seen.length, 0);
  });
  test('fields the interface does not know are still sent as given', async () => {
    await client().agents.query('a1', { query: 'Hi', modelName: 'claude_opus_9' });
    assert.equal(JSON.parse(service.seen[0]!.body).modelName, 'claude_opus_9');
  });
});

describe('client, every error status and both error shapes', () => {
  const cases: [number, unknown, string, string][] = [
    [400, { error: { code: 'INVALID_REQUEST', message: 'temperature must be between 0 and 1' } }, 'INVALID_REQUEST', 'temperature must be between 0 and 1'],
    [401, { error: { code: 'UNAUTHORIZED', message: 'Invalid API key' } }, 'UNAUTHORIZED', 'Invalid API key'],
    [402, { error: 'Usage limit reached' }, 'USAGE_LIMIT', 'Usage limit reached'],
    [403, { error: 'Unauthorized' }, 'FORBIDDEN', 'Unauthorized'],
    [404, { error: { code: 'NOT_FOUND', message: 'Agent not found' } }, 'NOT_FOUND', 'Agent not found'],
    [500, '<html><body>Internal Server Error</body></html>', 'INTERNAL_ERROR', 'The service answered with status 500.'],
  ];
  for (const [status, body, code, message] of cases) {
    test(`${status} becomes a KagentError with status, code and message`, async () => {
      service.next = () => (typeof body === 'string' ? new Response(body, { status, headers: { 'Content-Type': 'text/html' } }) : Response.json(body, { status }));
      const error = await failure(() => client().agents.query('a1', { query: 'Hi' }));
      assert.equal(error.status, status);
      assert.equal(error.code, code);
      assert.equal(error.message, message);
      assert.equal(error.retryAfter, undefined);
      assert.equal(error.usageLimit, status === 402);
    });
  }

  test('429 carries Retry-After in seconds', async () => {
    service.next = () => Response.json({ error: { code: 'RATE_LIMITED', message: 'Slow down' } }, { status: 429, headers: { 'Retry-After': '17' } });
    const error = await failure(() => client().datastores.query('ds1', { query: 'x' }));
    assert.equal(error.status, 429);
    assert.equal(error.retryAfter, 17);
  });

  test('429 with Retry-After as an HTTP date', async () => {
    const when = new Date(Date.now() + 30_000).toUTCString();
    service.next = () => new Response('Too Many Requests', { status: 429, headers: { 'Retry-After': when } });
    const error = await failure(() => client().agents.list());
    assert.equal(error.code, 'RATE_LIMITED');
    assert.ok(error.retryAfter! >= 28 && error.retryAfter! <= 31, `retryAfter ${error.retryAfter}`);
  });

  test('the key never appears in an error, even when the server echoes it', async () => {
    service.next = (request) => Response.json({ error: { code: 'UNAUTHORIZED', message: `Key ${request.headers.get('authorization')} is revoked` } }, { status: 401 });
    const error = await failure(() => client().agents.query('a1', { query: 'Hi' }));
    assert.equal(error.message, 'Key Bearer [redacted] is revoked');
  });

  test('the key is not in the client when it is logged or serialised', async () => {
    const { inspect } = await import('node:util');
    const c = client();
    assert.ok(!inspect(c, { depth: 5 }).includes(API_KEY));
    assert.ok(!JSON.stringify(c).includes(API_KEY));
  });

  test('an unreachable service is a NETWORK_ERROR with status 0', async () => {
    const closed = await listen(() => new Response('x'));
    await closed.close();
    const error = await failure(() => new KagentClient({ baseUrl: closed.url, apiKey: API_KEY }).agents.query('a1', { query: 'Hi' }));
    assert.equal(error.status, 0);
    assert.equal(error.code, 'NETWORK_ERROR');
    assert.match(error.message, /Could not reach http:\/\/127\.0\.0\.1/);
  });

  test('a 200 that is not the expected JSON is an INVALID_RESPONSE', async () => {
    service.next = () => new Response('<html>proxy login page</html>', { headers: { 'Content-Type': 'text/html' } });
    assert.equal((await failure(() => client().agents.query('a1', { query: 'Hi' }))).code, 'INVALID_RESPONSE');
    service.next = () => Response.json({ nope: true });
    assert.match((await failure(() => client().agents.query('a1', { query: 'Hi' }))).message, /answer/);
  });
});

describe('client, streamed answers', () => {
  test('streams typed events from bytes split through multi-byte characters, with one POST', async () => {
    service.next = () => streamResponse(sampleStreamChunks().flatMap((chunk) => byteChunks(chunk, 2)));
    const events = [];
    for await (const event of client().agents.stream('a1', { query: 'Hi', visitorId: 'v1' })) events.push(event);
    assert.equal(service.seen.length, 1);
    assert.deepEqual(JSON.parse(service.seen[0]!.body), { query: 'Hi', visitorId: 'v1', streaming: true });
    assert.equal(service.seen[0]?.headers.get('accept'), 'text/event-stream');
    const text = events.map((e) => (e.type === 'answer' ? e.text : '')).join('');
    assert.equal(text, SAMPLE_ANSWER.answer);
    const done = events.at(-1);
    assert.equal(done?.type === 'done' && done.response?.sources[0]?.page_number, 3);
  });

  test('nothing is sent until the stream is read, and it can be read only once', async () => {
    service.next = () => streamResponse([answerEvent('a'), DONE_EVENT]);
    const stream = client().agents.stream('a1', { query: 'Hi' });
    assert.equal(service.seen.length, 0);
    const done = await stream.final();
    assert.equal(done.answer, 'a');
    await assert.rejects(async () => {
      for await (const _ of stream) void _;
    }, /only once/);
    assert.equal(service.seen.length, 1);
  });

  test('[ERROR]USAGE_LIMIT after a 200 arrives as an error event; final() rejects with USAGE_LIMIT', async () => {
    service.next = () => streamResponse([answerEvent('Part'), errorLine('USAGE_LIMIT')]);
    const error = await failure(() => client().agents.stream('a1', { query: 'Hi' }).final());
    assert.equal(error.code, 'USAGE_LIMIT');
    assert.equal(error.usageLimit, true);
  });

  test('402 before the stream opens is thrown, not streamed', async () => {
    service.next = () => Response.json({ error: { code: 'USAGE_LIMIT', message: 'Usage limit reached' } }, { status: 402 });
    const error = await failure(async () => {
      for await (const _ of client().agents.stream('a1', { query: 'Hi' })) void _;
    });
    assert.equal(error.status, 402);
    assert.equal(service.seen.length, 1, 'asked once, never again');
  });

  test('a JSON answer to a streaming request is read as the same events', async () => {
    service.next = () => Response.json(SAMPLE_ANSWER);
    const done = await client().agents.stream('a1', { query: 'Hi' }).final();
    assert.equal(done.response?.conversationId, 'conv_1');
  });

  test('a 200 that is neither stream nor JSON is an INVALID_RESPONSE', async () => {
    service.next = () => new Response('hello', { headers: { 'Content-Type': 'text/plain' } });
    assert.equal((await failure(() => client().agents.stream('a1', { query: 'Hi' }).final())).code, 'INVALID_RESPONSE');
  });

  test('abort mid-stream ends the iteration and cancels the download', async () => {
    let cancelled!: () => void;
    const serverSawCancel = new Promise<void>((resolve) => (cancelled = resolve));
    service.next = () => {
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((r) => setTimeout(r, 5));
          controller.enqueue(new TextEncoder().encode(answerEvent(`piece${n++} `)));
        },
        cancel() {
          cancelled();
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    };
    const stream = client().agents.stream('a1', { query: 'Hi' });
    let pieces = 0;
    for await (const event of stream) {
      if (event.type === 'answer' && ++pieces === 3) stream.abort();
    }
    assert.equal(pieces, 3);
    assert.equal(stream.aborted, true);
    await Promise.race([serverSawCancel, new Promise((_, reject) => setTimeout(() => reject(new Error('the server never saw the cancel')), 3000))]);
  });

  test('abort ends the iteration at once, though more events came in the same chunk', async () => {
    // Five pieces in one write: the decoder has them all before the first is read.
    service.next = () => streamResponse([Array.from({ length: 5 }, (_, i) => answerEvent(`piece${i} `)).join('') + DONE_EVENT]);
    const stream = client().agents.stream('a1', { query: 'Hi' });
    const events = [];
    for await (const event of stream) {
      events.push(event);
      if (events.length === 2) stream.abort();
    }
    assert.deepEqual(events.map((event) => event.type === 'answer' && event.text), ['piece0 ', 'piece1 ']);
  });

  test("an abort through the caller's signal before the response ends quietly", async () => {
    service.next = async () => {
      await new Promise((r) => setTimeout(r, 200));
      return streamResponse([DONE_EVENT]);
    };
    const controller = new AbortController();
    const stream = client().agents.stream('a1', { query: 'Hi' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const events = [];
    for await (const event of stream) events.push(event);
    assert.deepEqual(events, []);
  });

  test('a stream cut before [DONE] ends with INCOMPLETE_STREAM and the partial answer', async () => {
    service.next = () => streamResponse([answerEvent('Half'), endpointResponseEvent('{"ans')]);
    const events = [];
    for await (const event of client().agents.stream('a1', { query: 'Hi' })) events.push(event);
    const last = events.at(-1);
    assert.equal(last?.type === 'error' && last.code, 'INCOMPLETE_STREAM');
    assert.equal(last?.type === 'error' && last.partialAnswer, 'Half');
  });
});
