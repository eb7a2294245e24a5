import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRateLimitStore, RedisRateLimitStore, createProxy } from '../../src/proxy/index.js';
import { StoreFullError } from '../../src/proxy/stores/store.js';
import { addressKey, clientAddress } from '../../src/proxy/core/client-address.js';
import { connectRedisRateLimitStore } from '../../src/proxy/stores/redis-node.js';
import { AGENT, SITE, TEST_KEY, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { reply } from '../support/proxy-upstream.js';
import { hasRedisServer, startRedis, type TestRedis } from '../support/proxy-redis.js';

const PATH = `/agents/${AGENT}/query`;
const FORGET = { whenFull: 'forget' } as const;
const UNDER_WAY = { whenFull: 'reserve' } as const;
const ask = (h: ProxyHarness, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) => h.send(PATH, { json: { query: 'hi', ...body }, headers });

describe('proxy rate limits', () => {
  test('per client address: 429 with Retry-After once the window is used up, upstream untouched', async () => {
    const h = await startProxyHarness({ perAddressLimit: { max: 3, windowSeconds: 60 }, perVisitorLimit: false });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await ask(h)).response.status, 200);
      const { response, text } = await ask(h);
      assert.equal(response.status, 429);
      const wait = Number(response.headers.get('retry-after'));
      assert.ok(wait >= 59 && wait <= 60, String(wait));
      assert.equal(JSON.parse(text).error.code, 'RATE_LIMITED');
      assert.equal(response.headers.get('access-control-allow-origin'), SITE);
      assert.equal(h.upstream.requests.length, 3);
    } finally {
      await h.close();
    }
  });

  test('X-Forwarded-For is ignored unless trusted hops are configured', async () => {
    const h = await startProxyHarness({ perAddressLimit: { max: 1, windowSeconds: 60 }, perVisitorLimit: false });
    try {
      assert.equal((await ask(h, {}, { 'x-forwarded-for': '203.0.113.1' })).response.status, 200);
      // A forged header does not buy a fresh window.
      assert.equal((await ask(h, {}, { 'x-forwarded-for': '203.0.113.2' })).response.status, 429);
    } finally {
      await h.close();
    }
  });

  test('with one trusted hop, the address it appended is counted, not what the visitor wrote before it', async () => {
    const h = await startProxyHarness({ perAddressLimit: { max: 1, windowSeconds: 60 }, perVisitorLimit: false, trustedProxyHops: 1 });
    try {
      assert.equal((await ask(h, {}, { 'x-forwarded-for': '198.51.100.7, 203.0.113.1' })).response.status, 200);
      assert.equal((await ask(h, {}, { 'x-forwarded-for': '198.51.100.8, 203.0.113.1' })).response.status, 429);
      assert.equal((await ask(h, {}, { 'x-forwarded-for': '203.0.113.2' })).response.status, 200);
    } finally {
      await h.close();
    }
  });

  test('per visitorId, independently of the address', async () => {
    const h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: { max: 2, windowSeconds: 30 } });
    try {
      assert.equal((await ask(h, { visitorId: 'v1' })).response.status, 200);
      assert.equal((await ask(h, { visitorId: 'v1' })).response.status, 200);
      const limited = await ask(h, { visitorId: 'v1' });
      assert.equal(limited.response.status, 429);
      assert.ok(Number(limited.response.headers.get('retry-after')) <= 30);
      assert.equal((await ask(h, { visitorId: 'v2' })).response.status, 200);
      assert.equal(h.upstream.requests.length, 3);
    } finally {
      await h.close();
    }
  });

  test('a global daily budget, which refused requests do not use', async () => {
    const h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: { max: 1, windowSeconds: 60 }, dailyBudget: 2 });
    try {
      assert.equal((await ask(h, { visitorId: 'a' })).response.status, 200);
      assert.equal((await ask(h, { visitorId: 'a' })).response.status, 429);
      assert.equal((await ask(h, { query: '' })).response.status, 400);
      assert.equal((await ask(h, { visitorId: 'b' })).response.status, 200);
      const spent = await ask(h, { visitorId: 'c' });
      assert.equal(spent.response.status, 429);
      const wait = Number(spent.response.headers.get('retry-after'));
      const now = new Date();
      const untilMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
      assert.ok(Math.abs(wait - untilMidnight) <= 2, `${wait} vs ${untilMidnight}`);
      assert.match(JSON.parse(spent.text).error.message, /come back tomorrow/);
      assert.equal(h.upstream.requests.length, 2);
    } finally {
      await h.close();
    }
  });

  test('a 429 from the upstream is passed on with its Retry-After', async () => {
    const h = await startProxyHarness();
    try {
      h.upstream.behave(reply(429, { error: { code: 'RATE_LIMITED', message: 'Plan limit: 60 requests per minute' } }, { 'Retry-After': '42' }));
      const { response, text } = await ask(h);
      assert.equal(response.status, 429);
      assert.equal(response.headers.get('retry-after'), '42');
      assert.equal(JSON.parse(text).error.message, 'Plan limit: 60 requests per minute');
    } finally {
      await h.close();
    }
  });

  test('a store that fails refuses with 503 rather than letting requests through unchecked', async () => {
    const logs: string[] = [];
    const proxy = createProxy({
      apiKey: TEST_KEY,
      upstreamUrl: 'http://127.0.0.1:9',
      agentIds: [AGENT],
      allowedOrigins: [SITE],
      rateLimitStore: { hit: async () => Promise.reject(new Error('store down')) },
      log: (e) => logs.push(e.message),
    });
    const response = await proxy(new Request(`http://proxy${PATH}`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"query":"hi"}' }), { clientAddress: '192.0.2.1' });
    assert.equal(response.status, 503);
    assert.ok(response.headers.get('retry-after'));
    assert.ok(logs.some((m) => /rate limits cannot be checked/.test(m)));
  });
});

