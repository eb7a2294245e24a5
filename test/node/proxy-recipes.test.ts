// The deployment recipes of docs/proxy.md are files under test/types/recipes,
// type-checked by `npm run typecheck`; this checks that the doc shows them as
// they are, runs the Cloudflare ones in workerd (Miniflare), the local run
// with the doc's own wrangler.toml and .dev.vars, and the Deno one in Deno on
// the PORT it is given.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { build } from 'esbuild';
import { ADMIN_TOKEN, reportWhen } from '../support/proxy-insights.js';
import { startUpstashOnRedis } from '../support/upstash-on-redis.js';
import { KagentClient } from '../../src/client/index.js';
import { hasRedisServer, startRedis } from '../support/proxy-redis.js';
import { startProxyHarness } from '../support/proxy-harness.js';
import { connectRedisRateLimitStore } from '../../src/proxy/stores/redis-node.js';
import { startEmulator } from '../fixtures/emulator/harness.js';
import { QUESTION_ID_HEADER, SESSION_ERROR_CODES, SESSION_HEADER } from '../../src/protocol/index.js';
import { SESSION_SECRET, TEST_DIFFICULTY, earnSession, mint } from '../support/proxy-sessions.js';
import { freePort } from '../support/http.js';
import { denoBinary } from '../support/proxy-runtimes.js';

const root = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/proxy.md', root), 'utf8');
const recipes = ['cloudflare-worker.ts', 'vercel-function.ts', 'deno-main.ts'];

for (const name of recipes) {
  test(`docs/proxy.md shows test/types/recipes/${name} as it is`, () => {
    const code = readFileSync(new URL(`test/types/recipes/${name}`, root), 'utf8');
    assert.ok(doc.includes(`\`\`\`ts\n${code}\`\`\``), `no code block of docs/proxy.md equals ${name}`);
  });
}

/**
 * A recipe (a file, or code from the doc) bundled as a deployment would, for the runtime
 * `conditions` name, its imports of `kagent-chat` pointed at this checkout's sources by `alias`.
 */
async function bundleRecipe(recipe: { file: string } | { code: string }, conditions: string[], alias: Record<string, string>): Promise<string> {
  const source = (path: string) => fileURLToPath(new URL(path, root));
  const bundled = await build({
    ...('file' in recipe ? { entryPoints: [source(recipe.file)] } : { stdin: { contents: recipe.code, resolveDir: source('./'), loader: 'ts' as const } }),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions,
    target: 'es2022',
    write: false,
    alias: Object.fromEntries(Object.entries(alias).map(([name, path]) => [name, source(path)])),
    external: ['../stores/redis-node.js', '@redis/client', 'node:*'],
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text;
}

/**
 * Upstash's REST API in miniature: EVAL of the rate-limit store's scripts (INCR, then PTTL or PEXPIRE; DEL; the marker's GET,
 * then SET) on counters kept here, and of its list scripts for insights (RPUSH with PEXPIRE, LRANGE, LREM) on lists kept here.
 */
async function startUpstashStandIn(token: string): Promise<{ server: Server; url: string; calls: string[]; released: string[]; markers: Map<string, string>; lists: Map<string, string[]> }> {
  const counters = new Map<string, { count: number; expiresAt: number }>();
  const markers = new Map<string, string>();
  const lists = new Map<string, string[]>();
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
      const [command, script, , key, windowMs, ...rest] = JSON.parse(body) as [string, string, number, string, string, ...string[]];
      assert.equal(command, 'EVAL');
      const answer = (result: unknown) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ result }));
      // The list scripts: the value added (the expiry is not kept here), the list read, values taken out.
      if (script.includes("'RPUSH'")) return answer(lists.set(key, [...(lists.get(key) ?? []), ...rest]).get(key)!.length);
      if (script.includes("'LRANGE'")) return answer(lists.get(key) ?? []);
      if (script.includes("'LREM'")) {
        const going = new Set([windowMs, ...rest]);
        const before = lists.get(key) ?? [];
        lists.set(key, before.filter((value) => !going.has(value)));
        return answer(before.length - lists.get(key)!.length);
      }
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
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, released, markers, lists };
}

