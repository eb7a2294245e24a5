import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { QUESTION_ID_HEADER, isQuestionId } from '../../src/protocol/index.js';
import { MemoryRateLimitStore, RedisRateLimitStore, proxyOptionsFromEnv, type ProxyOptions, type RateLimitStore } from '../../src/proxy/index.js';
import { checkProxyOptions } from '../../src/proxy/core/index.js';
import { AGENT, SITE, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { ADMIN_TOKEN, readReport, reportWhen } from '../support/proxy-insights.js';
import { reply } from '../support/proxy-upstream.js';
import { hasRedisServer, startRedis, type TestRedis } from '../support/proxy-redis.js';
import { connectRedisRateLimitStore } from '../../src/proxy/stores/redis-node.js';
import { startUpstashOnRedis } from '../support/upstash-on-redis.js';
import { Redis as UpstashStandIn } from '../support/upstash-stand-in.js';

const ask = (h: ProxyHarness, query: string, headers: Record<string, string> = {}) => h.send(`/agents/${AGENT}/query`, { json: { query, streaming: true }, headers });
const pick = ({ insights, insightsDays, adminToken }: ProxyOptions) => ({ insights, insightsDays, adminToken });
const feedback = (h: ProxyHarness, body: unknown, headers: Record<string, string> = {}) => h.send('/feedback', { json: body, headers });

describe('insights on (memory store)', () => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness({ insights: true, adminToken: ADMIN_TOKEN, perAddressLimit: false });
  });
  after(() => h.close());

  test('records a streamed question with its sources, timings and opening, and names it to the page in a header it may read', async () => {
    const { response } = await ask(h, 'How do I reset my password?');
    assert.equal(response.status, 200);
    const id = response.headers.get(QUESTION_ID_HEADER);
    assert.ok(isQuestionId(id), `a question id: ${id}`);
    assert.match(response.headers.get('access-control-expose-headers') ?? '', new RegExp(QUESTION_ID_HEADER));
    const report = await reportWhen(h.url, (r) => r.totals.questions >= 1);
    const record = report.slowest.find((r) => r.id === id)!;
    assert.equal(record.question, 'How do I reset my password?');
    assert.equal(record.agent, AGENT);
    assert.deepEqual(record.outcome, { kind: 'answered', sources: 1 });
    assert.deepEqual(record.sources, ['Guide.pdf']);
    assert.equal(record.opening, 'Hello, world!\n\n- 100% ✓ 🎉');
    assert.ok(record.firstByteMs! >= 0 && record.totalMs! >= record.firstByteMs!);
    assert.match(record.visitor, /^[0-9a-f]{32}$/);
    // Never the address, in any form.
    assert.doesNotMatch(JSON.stringify(report), /127\.0\.0\.1|::1/);
  });

  test('a thumbs down with a comment shows in the report with the answer; a second feedback replaces the first', async () => {
    const { response } = await ask(h, 'Where is the price list?');
    const questionId = response.headers.get(QUESTION_ID_HEADER)!;
    assert.equal((await feedback(h, { questionId, rating: 'up' })).response.status, 204);
    const down = await feedback(h, { questionId, rating: 'down', comment: 'No prices at all' });
    assert.equal(down.response.status, 204);
    assert.equal(down.response.headers.get('access-control-allow-origin'), SITE);
    const report = await reportWhen(h.url, (r) => r.thumbsDown.some((q) => q.id === questionId));
    const record = report.thumbsDown.find((q) => q.id === questionId)!;
    assert.deepEqual({ rating: record.feedback!.rating, comment: record.feedback!.comment }, { rating: 'down', comment: 'No prices at all' });
    assert.equal(record.opening.slice(0, 5), 'Hello');
    assert.deepEqual(record.sources, ['Guide.pdf']);
    assert.equal(report.slowest.filter((q) => q.id === questionId && q.feedback?.rating === 'up').length, 0, 'one feedback per question and visitor: the last');
  });

  test('refuses a feedback with a wrong body (every field named), from another origin, or of another method', async () => {
    const bad = await feedback(h, { questionId: 'nope', rating: 'meh', comment: 'x'.repeat(501) });
    assert.equal(bad.response.status, 400);
    assert.match(bad.text, /questionId.*rating.*comment/);
    const foreign = await feedback(h, { questionId: 'AAAAAAAAAAAAAAAAAAAAAA', rating: 'up' }, { origin: 'https://evil.example' });
    assert.equal(foreign.response.status, 403);
    assert.equal((await h.send('/feedback', { method: 'GET' })).response.status, 405);
  });

  test('records refusals and questions answered with no source', async () => {
    h.upstream.behave(reply(429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }));
    const refused = await ask(h, 'Refuse me');
    assert.equal(refused.response.status, 429);
    h.upstream.behave(reply(200, { answer: 'I do not know.', conversationId: 'c', visitorId: 'v', sources: [] }, { 'content-type': 'application/json' }));
    const none = await h.send(`/agents/${AGENT}/query`, { json: { query: 'What is the meaning of life?' } });
    assert.equal(none.response.status, 200);
    const report = await reportWhen(h.url, (r) => r.noSource.some((q) => q.question === 'What is the meaning of life?') && r.totals.refused >= 1);
    assert.equal(report.noSource[0]!.opening, 'I do not know.');
    assert.ok(report.totals.refused >= 1);
  });

  test('the report needs the admin token, compared whole, and is never served with CORS', async () => {
    const none = await fetch(`${h.url}/insights`, { headers: { origin: SITE } });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('access-control-allow-origin'), null);
    await assert.rejects(readReport(h.url, ADMIN_TOKEN.slice(0, -1)), /401/);
    await assert.rejects(readReport(h.url, ADMIN_TOKEN + 'x'), /401/);
    const good = await fetch(`${h.url}/insights`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, origin: SITE } });
    assert.equal(good.status, 200);
    assert.equal(good.headers.get('access-control-allow-origin'), null);
  });

  test('groups near-duplicate questions among the most asked; DELETE forgets one visitor, then everything', async () => {
    for (const q of ['How do I reset my password?', 'how do i reset my passwords', 'Reset password?']) await ask(h, q);
    const report = await reportWhen(h.url, (r) => r.mostAsked[0]?.count! >= 4);
    assert.equal(report.mostAsked[0]!.question, 'How do I reset my password?');
    assert.ok(report.mostAsked[0]!.variants >= 3);
    const visitor = report.slowest[0]!.visitor;
    const one = await fetch(`${h.url}/insights?visitor=${visitor}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(one.status, 200);
    assert.ok((await one.json()).deleted >= 4);
    const after = await readReport(h.url);
    assert.ok(after.slowest.every((r) => r.visitor !== visitor));
    const all = await fetch(`${h.url}/insights`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(all.status, 200);
    assert.equal((await readReport(h.url)).totals.questions, 0);
  });
});

describe('insights off, or without a token', () => {
  test('no question id, no feedback route, features say no feedback; no report route without a token', async () => {
    const off = await startProxyHarness();
    const noToken = await startProxyHarness({ insights: true });
    try {
      const { response } = await ask(off, 'hi');
      assert.equal(response.headers.get(QUESTION_ID_HEADER), null);
      assert.equal((await feedback(off, { questionId: 'AAAAAAAAAAAAAAAAAAAAAA', rating: 'up' })).response.status, 404);
      assert.equal((await fetch(`${off.url}/insights`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 404);
      assert.deepEqual(await (await fetch(`${off.url}/features`, { headers: { origin: SITE } })).json(), { sessions: false, feedback: false });
      assert.deepEqual(await (await fetch(`${noToken.url}/features`, { headers: { origin: SITE } })).json(), { sessions: false, feedback: true });
      assert.equal((await fetch(`${noToken.url}/insights`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 404);
    } finally {
      await off.close();
      await noToken.close();
    }
  });

  test('a short or repetitive admin token is refused at start-up', () => {
    const options = { apiKey: 'sk_test_key', upstreamUrl: 'http://127.0.0.1:9', agentIds: [AGENT], insights: true };
    assert.throws(() => checkProxyOptions({ ...options, adminToken: 'short' }), /adminToken \(KAGENT_ADMIN_TOKEN\) must be at least 32/);
    assert.throws(() => checkProxyOptions({ ...options, adminToken: 'ab'.repeat(20) }), /must be random/);
    assert.throws(() => proxyOptionsFromEnv({ KAGENT_INSIGHTS: 'maybe' }), /KAGENT_INSIGHTS must be on or off/);
    assert.deepEqual(pick(proxyOptionsFromEnv({ KAGENT_INSIGHTS: 'on', KAGENT_INSIGHTS_DAYS: '7', KAGENT_ADMIN_TOKEN: ADMIN_TOKEN })), { insights: true, insightsDays: 7, adminToken: ADMIN_TOKEN });
  });
});

describe('a store that fails while recording', () => {
  test('never fails the answer: the record is dropped, counted and logged', async () => {
    const memory = new MemoryRateLimitStore();
    let failing = false;
    const store: RateLimitStore = {
      hit: (key, ms) => memory.hit(key, ms),
      release: (key) => memory.release(key),
      append: (key, value, ttl) => (failing ? Promise.reject(new Error('store down')) : memory.append(key, value, ttl)),
      list: (key) => memory.list(key),
      remove: (key, values) => memory.remove(key, values),
    };
    const h = await startProxyHarness({ insights: true, adminToken: ADMIN_TOKEN, rateLimitStore: store });
    try {
      failing = true;
      const { response, text } = await ask(h, 'Still answered?');
      assert.equal(response.status, 200);
      assert.match(text, /\[DONE\]/);
      const report = await reportWhen(h.url, (r) => r.totals.dropped === 1);
      assert.equal(report.totals.questions, 0);
      assert.ok(h.logs.some((entry) => /could not be recorded/.test(entry.message)));
    } finally {
      await h.close();
    }
  });
});

describe('insights in a real Redis', { skip: hasRedisServer() ? false : 'redis-server is not installed here (.ci/run installs it; locally: apt-get install redis-server)' }, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());

  test('two proxies on one Redis share the records, the feedback and the forgetting; the lists expire', async () => {
    const stores = [await connectRedisRateLimitStore(redis.url), await connectRedisRateLimitStore(redis.url)];
    const [a, b] = await Promise.all(stores.map((rateLimitStore) => startProxyHarness({ insights: true, insightsDays: 3, adminToken: ADMIN_TOKEN, rateLimitStore })));
    try {
      const { response } = await ask(a!, 'Asked on the first instance');
      const questionId = response.headers.get(QUESTION_ID_HEADER)!;
      assert.equal((await feedback(b!, { questionId, rating: 'down', comment: 'told the second' })).response.status, 204);
      const report = await reportWhen(b!.url, (r) => r.thumbsDown.some((q) => q.id === questionId));
      assert.equal(report.thumbsDown[0]!.feedback!.comment, 'told the second');
      assert.deepEqual(report.thumbsDown[0]!.sources, ['Guide.pdf']);
      assert.equal(report.perDay.length, 3);
      // Kept by expiry in Redis: to the end of the day, then KAGENT_INSIGHTS_DAYS more.
      const ttl = Number(await redisCommand(redis, ['PTTL', `kagent-proxy:insights:${new Date().toISOString().slice(0, 10)}`]));
      assert.ok(ttl > 3 * 86_400_000 && ttl <= 4 * 86_400_000, `expires in ${ttl} ms`);
      const gone = await fetch(`${a!.url}/insights`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal((await gone.json()).deleted, 2);
      assert.equal((await readReport(b!.url)).totals.questions, 0);
    } finally {
      await a!.close();
      await b!.close();
      for (const store of stores) await store.close();
    }
  });
});

describe('a Redis or Upstash store that fails while recording', { skip: hasRedisServer() ? false : 'redis-server is not installed here (.ci/run installs it; locally: apt-get install redis-server)' }, () => {
  // Limits off: the store serves insights alone here, so a visitor's answer could only fail through recording.
  const noLimits = { perAddressLimit: false, perVisitorLimit: false, insights: true, adminToken: ADMIN_TOKEN } as const;

  /** Asks once Redis is up, stops it, asks again: both answered; the second record dropped, counted and logged; the report again once Redis is back. */
  async function recordsThroughAnOutage(store: RateLimitStore, redis: TestRedis): Promise<void> {
    let h = await startProxyHarness({ ...noLimits, rateLimitStore: store });
    try {
      const first = await ask(h, 'Asked while Redis is up');
      assert.equal(first.response.status, 200);
      await reportWhen(h.url, (r) => r.totals.questions === 1);
      await redis.stop();
      const { response, text } = await ask(h, 'Asked while Redis is down');
      assert.equal(response.status, 200);
      assert.match(text, /\[DONE\]/);
      assert.ok(response.headers.get(QUESTION_ID_HEADER));
      await logged(h, /questions could not be recorded \(the store failed\)/);
      const down = await fetch(`${h.url}/insights`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(down.status, 503, 'the report says the store cannot be read');
      const back = await startRedis(redis.port);
      try {
        await answers(`${h.url}/insights`, 200);
        // Redis came back empty (no persistence here): what is left to see is the count of records dropped.
        const report = await reportWhen(h.url, (r) => r.totals.dropped === 1);
        assert.equal(report.totals.questions, 0);
      } finally {
        await h.close();
        h = undefined!;
        await back.stop();
      }
    } finally {
      await h?.close();
    }
  }

  test('redis-server stopped mid-run: the visitor is answered, the record dropped and counted', async () => {
    const redis = await startRedis();
    const store = await connectRedisRateLimitStore(redis.url);
    try {
      await recordsThroughAnOutage(store, redis);
    } finally {
      await store.close();
      await redis.stop();
    }
  });

  test('the Upstash store (over its REST API) whose Redis stops mid-run: the visitor is answered, the record dropped and counted', async () => {
    const redis = await startRedis();
    const upstash = await startUpstashOnRedis(redis.url, 'upstash-token');
    const client = new UpstashStandIn({ url: upstash.url, token: 'upstash-token' });
    try {
      await recordsThroughAnOutage(new RedisRateLimitStore({ eval: (script, keys, args) => client.eval(script, keys, args) }), redis);
    } finally {
      await upstash.close();
      await redis.stop();
    }
  });
});

/** Waits until the report at `url` answers `status` (a client reconnecting to Redis; at most 10 s). */
async function answers(url: string, status: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status !== status) {
    if (Date.now() > deadline) throw new Error(`${url} never answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until the proxy has logged a line matching `pattern` (at most 10 s). */
async function logged(h: ProxyHarness, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!h.logs.some((entry) => pattern.test(entry.message))) {
    if (Date.now() > deadline) throw new Error(`never logged ${pattern}: ${h.logs.map((entry) => entry.message).join(' | ').slice(-800)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One command through redis-cli, for what the store itself does not show (a key's expiry). */
async function redisCommand(redis: TestRedis, args: string[]): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => execFile('redis-cli', ['-p', String(redis.port), ...args], (error, stdout) => (error ? reject(error) : resolve(stdout.trim()))));
}

describe('the report for people', () => {
  let h: ProxyHarness;
  const hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>\u001b[31mred';
  before(async () => {
    h = await startProxyHarness({ insights: true, adminToken: ADMIN_TOKEN });
    await ask(h, hostile);
    await reportWhen(h.url, (r) => r.totals.questions === 1);
  });
  after(() => h.close());

  test('?format=html is one page under a CSP that allows no script and no request, the question shown as text', async () => {
    const response = await fetch(`${h.url}/insights?format=html`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/);
    const html = await response.text();
    assert.match(html, /<svg role="img"/);
    assert.ok(html.includes('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;'), 'the question escaped');
    assert.doesNotMatch(html, /<script|<img|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  test('kagent-proxy insights --url --token prints it, with no control character of a visitor reaching the terminal', async () => {
    const { execFile } = await import('node:child_process');
    const run = (args: string[]) => new Promise<{ code: number; out: string }>((resolve) => execFile(process.execPath, ['--import', 'tsx', 'src/proxy/node/cli.ts', 'insights', ...args], (error, stdout) => resolve({ code: error ? Number(error.code) : 0, out: stdout })));
    const printed = await run(['--url', h.url, '--token', ADMIN_TOKEN]);
    assert.equal(printed.code, 0);
    assert.match(printed.out, /1 questions from 1 visitors/);
    assert.match(printed.out, /<img src=x onerror="alert\(1\)">/);
    assert.doesNotMatch(printed.out, /\u001b/);
    const refused = await run(['--url', h.url, '--token', 'x'.repeat(40)]);
    assert.equal(refused.code, 1);
    assert.match(refused.out, /answered 401/);
  });
});
