// The deployment recipes of docs/proxy.md are files under test/types/recipes,
// type-checked by `npm run typecheck`; this checks that the doc shows them as
// they are, and runs the Cloudflare one in workerd (Miniflare).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { build } from 'esbuild';
import { startEmulator } from '../fixtures/emulator/harness.js';
import { SESSION_ERROR_CODES, SESSION_HEADER } from '../../src/protocol/index.js';
import { SESSION_SECRET, TEST_DIFFICULTY, earnSession, mint } from '../support/proxy-sessions.js';

const root = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/proxy.md', root), 'utf8');
const recipes = ['cloudflare-worker.ts', 'vercel-function.ts'];

for (const name of recipes) {
  test(`docs/proxy.md shows test/types/recipes/${name} as it is`, () => {
    const code = readFileSync(new URL(`test/types/recipes/${name}`, root), 'utf8');
    assert.ok(doc.includes(`\`\`\`ts\n${code}\`\`\``), `no code block of docs/proxy.md equals ${name}`);
  });
}

/** Upstash's REST API in miniature: EVAL of the rate-limit store's scripts (INCR, then PTTL or PEXPIRE; DEL; the marker's GET, then SET) on counters kept here. */
async function startUpstashStandIn(token: string): Promise<{ server: Server; url: string; calls: string[]; released: string[]; markers: Map<string, string> }> {
  const counters = new Map<string, { count: number; expiresAt: number }>();
  const markers = new Map<string, string>();
  const calls: string[] = [];
  const released: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      calls.push(request.headers.authorization ?? '');
      if (request.headers.authorization !== `Bearer ${token}`) {
        response.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'Unauthorized' }));
        return;
      }
      const [command, script, , key, windowMs] = JSON.parse(body) as [string, string, number, string, string];
      assert.equal(command, 'EVAL');
      // The store's check that Redis still holds its counts: a marker key, set when missing.
      if (script.includes("'GET'")) {
        const kept = markers.get(key) ?? null;
        if (kept === null) markers.set(key, windowMs);
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ result: kept }));
        return;
      }
      // The store's other script lets go of a key (a session's answer under way).
      if (script.includes("'DEL'")) {
        counters.delete(key);
        released.push(key);
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ result: 1 }));
        return;
      }
      const now = Date.now();
      let counter = counters.get(key);
      if (!counter || counter.expiresAt <= now) counters.set(key, (counter = { count: 0, expiresAt: now + Number(windowMs) }));
      counter.count++;
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ result: [counter.count, counter.expiresAt - now] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, released, markers };
}

/** The Cloudflare recipe bundled and run in workerd, against the emulator and the Upstash stand-in, with `bindings` added to its env. */
async function startCloudflareRecipe(bindings: Record<string, string>) {
  const { Miniflare, Log, LogLevel } = await import('miniflare');
  const service = await startEmulator({ port: 0, pace: 0, log: () => {} });
  const upstash = await startUpstashStandIn('upstash-token');
  const source = (path: string) => fileURLToPath(new URL(path, root));
  const bundled = await build({
    entryPoints: [source('test/types/recipes/cloudflare-worker.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    write: false,
    alias: {
      'kagent-chat/proxy/cloudflare': source('src/proxy/runtimes/cloudflare.ts'),
      'kagent-chat/proxy': source('src/proxy/index.ts'),
      '@upstash/redis/cloudflare': source('test/support/upstash-stand-in.ts'),
    },
    external: ['../stores/redis-node.js', '@redis/client', 'node:*'],
    logLevel: 'silent',
  });
  const mf = new Miniflare({
    modules: true,
    script: bundled.outputFiles[0]!.text,
    // No request.cf from Cloudflare's servers, which are out of reach here.
    cf: false,
    compatibilityDate: '2025-04-01',
    host: '127.0.0.1',
    port: 0,
    log: new Log(LogLevel.WARN),
    bindings: {
      KAGENT_UPSTREAM_URL: service.url,
      KAGENT_API_KEY: service.demo.apiKey,
      KAGENT_AGENT_IDS: service.demo.agentId,
      KAGENT_ALLOWED_ORIGINS: 'https://www.example.com',
      KAGENT_DAILY_BUDGET: 'off',
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN: 'upstash-token',
      ...bindings,
    },
  });
  const url = await mf.ready;
  return {
    url,
    upstash,
    ask: (headers: Record<string, string> = {}) =>
      fetch(new URL(`agents/${service.demo.agentId}/query`, url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: 'https://www.example.com', 'CF-Connecting-IP': '203.0.113.7', ...headers },
        body: JSON.stringify({ query: 'Hello' }),
      }),
    async close() {
      await mf.dispose();
      await new Promise((resolve) => upstash.server.close(resolve));
      await service.close();
    },
  };
}

test('the Cloudflare recipe runs in workerd: the Upstash store is built from env on the first request and counts every visitor hit', { timeout: 60_000 }, async () => {
  const recipe = await startCloudflareRecipe({ KAGENT_RATE_LIMIT_PER_ADDRESS: '2/minute' });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await recipe.ask();
      statuses.push(response.status);
      await response.text();
    }
    const { calls } = recipe.upstash;
    assert.ok(calls.length >= 3, `the store asked the Upstash stand-in ${calls.length} times`);
    assert.ok(calls.every((auth) => auth === 'Bearer upstash-token'), 'with the token from env');
    assert.deepEqual(statuses.slice(0, 2), [200, 200]);
    assert.equal(statuses[2], 429, 'the third question in the minute is refused by the shared count');
    assert.ok(recipe.upstash.markers.has('kagent-proxy:store-marker'), 'the store checked, inside a request, that Redis still holds its counts');
  } finally {
    await recipe.close();
  }
});

test('the Cloudflare recipe with visitor sessions: sessions, replays and one answer at a time kept in the Upstash store', { timeout: 60_000 }, async () => {
  const recipe = await startCloudflareRecipe({ KAGENT_SESSION_SECRET: SESSION_SECRET, KAGENT_SESSION_DIFFICULTY: TEST_DIFFICULTY, KAGENT_RATE_LIMIT_PER_SESSION: '2/minute' });
  try {
    const base = recipe.url.href.replace(/\/$/, '');
    const { challenge, solutions, grant } = await earnSession(base);
    assert.equal((await mint(base, { challenges: challenge.challenges, solutions })).body.error?.code, SESSION_ERROR_CODES.challengeReplayed);
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await recipe.ask({ [SESSION_HEADER]: grant.token });
      const body = (await response.json()) as { error?: { code?: string } };
      statuses.push(body.error?.code ?? response.status);
    }
    assert.deepEqual(statuses, [200, 200, SESSION_ERROR_CODES.limited], 'each answer let go of its hold, and the third question is over the session\'s two');
    assert.ok(recipe.upstash.released.some((key) => key.includes('session-stream:')), 'the holds were let go in the Upstash store');
    assert.equal((await recipe.ask()).status, 401, 'no token, no question');
  } finally {
    await recipe.close();
  }
});
