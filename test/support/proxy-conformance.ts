// The rules every runtime entry must keep, as one suite run against each
// (test/node/proxy-runtimes.test.ts). Each case talks real HTTP to the proxy
// and checks what the recording upstream saw; every answer is checked for the key.
import assert from 'node:assert/strict';
import { QUESTIONS_LEFT_HEADER, SESSION_ERROR_CODES, SESSION_HEADER, readAgentStream } from '../../src/protocol/index.js';
import { SESSION_SECRET, TEST_DIFFICULTY, earnSession, mint, withSession } from './proxy-sessions.js';
import { AGENT, SITE, TEST_KEY, assertNoKey, assertNoKeyInHead, rawRequest } from './proxy-harness.js';
import { answer, endlessStream, failMidStream, gzipAnswer, heldStream, reply, sleep, type RecordingUpstream } from './proxy-upstream.js';

/** The environment every runtime is started with. */
export function conformanceEnv(upstreamUrl: string): Record<string, string> {
  return {
    KAGENT_API_KEY: TEST_KEY,
    KAGENT_UPSTREAM_URL: upstreamUrl,
    KAGENT_AGENT_IDS: `${AGENT},agent_2`,
    KAGENT_ALLOWED_ORIGINS: SITE,
    KAGENT_PIN: '{"modelName":"family_a_4_5_haiku"}',
    KAGENT_ALLOW_FIELDS: 'temperature',
    // Each platform has its own address source; the per-visitor limit is the same everywhere.
    KAGENT_RATE_LIMIT_PER_ADDRESS: 'off',
    KAGENT_RATE_LIMIT_PER_VISITOR: '2/minute',
    KAGENT_UPSTREAM_TIMEOUT_SECONDS: '10',
  };
}

interface Context {
  url: string;
  upstream: RecordingUpstream;
}

const PATH = `/agents/${AGENT}/query`;
const jsonHeaders = { origin: SITE, 'content-type': 'application/json' };

async function post(ctx: Context, body: unknown, init: RequestInit = {}, path = PATH): Promise<{ response: Response; text: string }> {
  const response = await fetch(ctx.url + path, { method: 'POST', headers: jsonHeaders, body: JSON.stringify(body), ...init });
  assertNoKeyInHead(response);
  const text = await response.text();
  assertNoKey(text, `the answer to ${path}`);
  return { response, text };
}

