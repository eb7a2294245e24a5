import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readAgentStream, type AgentStreamEvent } from '../../src/protocol/index.js';
import { AGENT, SITE, TEST_KEY, assertNoKey, assertNoKeyInHead, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { answer, endWithoutDone, failMidStream, gzipAnswer, heldStream, redirectTo, reply, slowHeaders, sleep, stallMidStream } from '../support/proxy-upstream.js';
import { SAMPLE_ANSWER } from '../support/scripted-service.js';
import { relayBody } from '../../src/proxy/core/relay.js';

const PATH = `/agents/${AGENT}/query`;

async function events(body: ReadableStream<Uint8Array>): Promise<AgentStreamEvent[]> {
  const all: AgentStreamEvent[] = [];
  for await (const event of readAgentStream(body)) all.push(event);
  return all;
}

// Every rule holds with the runtime's fetch (what the core gets on every platform) and with the Node entry's own.
for (const [client, makeFetch] of [['the global fetch', () => globalThis.fetch], ["serveProxy's own call on undici, as kagent-proxy", undefined]] as const) describe(`proxy to upstream, with ${client}`, () => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness({ upstreamTimeoutMs: 400, perAddressLimit: false, perVisitorLimit: false, ...(makeFetch ? { fetch: makeFetch() } : {}) });
  });
  after(() => h.close());
  afterEach(() => h.upstream.behave(answer()));

  test('builds the upstream request from scratch: the key, the body type, what to accept, nothing of the visitor', async () => {
    const { response } = await h.send(PATH, {
      json: { query: 'hi', streaming: true },
      headers: {
        cookie: 'session=visitor',
        authorization: 'Bearer visitor-token',
        'x-forwarded-for': '10.0.0.1',
        'x-forwarded-host': 'evil.example',
        forwarded: 'for=10.0.0.1',
        'x-real-ip': '10.0.0.2',
        'user-agent': 'visitor-browser',
        referer: `${SITE}/page`,
        'x-custom': 'x',
        'accept-language': 'de',
      },
    });
    assert.equal(response.status, 200);
    const seen = h.upstream.requests.at(-1)!;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.headers.authorization, `Bearer ${TEST_KEY}`);
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers.accept, 'text/event-stream, application/json');
    const names = Object.keys(seen.headers);
    for (const name of ['cookie', 'x-forwarded-for', 'x-forwarded-host', 'forwarded', 'x-real-ip', 'referer', 'x-custom', 'origin']) {
      assert.ok(!names.includes(name), `the visitor's ${name} reached the service`);
    }
    // The runtime's fetch adds its own defaults (user-agent, accept-language: *); none may be the visitor's.
    const values = seen.rawHeaders.filter((_, i) => i % 2 === 1).join('\n');
    assert.doesNotMatch(values, /visitor|evil\.example|10\.0\.0\.|^de$/m);
    assert.equal(seen.headers.host, new URL(h.upstream.url).host);
  });

  test('passes an event stream on with the streaming headers and nothing else of the upstream', async () => {
    const response = await fetch(h.url + PATH, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hi', streaming: true }) });
    assertNoKeyInHead(response);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    assert.equal(response.headers.get('cache-control'), 'no-cache, no-transform');
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    assert.equal(response.headers.get('access-control-allow-origin'), SITE);
    assert.equal(response.headers.get('set-cookie'), null);
    assert.equal(response.headers.get('server'), null);
    const all = await events(response.body!);
    const done = all.at(-1);
    assert.equal(done?.type, 'done');
    assert.equal(done.type === 'done' && done.answer, SAMPLE_ANSWER.answer);
    assert.deepEqual(done.type === 'done' && done.response?.sources, SAMPLE_ANSWER.sources);
  });

  test('passes a JSON answer on without upstream headers', async () => {
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(text), SAMPLE_ANSWER);
    assert.equal(response.headers.get('set-cookie'), null);
    assert.equal(response.headers.get('server'), null);
    assert.equal(response.headers.get('x-upstream-internal'), null);
  });

  test('never copies Content-Encoding or Content-Length of a body the runtime already decoded', async () => {
    h.upstream.behave(gzipAnswer());
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-encoding'), null);
    const length = response.headers.get('content-length');
    assert.ok(length === null || Number(length) === Buffer.byteLength(text), `content-length ${length} for ${Buffer.byteLength(text)} bytes`);
    assert.deepEqual(JSON.parse(text), SAMPLE_ANSWER);
  });

  test('the first streamed byte arrives before the upstream has finished', async () => {
    const held = heldStream();
    h.upstream.behave(held.behaviour);
    const response = await fetch(h.url + PATH, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hi', streaming: true }) });
    const reader = response.body!.getReader();
    const first = await Promise.race([reader.read(), sleep(2000).then(() => 'timed out' as const)]);
    assert.notEqual(first, 'timed out', 'no byte arrived while the upstream held the rest');
    assert.equal(held.finished(), false);
    assert.match(new TextDecoder().decode((first as ReadableStreamReadResult<Uint8Array>).value), /event: answer\ndata: First/);
    held.release();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    assert.match(rest, /data: \[DONE\]/);
    assertNoKey(rest, 'the stream');
  });

  test('a visitor who disconnects mid-stream cancels the upstream request', async () => {
    const held = heldStream();
    h.upstream.behave(held.behaviour);
    const controller = new AbortController();
    const response = await fetch(h.url + PATH, { method: 'POST', signal: controller.signal, headers: { origin: SITE, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hi', streaming: true }) });
    const reader = response.body!.getReader();
    await reader.read();
    const seen = h.upstream.requests.at(-1)!;
    assert.equal(seen.closedEarly, false);
    controller.abort();
    await h.upstream.waitFor(() => seen.closedEarly, 3000);
    held.release();
  });

  test('a visitor who disconnects before the answer starts cancels the upstream request', async () => {
    h.upstream.behave(slowHeaders(2000));
    const controller = new AbortController();
    const sent = fetch(h.url + PATH, { method: 'POST', signal: controller.signal, headers: { origin: SITE, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hi', streaming: true }) });
    const count = h.upstream.requests.length;
    await h.upstream.waitFor(() => h.upstream.requests.length > count);
    const seen = h.upstream.requests.at(-1)!;
    controller.abort();
    await assert.rejects(sent);
    await h.upstream.waitFor(() => seen.closedEarly, 1500);
    assert.ok(h.logs.some((l) => /visitor left before the service answered/.test(l.message)));
  });

  test('a stream that fails midway ends with [ERROR] instead of hanging', async () => {
    h.upstream.behave(failMidStream());
    const { response, text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
    assert.equal(response.status, 200);
    assert.match(text, /^event: answer\ndata: Half%20an%20ans\n\n/);
    assert.match(text, /data: \[ERROR\]UPSTREAM_ERROR\n\n$/);
    const all = await events(new Response(text).body!);
    const last = all.at(-1);
    assert.equal(last?.type, 'error');
    assert.equal(last.type === 'error' && last.code, 'UPSTREAM_ERROR');
    assert.equal(last.type === 'error' && last.partialAnswer, 'Half an ans');
  });

  test('a stream cut inside a line still ends with a readable [ERROR]', async () => {
    h.upstream.behave(failMidStream('event: answer\ndata: Half%20an'));
    const { text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
    const last = (await events(new Response(text).body!)).at(-1);
    assert.equal(last?.type === 'error' && last.code, 'UPSTREAM_ERROR');
  });

  test('a stream that closes without [DONE] ends with [ERROR]INCOMPLETE_STREAM', async () => {
    h.upstream.behave(endWithoutDone());
    const { text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
    assert.match(text, /data: \[ERROR\]INCOMPLETE_STREAM\n\n$/);
  });

  test('a stream that goes silent ends with [ERROR]UPSTREAM_TIMEOUT and the upstream request is cancelled', async () => {
    h.upstream.behave(stallMidStream());
    const started = Date.now();
    const { text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
    assert.match(text, /data: \[ERROR\]UPSTREAM_TIMEOUT\n\n$/);
    assert.ok(Date.now() - started < 3000);
    await h.upstream.waitFor(() => h.upstream.requests.at(-1)!.closedEarly);
  });

  test('an upstream that never starts answering gets a 504 after the timeout', async () => {
    h.upstream.behave(slowHeaders(3000));
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 504);
    assert.equal(JSON.parse(text).error.code, 'GATEWAY_TIMEOUT');
    await h.upstream.waitFor(() => h.upstream.requests.at(-1)!.closedEarly);
  });

  test('a JSON answer is sent whole, with the length of what is sent', async () => {
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-length'), String(Buffer.byteLength(text)));
    assert.deepEqual(JSON.parse(text), SAMPLE_ANSWER);
  });

  test('a JSON answer that fails midway is a 502, not half a document', async () => {
    h.upstream.behave(async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"answer":"Half an');
      await sleep(20);
      res.socket?.destroy();
    });
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 502);
    assert.equal(JSON.parse(text).error.code, 'BAD_GATEWAY');
    assert.ok(h.logs.some((l) => l.message === 'the service failed during the answer'));
  });

  test('a JSON answer that stalls is a 504 once the timeout has run, and the upstream request is closed', async () => {
    h.upstream.behave((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"answer":"Thinking');
    });
    const started = Date.now();
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 504);
    assert.equal(JSON.parse(text).error.code, 'GATEWAY_TIMEOUT');
    assert.ok(Date.now() - started < 3000, 'the stalled answer held the visitor');
    await h.upstream.waitFor(() => h.upstream.requests.at(-1)!.closedEarly);
  });

  test('a JSON answer over 4 MiB is refused with a 502 rather than held in memory', async () => {
    // A proxy of its own with the default upstream timeout: on a busy machine 5 MiB can take longer than this suite's 400 ms (a 504).
    const big = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false, ...(makeFetch ? { fetch: makeFetch() } : {}) });
    try {
      big.upstream.behave((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ answer: 'x'.repeat(5 * 1024 * 1024) }));
      });
      const { response, text } = await big.send(PATH, { json: { query: 'hi' } });
      assert.equal(response.status, 502);
      assert.equal(JSON.parse(text).error.code, 'BAD_GATEWAY');
      assert.ok(big.logs.some((l) => /larger than 4194304 bytes/.test(l.message)));
    } finally {
      await big.close();
    }
  });

  test('refuses to follow a redirect', async () => {
    const target = h.upstream.requests.length;
    h.upstream.behave(redirectTo(`${h.upstream.url}/elsewhere`));
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 502);
    assert.equal(JSON.parse(text).error.code, 'BAD_GATEWAY');
    assert.equal(h.upstream.requests.length, target + 1, 'the redirect was followed');
    assert.ok(h.logs.some((l) => /redirect/.test(l.message)));
  });

  test('an unreachable upstream is a 502', async () => {
    const lost = await startProxyHarness({ upstreamUrl: 'http://127.0.0.1:9' });
    try {
      const { response } = await lost.send(PATH, { json: { query: 'hi' } });
      assert.equal(response.status, 502);
      assert.ok(lost.logs.some((l) => l.message === 'cannot reach the service'));
    } finally {
      await lost.close();
    }
  });
});