describe('client addresses', () => {
  test('normalise IPv4, mapped IPv4 and ports; IPv6 counts per /64', () => {
    assert.equal(addressKey('203.0.113.9'), '203.0.113.9');
    assert.equal(addressKey('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(addressKey('203.0.113.9:5123'), '203.0.113.9');
    assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('[2001:db8:1:2:bbbb::2]:443'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.equal(addressKey('999.1.1.1'), undefined);
    assert.equal(addressKey('not an address'), undefined);
    assert.equal(addressKey('<script>'), undefined);
  });

  test('read X-Forwarded-For from the right, trusted hops only', () => {
    const headers = new Headers({ 'x-forwarded-for': 'forged, 198.51.100.1, 203.0.113.5' });
    assert.equal(clientAddress(headers, '10.0.0.1', 0), '10.0.0.1');
    assert.equal(clientAddress(headers, '10.0.0.1', 1), '203.0.113.5');
    assert.equal(clientAddress(headers, '10.0.0.1', 2), '198.51.100.1');
    assert.equal(clientAddress(new Headers(), '10.0.0.1', 1), '10.0.0.1');
  });
});

describe('memory rate-limit store', () => {
  test('counts per key in fixed windows and starts over when a window ends', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore({ now: () => now });
    assert.deepEqual(await store.hit('a', 1000), { count: 1, resetInMs: 1000 });
    now += 400;
    assert.deepEqual(await store.hit('a', 1000), { count: 2, resetInMs: 600 });
    assert.deepEqual(await store.hit('b', 1000), { count: 1, resetInMs: 1000 });
    now += 600;
    assert.deepEqual(await store.hit('a', 1000), { count: 1, resetInMs: 1000 });
  });

  test('holds at most maxKeys counts under a flood of addresses, dropping the oldest forgettable ones', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 100 });
    for (let i = 0; i < 1000; i++) await store.hit(`address:${i}`, 60_000, FORGET);
    assert.equal(store.size, 100);
    assert.equal((await store.hit('address:999', 60_000, FORGET)).count, 2, 'the newest are kept');
    assert.equal((await store.hit('address:0', 60_000, FORGET)).count, 1, 'the oldest went first');
  });

  test('when full, a count that must be kept is never dropped: forgettable ones make room, new kept ones are refused at 80%, the rest is held for what is under way', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore({ maxKeys: 10, now: () => now });
    const logs: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    store.watch((level, message, fields) => logs.push({ level, message, fields }));
    for (let i = 0; i < 5; i++) await store.hit(`address:${i}`, 60_000, FORGET);
    for (let i = 0; i < 8; i++) await store.hit(`challenge-spent:${i}`, 600_000);
    assert.equal(store.size, 10, 'three address counts made room for kept ones');
    await assert.rejects(store.hit('challenge-spent:new', 600_000), (error: unknown) => error instanceof StoreFullError && error.held === 10);
    // What is under way goes on, in the room held back, taken from the forgettable counts.
    await store.hit('session:a', 600_000, UNDER_WAY);
    await store.hit('session-stream:short', 30_000, UNDER_WAY);
    await assert.rejects(store.hit('session:b', 600_000, UNDER_WAY), StoreFullError, 'the held-back room is used up too');
    for (let i = 0; i < 8; i++) assert.equal((await store.hit(`challenge-spent:${i}`, 600_000)).count, 2, `kept count ${i} still counts`);
    assert.equal((await store.hit('session:a', 600_000, UNDER_WAY)).count, 2);
    assert.deepEqual(await store.hit('address:new', 60_000, FORGET), { count: 1, resetInMs: 60_000 }, 'a forgettable count with no room goes uncounted rather than refused');
    assert.equal(store.size, 10);

    const full = () => logs.filter((entry) => entry.level === 'error');
    assert.equal(full().length, 1, 'said once');
    assert.match(full()[0]!.message, /memory store is full: 8 counts held that must be kept until they expire; new sessions are refused/);
    assert.equal(full()[0]!.fields?.held, 10);
    // Refused again within the minute: not said again; after it, said with the count since.
    for (let i = 0; i < 3; i++) await assert.rejects(store.hit(`challenge-spent:more${i}`, 600_000), StoreFullError);
    assert.equal(full().length, 1);
    now += 30_000;
    // The short window ended, so there is room again for what is under way.
    assert.equal((await store.hit('session:b', 600_000, UNDER_WAY)).count, 1);
    now += 30_000;
    await assert.rejects(store.hit('challenge-spent:last', 600_000), StoreFullError);
    const again = full();
    assert.equal(again.length, 2);
    assert.equal(again[1]!.fields?.refused, 5, 'the four refused in the minute and this one');
  });

  test('an ended window frees its room', async () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ maxKeys: 2, now: () => now });
    await store.hit('session:a', 1000, UNDER_WAY);
    await store.hit('session:b', 5000, UNDER_WAY);
    now = 1000;
    assert.equal((await store.hit('session:c', 1000, UNDER_WAY)).count, 1);
    assert.equal((await store.hit('session:b', 5000, UNDER_WAY)).count, 2, 'the live count stayed');
  });
});