export const CONFORMANCE: [name: string, run: (ctx: Context) => Promise<void>][] = [
  [
    'streams the answer as it arrives, with the streaming headers only',
    async (ctx) => {
      const held = heldStream();
      ctx.upstream.behave(held.behaviour);
      const response = await fetch(ctx.url + PATH, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query: 'hi', streaming: true }) });
      assertNoKeyInHead(response);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/event-stream');
      assert.equal(response.headers.get('cache-control'), 'no-cache, no-transform');
      assert.equal(response.headers.get('access-control-allow-origin'), SITE);
      const reader = response.body!.getReader();
      const first = await Promise.race([reader.read(), sleep(3000).then(() => undefined)]);
      assert.ok(first && !first.done, 'no byte arrived while the upstream held the rest');
      assert.equal(held.finished(), false);
      held.release();
      let text = new TextDecoder().decode(first.value);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      assertNoKey(text, 'the stream');
      const events = [];
      for await (const event of readAgentStream(new Response(text).body!)) events.push(event);
      assert.equal(events.at(-1)?.type, 'done');
      ctx.upstream.behave(answer());
    },
  ],
  [
    'sends the service only the allowed fields, the pins and the key',
    async (ctx) => {
      const { response } = await post(ctx, { query: 'hi', temperature: 0.4, modelName: 'family_e_5', systemPrompt: 'evil', visitorId: 'conf-1' }, { headers: { ...jsonHeaders, cookie: 'a=b', authorization: 'Bearer visitor' } });
      assert.equal(response.status, 200);
      const seen = ctx.upstream.requests.at(-1)!;
      assert.deepEqual(JSON.parse(seen.body), { query: 'hi', visitorId: 'conf-1', temperature: 0.4, modelName: 'family_a_4_5_haiku' });
      assert.equal(seen.headers.authorization, `Bearer ${TEST_KEY}`);
      assert.equal(seen.headers.cookie, undefined);
      assert.equal(seen.path, PATH);
    },
  ],
  [
    'passes JSON on without upstream headers or a stale Content-Encoding',
    async (ctx) => {
      ctx.upstream.behave(gzipAnswer());
      // Raw HTTP without Accept-Encoding: any Content-Encoding left would be the upstream's, and a lie.
      const raw = await rawRequest(ctx.url, { path: PATH, body: '{"query":"hi"}' });
      ctx.upstream.behave(answer());
      assert.equal(raw.status, 200);
      assert.equal(raw.headers['content-encoding'], undefined);
      assert.ok(raw.headers['content-length'] === undefined || Number(raw.headers['content-length']) === Buffer.byteLength(raw.text));
      assert.equal(JSON.parse(raw.text).answer.startsWith('Hello'), true);
      const plain = await post(ctx, { query: 'hi' });
      assert.equal(plain.response.headers.get('set-cookie'), null);
      assert.doesNotMatch(plain.response.headers.get('server') ?? '', /upstream/);
    },
  ],
  [
    'refuses other endpoints, other agents and path tricks without calling the service',
    async (ctx) => {
      const before = ctx.upstream.requests.length;
      const tries: [string, string][] = [
        ['PATCH', `/agents/${AGENT}`],
        ['DELETE', `/agents/${AGENT}`],
        ['GET', '/v1/agents'],
        ['POST', '/datastores/ds_1/query'],
        ['POST', '/datasources'],
        ['POST', '/agents/agent_3/query'],
        ['POST', `/agents/${AGENT}%2F..%2F..%2Fdatasources/query`],
        ['PUT', PATH],
      ];
      for (const [method, path] of tries) {
        const response = await fetch(ctx.url + path, { method, headers: jsonHeaders, ...(method === 'GET' ? {} : { body: '{"query":"x"}' }) });
        assertNoKeyInHead(response);
        assertNoKey(await response.text(), path);
        assert.ok(response.status === 404 || response.status === 405, `${method} ${path}: ${response.status}`);
      }
      assert.equal(ctx.upstream.requests.length, before);
    },
  ],
  [
    'answers preflight for allowed origins and refuses other origins with 403',
    async (ctx) => {
      const before = ctx.upstream.requests.length;
      const ok = await fetch(ctx.url + PATH, { method: 'OPTIONS', headers: { origin: SITE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      assert.equal(ok.status, 204);
      assert.equal(ok.headers.get('access-control-allow-origin'), SITE);
      const bad = await fetch(ctx.url + PATH, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      assert.equal(bad.status, 403);
      const post403 = await post(ctx, { query: 'hi' }, { headers: { ...jsonHeaders, origin: 'https://evil.example' } });
      assert.equal(post403.response.status, 403);
      assert.equal(ctx.upstream.requests.length, before);
    },
  ],
  [
    'refuses a non-JSON body (415) and an oversized one sent without Content-Length (413)',
    async (ctx) => {
      const before = ctx.upstream.requests.length;
      assert.equal((await fetch(ctx.url + PATH, { method: 'POST', headers: { origin: SITE, 'content-type': 'text/plain' }, body: 'hi' })).status, 415);
      // Just over the 16 KiB cap, chunked, written in one go with its last chunk (node:http corks
      // `end(body)`), so the whole body is on the wire before the refusal: a runtime may close the
      // connection as it answers, and a body still being written would meet a reset instead.
      const big = await rawRequest(ctx.url, { path: PATH, body: `{"query":"${'x'.repeat(16_400)}"}`, chunked: true });
      assert.equal(big.status, 413);
      assert.equal(ctx.upstream.requests.length, before);
    },
  ],
  [
    'maps upstream errors: 429 passed on with Retry-After, 401 hidden behind a 502',
    async (ctx) => {
      ctx.upstream.behave(reply(429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'Retry-After': '12' }));
      const limited = await post(ctx, { query: 'hi' });
      assert.equal(limited.response.status, 429);
      assert.equal(limited.response.headers.get('retry-after'), '12');
      ctx.upstream.behave(reply(401, { error: `bad key ${TEST_KEY}` }));
      const refused = await post(ctx, { query: 'hi' });
      assert.equal(refused.response.status, 502);
      ctx.upstream.behave(answer());
    },
  ],
  [
    'ends a stream that fails midway with data: [ERROR]',
    async (ctx) => {
      ctx.upstream.behave(failMidStream());
      const { response, text } = await post(ctx, { query: 'hi', streaming: true });
      ctx.upstream.behave(answer());
      assert.equal(response.status, 200);
      assert.match(text, /data: \[ERROR\]UPSTREAM_ERROR\n\n$/);
    },
  ],
  [
    'cancels the upstream request when the visitor disconnects',
    async (ctx) => {
      // A service still writing its answer, as a model does; some runtimes notice a gone visitor only on the next write.
      ctx.upstream.behave(endlessStream());
      const controller = new AbortController();
      const response = await fetch(ctx.url + PATH, { method: 'POST', signal: controller.signal, headers: jsonHeaders, body: JSON.stringify({ query: 'hi', streaming: true }) });
      const reader = response.body!.getReader();
      await reader.read();
      const seen = ctx.upstream.requests.at(-1)!;
      controller.abort();
      try {
        await ctx.upstream.waitFor(() => seen.closedEarly, 5000);
      } finally {
        ctx.upstream.behave(answer());
      }
    },
  ],
  [
    'limits requests per visitorId with 429 and Retry-After',
    async (ctx) => {
      const visitorId = `limit-${Math.random().toString(36).slice(2)}`;
      assert.equal((await post(ctx, { query: 'hi', visitorId })).response.status, 200);
      assert.equal((await post(ctx, { query: 'hi', visitorId })).response.status, 200);
      const limited = await post(ctx, { query: 'hi', visitorId });
      assert.equal(limited.response.status, 429);
      assert.ok(Number(limited.response.headers.get('retry-after')) > 0);
    },
  ],
];

/** The environment for the sessions' conformance: the same, with visitor sessions on (cheap work, 3 questions a session). */
export function sessionConformanceEnv(upstreamUrl: string): Record<string, string> {
  return {
    ...conformanceEnv(upstreamUrl),
    KAGENT_RATE_LIMIT_PER_VISITOR: 'off',
    KAGENT_SESSION_SECRET: SESSION_SECRET,
    KAGENT_SESSION_DIFFICULTY: TEST_DIFFICULTY,
    KAGENT_RATE_LIMIT_PER_SESSION: '3/minute',
  };
}

async function sessionAsk(ctx: Context, token: string | undefined, body: unknown = { query: 'hi' }): Promise<{ status: number; code: string | undefined; left: string | null }> {
  const { response, text } = await post(ctx, body, { headers: token === undefined ? jsonHeaders : withSession(token) });
  assertNoSecret(text);
  return { status: response.status, code: (JSON.parse(text) as { error?: { code?: string } }).error?.code, left: response.headers.get(QUESTIONS_LEFT_HEADER) };
}

function assertNoSecret(text: string): void {
  assert.ok(!text.includes(SESSION_SECRET) && !text.includes(encodeURIComponent(SESSION_SECRET)), 'the session secret leaked');
}

/** The rules of visitor sessions every runtime entry must keep. */
export const SESSION_CONFORMANCE: [name: string, run: (ctx: Context) => Promise<void>][] = [
  [
    'a page earns a session by proof of work and its question reaches the service, with the questions left',
    async (ctx) => {
      const before = ctx.upstream.requests.length;
      const { grant } = await earnSession(ctx.url);
      const asked = await sessionAsk(ctx, grant.token);
      assert.deepEqual(asked, { status: 200, code: undefined, left: '2' });
      assert.equal(ctx.upstream.requests.length, before + 1);
    },
  ],
  [
    'a query without a token, or with a tampered one, is refused with its code and never reaches the service',
    async (ctx) => {
      const before = ctx.upstream.requests.length;
      const { grant } = await earnSession(ctx.url);
      assert.equal((await sessionAsk(ctx, undefined)).code, SESSION_ERROR_CODES.required);
      assert.equal((await sessionAsk(ctx, grant.token.replace(/.(.{10})$/, (_, rest: string) => (grant.token.at(-11) === 'A' ? 'B' : 'A') + rest))).code, SESSION_ERROR_CODES.invalid);
      assert.equal(ctx.upstream.requests.length, before);
    },
  ],
  [
    'a solution is accepted once',
    async (ctx) => {
      const { challenge, solutions } = await earnSession(ctx.url);
      const again = await mint(ctx.url, { challenges: challenge.challenges, solutions });
      assert.equal(again.response.status, 409);
      assert.equal(again.body.error?.code, SESSION_ERROR_CODES.challengeReplayed);
    },
  ],
  [
    "a session's questions are counted whatever visitorId says",
    async (ctx) => {
      const { grant } = await earnSession(ctx.url);
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await sessionAsk(ctx, grant.token, { query: 'hi', visitorId: `v-${i}` })).code ?? 'ok');
      assert.deepEqual(codes, ['ok', 'ok', 'ok', SESSION_ERROR_CODES.limited]);
    },
  ],
  [
    'the preflight lets a page send the session header',
    async (ctx) => {
      const response = await fetch(ctx.url + PATH, { method: 'OPTIONS', headers: { origin: SITE, 'access-control-request-method': 'POST', 'access-control-request-headers': `content-type, ${SESSION_HEADER.toLowerCase()}` } });
      await response.arrayBuffer();
      assert.equal(response.status, 204);
      assert.match(response.headers.get('access-control-allow-headers') ?? '', new RegExp(SESSION_HEADER, 'i'));
    },
  ],
];