/** The Cloudflare recipe bundled and run in workerd, against the emulator and the Upstash stand-in, with `bindings` added to its env. */
async function startCloudflareRecipe(bindings: Record<string, string>) {
  const { Miniflare, Log, LogLevel } = await import('miniflare');
  const service = await startEmulator({ port: 0, pace: 0, log: () => {} });
  const upstash = await startUpstashStandIn('upstash-token');
  const script = await bundleRecipe({ file: 'test/types/recipes/cloudflare-worker.ts' }, ['workerd', 'worker', 'browser'], {
    'kagent-chat/proxy/cloudflare': 'src/proxy/runtimes/cloudflare.ts',
    'kagent-chat/proxy': 'src/proxy/index.ts',
    '@upstash/redis/cloudflare': 'test/support/upstash-stand-in.ts',
  });
  const mf = new Miniflare({
    modules: true,
    script,
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
    service,
    ask: (headers: Record<string, string> = {}, body: Record<string, unknown> = { query: 'Hello' }) =>
      fetch(new URL(`agents/${service.demo.agentId}/query`, url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: 'https://www.example.com', 'CF-Connecting-IP': '203.0.113.7', ...headers },
        body: JSON.stringify(body),
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

test('the Cloudflare recipe with insights on: questions and feedback kept in the Upstash store, the report read from workerd', { timeout: 60_000 }, async () => {
  const token = 'adm_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
  const recipe = await startCloudflareRecipe({ KAGENT_INSIGHTS: 'on', KAGENT_ADMIN_TOKEN: token });
  try {
    const base = recipe.url.href.replace(/\/$/, '');
    const asked = await recipe.ask();
    assert.equal(asked.status, 200);
    const questionId = asked.headers.get(QUESTION_ID_HEADER)!;
    await asked.text();
    const rated = await fetch(`${base}/feedback`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'https://www.example.com', 'CF-Connecting-IP': '203.0.113.7' }, body: JSON.stringify({ questionId, rating: 'down', comment: 'Too short' }) });
    assert.equal(rated.status, 204);
    const report = await reportWhen(base, (r) => r.thumbsDown.some((q) => q.id === questionId), token);
    assert.equal(report.thumbsDown[0]!.question, 'Hello');
    assert.equal(report.thumbsDown[0]!.feedback!.comment, 'Too short');
    assert.ok([...recipe.upstash.lists.keys()].some((key) => key.includes('insights:')), 'kept in the Upstash store');
  } finally {
    await recipe.close();
  }
});

test('the Cloudflare recipe with insights on and Upstash on a real Redis: a streamed answer is recorded after its response through waitUntil, with its outcome and sources, and another instance reports it', { timeout: 60_000, skip: hasRedisServer() ? false : 'redis-server is not installed here' }, async () => {
  const redis = await startRedis();
  const upstash = await startUpstashOnRedis(redis.url, 'upstash-token');
  const recipe = await startCloudflareRecipe({ KAGENT_INSIGHTS: 'on', KAGENT_ADMIN_TOKEN: ADMIN_TOKEN, UPSTASH_REDIS_REST_URL: upstash.url });
  // Another instance on the same Redis: it never sees the worker's own records waiting, only what reached the store.
  const otherStore = await connectRedisRateLimitStore(redis.url);
  const other = await startProxyHarness({ insights: true, adminToken: ADMIN_TOKEN, rateLimitStore: otherStore });
  try {
    const base = recipe.url.href.replace(/\/$/, '');
    const { service } = recipe;
    await new KagentClient({ baseUrl: service.url, apiKey: service.demo.apiKey }).datastores.upsert(service.demo.datastoreId, { documents: [{ text: 'Install the widget with npm install kagent-chat, then add the script tag.', metadata: { custom_id: 'install' } }] });
    const asked = await recipe.ask({}, { query: 'How do I install the widget?', streaming: true });
    assert.equal(asked.status, 200);
    const questionId = asked.headers.get(QUESTION_ID_HEADER)!;
    assert.match(await asked.text(), /\[DONE\]/);
    const recorded = (await reportWhen(other.url, (r) => r.slowest.some((q) => q.id === questionId))).slowest.find((q) => q.id === questionId)!;
    assert.equal(recorded.question, 'How do I install the widget?');
    assert.equal(recorded.outcome.kind, 'answered');
    assert.ok(recorded.sources.length > 0 && recorded.outcome.kind === 'answered' && recorded.outcome.sources === recorded.sources.length, `sources named: ${JSON.stringify(recorded)}`);
    assert.ok(recorded.firstByteMs! >= 0 && recorded.totalMs! >= recorded.firstByteMs!);
    const rated = await fetch(`${base}/feedback`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'https://www.example.com', 'CF-Connecting-IP': '203.0.113.7' }, body: JSON.stringify({ questionId, rating: 'down', comment: 'Which version?' }) });
    assert.equal(rated.status, 204);
    const report = await reportWhen(base, (r) => r.thumbsDown.some((q) => q.id === questionId));
    assert.deepEqual(report.thumbsDown[0]!.sources, recorded.sources);
    assert.equal(report.thumbsDown[0]!.feedback!.comment, 'Which version?');
    assert.ok(upstash.commands.includes('EVAL'), 'kept through the Upstash API');
  } finally {
    await other.close();
    // Its Redis client would try to reconnect for ever once Redis stops, and keep this file's process alive.
    await otherStore.close();
    await recipe.close();
    await upstash.close();
    await redis.stop();
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

/** The fenced blocks in `language` of the docs/proxy.md section under `heading`, in order. */
function blocksOf(heading: string, language: string): string[] {
  const start = doc.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/proxy.md has a section "${heading}"`);
  const end = doc.indexOf('\n### ', start + heading.length + 2);
  const section = doc.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
}

/** `NAME = "value"` lines of a TOML table, or `NAME=value` lines of a .dev.vars file. */
function variables(text: string, pattern: RegExp): Record<string, string> {
  return Object.fromEntries(text.split('\n').flatMap((line) => {
    const match = pattern.exec(line.trim());
    return match ? [[match[1]!, match[2]!]] : [];
  }));
}

test("the Cloudflare recipe runs locally as `npx wrangler dev` runs it: the doc's wrangler.toml [vars] and .dev.vars make a configured proxy", { timeout: 60_000 }, async () => {
  const heading = '### Deploy to Cloudflare Workers';
  const [worker] = blocksOf(heading, 'ts');
  const [toml] = blocksOf(heading, 'toml');
  const [devVars] = blocksOf(heading, 'dotenv');
  assert.ok(worker && toml && devVars, 'the section shows src/worker.ts, wrangler.toml and .dev.vars');
  const vars = variables(toml.slice(toml.indexOf('[vars]')), /^(\w+) = "(.*)"$/);
  const local = variables(devVars, /^(\w+)=(.*)$/);
  const compatibilityDate = /^compatibility_date = "(.+)"$/m.exec(toml)?.[1];
  assert.ok(compatibilityDate, 'wrangler.toml names a compatibility date');
  const script = await bundleRecipe({ code: worker }, ['workerd', 'worker', 'browser'], { 'kagent-chat/proxy/cloudflare': 'src/proxy/runtimes/cloudflare.ts' });
  const { Miniflare, Log, LogLevel } = await import('miniflare');
  // A visitor's page asking the Worker whether it may send a question: answered by a configured proxy, without the service.
  const preflight = async (bindings: Record<string, string>) => {
    const mf = new Miniflare({ modules: true, script, cf: false, compatibilityDate, host: '127.0.0.1', port: 0, log: new Log(LogLevel.NONE), bindings });
    try {
      const url = await mf.ready;
      const response = await fetch(new URL(`agents/${vars.KAGENT_AGENT_IDS}/query`, url), {
        method: 'OPTIONS',
        headers: { Origin: vars.KAGENT_ALLOWED_ORIGINS!, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
      await response.arrayBuffer();
      return { status: response.status, allowed: response.headers.get('access-control-allow-origin') };
    } finally {
      await mf.dispose();
    }
  };
  assert.deepEqual(await preflight({ ...vars, ...local }), { status: 204, allowed: vars.KAGENT_ALLOWED_ORIGINS }, '[vars] with .dev.vars: a configured proxy');
  assert.equal((await preflight(vars)).status, 500, 'without .dev.vars the Worker has no key, and says it is not configured');
});

test('the Deno recipe listens on the PORT and HOST it is given and answers a question', { timeout: 60_000 }, async () => {
  const binary = denoBinary();
  if (!binary) throw new Error('the deno binary is not installed (npm package deno, @deno/linux-x64-glibc)');
  const dir = mkdtempSync(join(tmpdir(), 'kagent-deno-recipe-'));
  const service = await startEmulator({ port: 0, pace: 0, log: () => {} });
  const script = await bundleRecipe({ file: 'test/types/recipes/deno-main.ts' }, ['deno', 'worker', 'browser'], { 'npm:kagent-chat/proxy/deno': 'src/proxy/runtimes/deno.ts' });
  const file = join(dir, 'main.js');
  writeFileSync(file, script);
  const port = await freePort();
  // Not --quiet: Deno.serve's own "Listening on" line says where it listens.
  const child = spawn(binary, ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', file], {
    env: {
      PATH: process.env.PATH ?? '',
      DENO_DIR: join(dir, 'cache'),
      DENO_NO_UPDATE_CHECK: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      KAGENT_UPSTREAM_URL: service.url,
      KAGENT_API_KEY: service.demo.apiKey,
      KAGENT_AGENT_IDS: service.demo.agentId,
      KAGENT_ALLOWED_ORIGINS: 'https://www.example.com',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let output = '';
    const listening = await new Promise<string>((resolve, reject) => {
      // A ceiling for a loaded machine, so that a Deno that never listens is stopped below.
      const timer = setTimeout(() => reject(new Error(`deno did not listen within 30 s: ${output}`)), 30_000);
      const read = (chunk: Buffer) => {
        output += chunk;
        const match = /Listening on (http:\/\/[^/\s]+)\//.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`deno exited with ${code}: ${output}`));
      });
    });
    assert.equal(listening, `http://127.0.0.1:${port}`, 'on the PORT and HOST given');
    const response = await fetch(`${listening}/agents/${service.demo.agentId}/query`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://www.example.com' },
      body: JSON.stringify({ query: 'Hello', streaming: false }),
    });
    const body = (await response.json()) as { answer?: string };
    assert.equal(response.status, 200, JSON.stringify(body));
    assert.equal(typeof body.answer, 'string');
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