describe('Redis rate-limit store', { skip: hasRedisServer() ? false : 'redis-server is not installed here (.ci/run installs it; locally: apt-get install redis-server)' }, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.stop());

  test('counts atomically across concurrent hits and expires the window', async () => {
    const store = await connectRedisRateLimitStore(redis.url, { prefix: `t1-${Date.now()}:` });
    try {
      // A window long enough that the 20 hits land in it on a busy machine; then wait as long as Redis says it lasts.
      const counts = await Promise.all(Array.from({ length: 20 }, () => store.hit('k', 2000)));
      assert.deepEqual(counts.map((c) => c.count).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
      assert.ok(counts.every((c) => c.resetInMs > 0 && c.resetInMs <= 2000));
      await new Promise((resolve) => setTimeout(resolve, Math.max(...counts.map((c) => c.resetInMs)) + 50));
      assert.equal((await store.hit('k', 2000)).count, 1);
    } finally {
      await store.close();
    }
  });

  test('two proxies sharing one Redis share one limit', async () => {
    const prefix = `t2-${Date.now()}:`;
    const storeA = await connectRedisRateLimitStore(redis.url, { prefix });
    const storeB = await connectRedisRateLimitStore(redis.url, { prefix });
    const a = await startProxyHarness({ rateLimitStore: storeA, perAddressLimit: { max: 3, windowSeconds: 60 }, perVisitorLimit: false });
    const b = await startProxyHarness({ rateLimitStore: storeB, perAddressLimit: { max: 3, windowSeconds: 60 }, perVisitorLimit: false });
    try {
      assert.equal((await ask(a)).response.status, 200);
      assert.equal((await ask(b)).response.status, 200);
      assert.equal((await ask(a)).response.status, 200);
      const fourth = await ask(b);
      assert.equal(fourth.response.status, 429);
      assert.ok(Number(fourth.response.headers.get('retry-after')) > 0);
      assert.equal(a.upstream.requests.length + b.upstream.requests.length, 3);
    } finally {
      await a.close();
      await b.close();
      await storeA.close();
      await storeB.close();
    }
  });

  test('when Redis goes away, requests are refused with 503 until it is back', async () => {
    const own = await startRedis();
    let again: TestRedis | undefined;
    const store = await connectRedisRateLimitStore(own.url, { prefix: 't3:' });
    const h = await startProxyHarness({ rateLimitStore: store });
    try {
      assert.equal((await ask(h)).response.status, 200);
      await own.stop();
      const { response } = await ask(h);
      assert.equal(response.status, 503);
      assert.equal(h.upstream.requests.length, 1);
      again = await startRedis(own.port);
      const deadline = Date.now() + 8000;
      let status = 0;
      while (Date.now() < deadline && (status = (await ask(h)).response.status) !== 200) await new Promise((r) => setTimeout(r, 100));
      assert.equal(status, 200, 'the proxy did not recover once Redis was back');
    } finally {
      await h.close();
      await store.close().catch(() => {});
      await again?.stop();
    }
  });

  test('an unreachable Redis is a clear error at start-up', async () => {
    await assert.rejects(connectRedisRateLimitStore('redis://127.0.0.1:9'), /Cannot reach Redis at redis:\/\/127\.0\.0\.1:9/);
  });

  test('works with any client through its eval function', async () => {
    const calls: unknown[][] = [];
    const store = new RedisRateLimitStore({
      eval: async (script, keys, args) => {
        calls.push([keys, args]);
        assert.match(script, /INCR/);
        return [1, 5000];
      },
    });
    assert.deepEqual(await store.hit('address:1', 5000), { count: 1, resetInMs: 5000 });
    assert.deepEqual(calls, [[['kagent-proxy:address:1'], ['5000']]]);
  });
});
