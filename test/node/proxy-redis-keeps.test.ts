// A Redis that forgets is seen (against a real redis-server started here on a free
// port): at start and on every reconnect the proxy checks the eviction policy,
// persistence and a marker key of its own, and warns with the fix; where CONFIG is
// refused it says what it could not check; a Redis that keeps its data is silent.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import { RedisRateLimitStore, createProxy, type ProxyLogEntry } from '../../src/proxy/index.js';
import { connectRedisRateLimitStore } from '../../src/proxy/stores/redis-node.js';
import type { RateLimitStore } from '../../src/proxy/stores/store.js';
import { AGENT, SITE, TEST_KEY } from '../support/proxy-harness.js';
import { hasRedisServer, startRedis, type TestRedis } from '../support/proxy-redis.js';

/** A proxy on `store` whose log entries can be awaited as they come. */
function watchedProxy(store: RateLimitStore) {
  const entries: ProxyLogEntry[] = [];
  const waiting: { match: (entry: ProxyLogEntry) => boolean; resolve: (entry: ProxyLogEntry) => void }[] = [];
  const proxy = createProxy({
    apiKey: TEST_KEY,
    upstreamUrl: 'http://127.0.0.1:9',
    agentIds: [AGENT],
    allowedOrigins: [SITE],
    rateLimitStore: store,
    log: (entry) => {
      entries.push(entry);
      for (const wait of [...waiting]) if (wait.match(entry)) waiting.splice(waiting.indexOf(wait), 1) && wait.resolve(entry);
    },
  });
  return {
    proxy,
    entries,
    warnings: () => entries.filter((entry) => entry.level !== 'info').map((entry) => entry.message),
    /** The first entry from now on whose message matches. */
    next: (pattern: RegExp) => new Promise<ProxyLogEntry>((resolve) => waiting.push({ match: (entry) => pattern.test(entry.message), resolve })),
  };
}

/** The line that ends each check: the marker key found, set, or lost. */
const MARKER_LINE = /Redis holds the proxy's counts|Redis held no marker key|Redis lost the proxy's counts/;

describe('Redis that forgets is seen', { skip: hasRedisServer() ? false : 'redis-server is not installed here (.ci/run installs it; locally: apt-get install redis-server)' }, () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'kagent-redis-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const persistent = () => ['--appendonly', 'yes', '--dir', dataDir()];

  /** A proxy connected to `redis` the way kagent-proxy connects, with its start-up check awaited. */
  async function started(redis: TestRedis) {
    const store = await connectRedisRateLimitStore(redis.url);
    const watched = watchedProxy(store);
    // The start-up check began with the proxy; its last line may already be in.
    if (!watched.entries.some((entry) => MARKER_LINE.test(entry.message))) await watched.next(MARKER_LINE);
    return { ...watched, store };
  }

  test('an eviction policy other than noeviction is warned of, with the redis.conf line and the command that fix it', async () => {
    const redis = await startRedis(undefined, { args: [...persistent(), '--maxmemory-policy', 'allkeys-lru'] });
    const { store, warnings } = await started(redis);
    try {
      assert.equal(warnings().length, 1, warnings().join('\n'));
      assert.match(warnings()[0]!, /Redis evicts keys when its memory is full \(maxmemory-policy allkeys-lru\)/);
      assert.match(warnings()[0]!, /"maxmemory-policy noeviction" in redis\.conf, or CONFIG SET maxmemory-policy noeviction then CONFIG REWRITE/);
    } finally {
      await store.close();
      await redis.stop();
    }
  });

  test('persistence off (save "" and appendonly no) is warned of, with the fix', async () => {
    const redis = await startRedis();
    const { store, warnings } = await started(redis);
    try {
      assert.equal(warnings().length, 1, warnings().join('\n'));
      assert.match(warnings()[0]!, /Redis keeps nothing on disk \(save "", appendonly no\): a restart empties it, so daily budgets, session counts and mint limits start over and used challenge solutions are accepted again/);
      assert.match(warnings()[0]!, /"appendonly yes" and "appendfsync everysec" in redis\.conf, or CONFIG SET appendonly yes then CONFIG REWRITE/);
    } finally {
      await store.close();
      await redis.stop();
    }
  });

  test('a restart that loses the marker key is warned of when the proxy reconnects', async () => {
    const redis = await startRedis();
    let again: TestRedis | undefined;
    const { store, next, entries } = await started(redis);
    try {
      assert.ok(entries.some((entry) => /Redis held no marker key/.test(entry.message)), 'the first start on this Redis sets the marker');
      const lost = next(MARKER_LINE);
      await redis.stop();
      again = await startRedis(redis.port);
      const entry = await lost;
      assert.equal(entry.level, 'warn');
      assert.match(entry.message, /Redis lost the proxy's counts: the marker key set \S+ is gone \(Redis restarted without persistence, was flushed, or evicted keys\)\. Daily budgets, session counts and mint limits started over, and used challenge solutions are accepted again/);
    } finally {
      await store.close();
      await (again ?? redis).stop();
    }
  });

  test('a Redis that keeps its data (noeviction, appendonly yes) is silent, through a restart too', async () => {
    const args = persistent();
    const redis = await startRedis(undefined, { args });
    let again: TestRedis | undefined;
    const { store, next, warnings, proxy } = await started(redis);
    try {
      const response = await proxy(new Request(`http://proxy/agents/${AGENT}/query`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"query":""}' }), { clientAddress: '192.0.2.1' });
      assert.equal(response.status, 400, 'the store counts as usual');
      const kept = next(MARKER_LINE);
      await redis.stop();
      again = await startRedis(redis.port, { args });
      assert.match((await kept).message, /Redis holds the proxy's counts, kept since \d{4}-/);
      assert.deepEqual(warnings(), []);
    } finally {
      await store.close();
      await (again ?? redis).stop();
    }
  });

  test('where CONFIG is refused (as managed Redis does), it says what it could not check, and goes on', async () => {
    const redis = await startRedis(undefined, { args: ['--rename-command', 'CONFIG', ''] });
    const { store, entries, warnings } = await started(redis);
    try {
      assert.deepEqual(warnings(), []);
      const told = entries.find((entry) => /could not check/.test(entry.message));
      assert.ok(told, 'it says what it could not check');
      assert.match(told.message, /could not check that Redis never evicts keys and keeps them on disk: CONFIG GET was refused \(.*unknown command.*\)/i);
      assert.match(told.message, /maxmemory-policy noeviction, appendonly yes/);
    } finally {
      await store.close();
      await redis.stop();
    }
  });

  test('a client with only eval (the Upstash shape) checks the marker at its first hit and says it could not check the settings', async () => {
    const redis = await startRedis();
    const client = createClient({ url: redis.url });
    await client.connect();
    const store = new RedisRateLimitStore({ eval: (script, keys, args) => client.eval(script, { keys, arguments: args }), prefix: 'eval-only:' });
    const { proxy, entries, warnings, next } = watchedProxy(store);
    try {
      const marker = next(MARKER_LINE);
      await proxy(new Request(`http://proxy/agents/${AGENT}/query`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"query":""}' }), { clientAddress: '192.0.2.1' });
      assert.match((await marker).message, /Redis held no marker key/);
      assert.ok(entries.some((entry) => /could not check .*this Redis client gives the store no CONFIG GET/.test(entry.message)));
      assert.equal(await client.get('eval-only:store-marker') !== null, true, 'the marker is set');
      assert.deepEqual(warnings(), []);
    } finally {
      await client.close();
      await redis.stop();
    }
  });
});