describe('proxy to upstream: errors', () => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false });
  });
  after(() => h.close());

  test('400, 402, 404 and 429 reach the visitor with a rebuilt body', async () => {
    const cases: [number, unknown, Record<string, string>, { code: string; message: string }][] = [
      [400, { error: { code: 'INVALID_REQUEST', message: 'query\u0000 is\ntoo long', stack: 'at db.js:1' } }, {}, { code: 'INVALID_REQUEST', message: 'query is too long' }],
      [402, { error: 'Usage limit reached' }, {}, { code: 'USAGE_LIMIT', message: 'Usage limit reached' }],
      [404, { error: { code: 'NOT_FOUND', message: 'Agent not found' }, internal: 'row 7' }, { 'Set-Cookie': 'x=y' }, { code: 'NOT_FOUND', message: 'Agent not found' }],
      [404, '<html><body>nginx 404 at 10.1.2.3</body></html>', {}, { code: 'NOT_FOUND', message: 'Not found.' }],
      [429, { error: { code: 'RATE_LIMITED', message: 'Slow down' } }, { 'Retry-After': '17' }, { code: 'RATE_LIMITED', message: 'Slow down' }],
      [400, { error: { code: 'bad code with spaces', message: 'x'.repeat(1000) } }, {}, { code: 'INVALID_REQUEST', message: `${'x'.repeat(299)}…` }],
    ];
    for (const [status, body, headers, expected] of cases) {
      h.upstream.behave(reply(status, body, headers));
      const { response, text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
      assert.equal(response.status, status);
      assert.deepEqual(JSON.parse(text), { error: expected });
      assert.equal(response.headers.get('set-cookie'), null);
      assert.equal(response.headers.get('access-control-allow-origin'), SITE);
      if (status === 429) {
        assert.equal(response.headers.get('retry-after'), '17');
        assert.match(response.headers.get('access-control-expose-headers') ?? '', /Retry-After/);
      }
    }
  });

  test('a 429 with an HTTP-date Retry-After is passed on in seconds', async () => {
    h.upstream.behave(reply(429, { error: 'slow' }, { 'Retry-After': new Date(Date.now() + 30_000).toUTCString() }));
    const { response } = await h.send(PATH, { json: { query: 'hi' } });
    const seconds = Number(response.headers.get('retry-after'));
    assert.ok(seconds >= 28 && seconds <= 31, String(seconds));
  });

  test('401, 403 and 5xx become a generic 502; the log says what happened', async () => {
    for (const status of [401, 403, 500, 502, 503, 418]) {
      h.upstream.behave(reply(status, { error: { code: 'SECRET_CODE', message: `internal detail ${status}` } }));
      const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
      assert.equal(response.status, 502, `upstream ${status}`);
      assert.deepEqual(JSON.parse(text).error.code, 'BAD_GATEWAY');
      assert.doesNotMatch(text, /internal detail|SECRET_CODE/);
      assert.ok(h.logs.some((l) => l.status === status && l.detail === `internal detail ${status}`), `no log for ${status}`);
    }
    assert.ok(h.logs.some((l) => /KAGENT_API_KEY/.test(l.message) && l.status === 401));
  });
});

describe('the relay', () => {
  test("a stream that closes without [DONE] after a piece that could start the key (held back whole) ends at once, with an error line of its own", async () => {
    const key = 'sk_relay_0123456789abcdef';
    const encoder = new TextEncoder();
    const service = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('event: answer\ndata: Hi\n\n'));
        // Could be the key's start, so held back until the stream ends.
        controller.enqueue(encoder.encode('sk_rel'));
        controller.close();
      },
    });
    const relayed = relayBody(service, { apiKey: key, idleTimeoutMs: 5000, maxDurationMs: 5000, maxBytes: 1_000_000, abortUpstream: () => {}, onEnd: () => {} });
    const text = await new Response(relayed).text();
    assert.equal(text, 'event: answer\ndata: Hi\n\nsk_rel\n\ndata: [ERROR]INCOMPLETE_STREAM\n\n');
  });
});
