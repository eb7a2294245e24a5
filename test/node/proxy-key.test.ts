import { afterEach, before, after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createProxy, ProxyConfigError } from '../../src/proxy/index.js';
import { ByteRedactor } from '../../src/proxy/core/redact.js';
import { AGENT, KEY_FORMS, SITE, TEST_KEY, assertNoKey, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { answer, echoAuthorization } from '../support/proxy-upstream.js';

const PATH = `/agents/${AGENT}/query`;

describe('the API key never leaks', () => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false });
  });
  after(() => h.close());
  afterEach(() => h.upstream.behave(answer()));

  test('from an upstream error message that quotes it', async () => {
    h.upstream.behave(echoAuthorization('error'));
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 400);
    assert.equal(JSON.parse(text).error.message, 'bad request with Bearer [REDACTED]');
    assert.equal(response.headers.get('x-debug-auth'), null);
  });

  test('from a JSON answer that contains it', async () => {
    h.upstream.behave(echoAuthorization('json'));
    const { text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(JSON.parse(text).answer, 'your key is [REDACTED]');
  });

  test('from a stream that carries it, raw and URI-encoded, split across network chunks', async () => {
    h.upstream.behave(echoAuthorization('stream'));
    const { response, text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
    assert.equal(response.headers.get('x-debug-auth'), null);
    assert.match(text, /data: \[REDACTED\]\n\n/);
    assert.equal(text.split('[REDACTED]').length - 1, 2);
    assert.match(text, /data: \[DONE\]/);
  });

  test('from a refused key: the visitor gets a generic 502, the log a redacted detail', async () => {
    h.upstream.behave(echoAuthorization('header'));
    const { response, text } = await h.send(PATH, { json: { query: 'hi' } });
    assert.equal(response.status, 502);
    assert.equal(response.headers.get('www-authenticate'), null);
    assert.doesNotMatch(text, /revoked/);
    const entry = h.logs.find((l) => l.status === 401);
    assert.equal(entry?.detail, 'key [REDACTED] was revoked');
  });
});

describe('the API key never leaks from failures', () => {
  const request = () => new Request(`http://proxy${PATH}`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"query":"hi"}' });

  test('a network error that names the key is logged redacted and answered generically', async () => {
    const logs: string[] = [];
    const proxy = createProxy({
      apiKey: TEST_KEY,
      upstreamUrl: 'https://api.example.com',
      agentIds: [AGENT],
      allowedOrigins: [SITE],
      fetch: async () => {
        throw new TypeError(`connect failed for Authorization: Bearer ${TEST_KEY}`, { cause: new Error(`socket ${encodeURIComponent(TEST_KEY)}`) });
      },
      log: (entry) => logs.push(JSON.stringify(entry)),
    });
    const response = await proxy(request(), { clientAddress: '192.0.2.1' });
    assert.equal(response.status, 502);
    assertNoKey(await response.text(), 'the 502');
    assert.ok(logs.some((l) => l.includes('connect failed for Authorization: Bearer [REDACTED]')), logs.join('\n'));
    for (const line of logs) assertNoKey(line, 'a log line');
  });

  test('an unexpected failure is a generic 500 in the error shape, and the handler does not throw', async () => {
    const logs: string[] = [];
    const proxy = createProxy({
      apiKey: TEST_KEY,
      upstreamUrl: 'https://api.example.com',
      agentIds: [AGENT],
      allowedOrigins: [SITE],
      // Not a Response: the proxy trips over it.
      fetch: (async () => ({ status: 200, headers: null, body: TEST_KEY })) as unknown as typeof fetch,
      log: (entry) => logs.push(JSON.stringify(entry)),
    });
    const response = await proxy(request(), { clientAddress: '192.0.2.1' });
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), { error: { code: 'INTERNAL_ERROR', message: 'The proxy failed unexpectedly. Please try again.' } });
    assert.ok(logs.some((l) => /unexpected failure/.test(l)));
    for (const line of logs) assertNoKey(line, 'a log line');
  });

  test('the default console logger writes no key either', async () => {
    const lines: string[] = [];
    const original = { log: console.log, warn: console.warn, error: console.error };
    console.log = console.warn = console.error = (...args: unknown[]) => lines.push(args.join(' '));
    try {
      const proxy = createProxy({
        apiKey: TEST_KEY,
        upstreamUrl: 'https://api.example.com',
        agentIds: [AGENT],
        allowedOrigins: [SITE],
        fetch: async () => new Response(JSON.stringify({ error: `bad key ${TEST_KEY}` }), { status: 401 }),
      });
      assert.equal((await proxy(request(), { clientAddress: '192.0.2.1' })).status, 502);
    } finally {
      Object.assign(console, original);
    }
    assert.ok(lines.some((l) => l.includes('bad key [REDACTED]')), lines.join('\n'));
    for (const line of lines) assertNoKey(line, 'a console line');
  });

  test('a configuration error never quotes the key', () => {
    for (const apiKey of [`${TEST_KEY} extra`, `${TEST_KEY}\n`, `é${TEST_KEY}`]) {
      assert.throws(
        () => createProxy({ apiKey, upstreamUrl: 'https://api.example.com', agentIds: [AGENT] }),
        (error: unknown) => error instanceof ProxyConfigError && /apiKey \(KAGENT_API_KEY\) must be printable ASCII/.test(error.message) && KEY_FORMS.every((form) => !error.message.includes(form)),
      );
    }
  });
});

describe('stream redaction', () => {
  test('holds back only a tail that could start the key, and finds the key at every split', () => {
    const text = `event: answer\ndata: before ${TEST_KEY} after\n\n`;
    const bytes = new TextEncoder().encode(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const redactor = new ByteRedactor(TEST_KEY);
      const out = [redactor.push(bytes.slice(0, cut)), redactor.push(bytes.slice(cut)), redactor.flush()];
      const joined = out.map((b) => new TextDecoder().decode(b)).join('');
      assert.equal(joined, 'event: answer\ndata: before [REDACTED] after\n\n', `cut at ${cut}`);
    }
    const redactor = new ByteRedactor(TEST_KEY);
    assert.equal(redactor.push(new TextEncoder().encode('data: hello\n\n')).length, 13, 'ordinary text was held back');
  });
});
