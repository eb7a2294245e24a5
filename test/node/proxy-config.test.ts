import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { MemoryRateLimitStore, ProxyConfigError, createProxy, parseRateLimit, proxyOptionsFromEnv } from '../../src/proxy/index.js';
import { readAgentStream } from '../../src/protocol/index.js';
import { AGENT, SITE, TEST_KEY, assertNoKey, assertNoKeyInHead } from '../support/proxy-harness.js';
import { startRecordingUpstream } from '../support/proxy-upstream.js';
import { hasRedisServer, startRedis } from '../support/proxy-redis.js';
import { proxyCommand } from '../support/bundled-commands.js';

/** The command, bundled once for the file's every start. */
const CLI = await proxyCommand();
const base = { apiKey: TEST_KEY, upstreamUrl: 'https://api.example.com', agentIds: [AGENT] };

describe('proxy configuration', () => {
  test('starting without a key, an upstream address or an agent id names what is missing', () => {
    assert.throws(() => createProxy({} as never), (e: unknown) => e instanceof ProxyConfigError && /apiKey \(KAGENT_API_KEY\) is missing/.test(e.message) && /upstreamUrl \(KAGENT_UPSTREAM_URL\) is missing/.test(e.message) && /agentIds \(KAGENT_AGENT_IDS\)/.test(e.message));
    assert.throws(() => createProxy({ ...base, apiKey: ' ' }), /apiKey \(KAGENT_API_KEY\) is missing/);
    assert.throws(() => createProxy({ ...base, agentIds: [] }), /agentIds \(KAGENT_AGENT_IDS\) needs at least one agent id/);
    assert.throws(() => createProxy({ ...base, upstreamUrl: 'not a url' }), /upstreamUrl \(KAGENT_UPSTREAM_URL\) is not an address/);
  });

  test('refuses options that cannot work, naming them', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ upstreamUrl: 'ftp://api.example.com' }, /must be an http\(s\) address/],
      [{ upstreamUrl: 'https://user:pw@api.example.com' }, /must not carry a user name or password/],
      [{ agentIds: ['a/b'] }, /"a\/b" is not a usable id/],
      [{ allowedOrigins: ['https://www.example.com/path'] }, /"https:\/\/www.example.com\/path" is not an origin/],
      [{ allowedOrigins: ['www.example.com'] }, /is not an origin/],
      [{ allowFields: ['isAdmin'] }, /allowFields: "isAdmin" is not a query body field/],
      [{ pin: { temperature: 7 } }, /pin: temperature must be between 0 and 1/],
      [{ pin: { query: 'x' } }, /pin: query cannot be pinned/],
      [{ maxBodyBytes: 0 }, /maxBodyBytes must be a whole number/],
      [{ perAddressLimit: { max: -1, windowSeconds: 60 } }, /perAddressLimit.max/],
    ];
    for (const [override, message] of cases) assert.throws(() => createProxy({ ...base, ...override } as never), message, JSON.stringify(override));
  });

  test('normalises allowed origins as browsers send them', async () => {
    const proxy = createProxy({ ...base, log: false, allowedOrigins: ['HTTPS://WWW.Example.com:443/'], fetch: async () => new Response('{}', { headers: { 'content-type': 'application/json' } }) });
    const response = await proxy(new Request(`http://p/agents/${AGENT}/query`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"query":"x"}' }), { clientAddress: '192.0.2.1' });
    assert.equal(response.status, 200);
  });

  test('reads every option from the environment', () => {
    const options = proxyOptionsFromEnv({
      KAGENT_API_KEY: ` ${TEST_KEY} `,
      KAGENT_UPSTREAM_URL: 'https://api.example.com',
      KAGENT_AGENT_IDS: 'a1, a2,,',
      KAGENT_DATASTORE_IDS: 'd1',
      KAGENT_ALLOWED_ORIGINS: 'https://www.example.com, http://localhost:5173',
      KAGENT_ALLOW_REQUESTS_WITHOUT_ORIGIN: 'true',
      KAGENT_BASE_PATH: '/api/kagent',
      KAGENT_ALLOW_FIELDS: 'temperature,filters',
      KAGENT_PIN: '{"modelName":"family_a_4_5_haiku"}',
      KAGENT_MAX_BODY_BYTES: '8192',
      KAGENT_MAX_QUERY_LENGTH: '1000',
      KAGENT_MAX_TOP_K: '5',
      KAGENT_UPSTREAM_TIMEOUT_SECONDS: '20',
      KAGENT_MAX_STREAM_SECONDS: '120',
      KAGENT_MAX_STREAM_BYTES: '1048576',
      KAGENT_RATE_LIMIT_PER_ADDRESS: '30/minute',
      KAGENT_RATE_LIMIT_PER_VISITOR: 'off',
      KAGENT_DAILY_BUDGET: '5000',
      KAGENT_MEMORY_STORE_MAX_KEYS: '250000',
      KAGENT_TRUSTED_PROXY_HOPS: '1',
      KAGENT_REDIS_URL: 'redis://127.0.0.1:6379',
    });
    assert.deepEqual(options, {
      apiKey: TEST_KEY,
      upstreamUrl: 'https://api.example.com',
      agentIds: ['a1', 'a2'],
      datastoreIds: ['d1'],
      allowedOrigins: ['https://www.example.com', 'http://localhost:5173'],
      allowRequestsWithoutOrigin: true,
      basePath: '/api/kagent',
      allowFields: ['temperature', 'filters'],
      pin: { modelName: 'family_a_4_5_haiku' },
      maxBodyBytes: 8192,
      maxQueryLength: 1000,
      maxTopK: 5,
      upstreamTimeoutMs: 20_000,
      maxStreamMs: 120_000,
      maxStreamBytes: 1_048_576,
      perAddressLimit: { max: 30, windowSeconds: 60 },
      perVisitorLimit: false,
      dailyBudget: 5000,
      memoryStoreMaxKeys: 250_000,
      trustedProxyHops: 1,
      redisUrl: 'redis://127.0.0.1:6379',
    });
    assert.equal(proxyOptionsFromEnv({ KAGENT_ALLOWED_ORIGINS: '*' }).allowedOrigins, '*');
  });

  test("memoryStoreMaxKeys sizes the default memory store, and is refused when not a whole number or beside another store", () => {
    const base = { apiKey: TEST_KEY, upstreamUrl: 'https://api.example.com', agentIds: ['a1'] };
    assert.throws(() => createProxy({ ...base, memoryStoreMaxKeys: 0 }), (e: unknown) => e instanceof ProxyConfigError && /memoryStoreMaxKeys \(KAGENT_MEMORY_STORE_MAX_KEYS\) must be a whole number/.test(e.message));
    assert.throws(() => createProxy({ ...base, memoryStoreMaxKeys: 10, rateLimitStore: new MemoryRateLimitStore() }), /memoryStoreMaxKeys \(KAGENT_MEMORY_STORE_MAX_KEYS\) sets the memory store, but another rateLimitStore/);
    assert.throws(() => proxyOptionsFromEnv({ KAGENT_MEMORY_STORE_MAX_KEYS: '100k' }), /KAGENT_MEMORY_STORE_MAX_KEYS must be a whole number/);
  });

  test('names each environment variable it cannot read', () => {
    assert.throws(
      () => proxyOptionsFromEnv({ KAGENT_RATE_LIMIT_PER_ADDRESS: 'lots', KAGENT_PIN: '[1]', KAGENT_MAX_BODY_BYTES: '16k', KAGENT_TRUSTED_PROXY_HOPS: '-1' }),
      (e: unknown) => e instanceof ProxyConfigError && /KAGENT_RATE_LIMIT_PER_ADDRESS must look like 20\/minute/.test(e.message) && /KAGENT_PIN must be a JSON object/.test(e.message) && /KAGENT_MAX_BODY_BYTES must be a whole number/.test(e.message) && /KAGENT_TRUSTED_PROXY_HOPS must be a whole number/.test(e.message),
    );
  });

  test('rate limits read as count per duration', () => {
    assert.deepEqual(parseRateLimit('20/minute'), { max: 20, windowSeconds: 60 });
    assert.deepEqual(parseRateLimit('100 / hour'), { max: 100, windowSeconds: 3600 });
    assert.deepEqual(parseRateLimit('5/30s'), { max: 5, windowSeconds: 30 });
    assert.deepEqual(parseRateLimit('1000/day'), { max: 1000, windowSeconds: 86400 });
    assert.equal(parseRateLimit('off'), false);
    assert.equal(parseRateLimit('20'), undefined);
    assert.equal(parseRateLimit('20/fortnight'), undefined);
  });
});

/** Runs the kagent-proxy command; resolves with its output once it exits or prints its address. */
function startCommand(env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c));
  child.stderr.on('data', (c: Buffer) => (output += c));
  const listening = new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 15_000);
    const check = () => {
      const match = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!.replace(/\/$/, ''));
      }
    };
    child.stdout.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  return { child, listening, output: () => output, exited: once(child, 'exit') as Promise<[number | null]> };
}

describe('kagent-proxy command', () => {
  test('without configuration, exits 1 naming the missing variables', async () => {
    const run = startCommand({});
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.match(run.output(), /KAGENT_API_KEY\) is missing/);
    assert.match(run.output(), /KAGENT_UPSTREAM_URL\) is missing/);
    assert.match(run.output(), /KAGENT_AGENT_IDS\) needs at least one agent id/);
  });

  test('with an unreachable Redis, exits 1 saying so, without the password', async () => {
    const run = startCommand({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: 'http://127.0.0.1:9', KAGENT_AGENT_IDS: AGENT, KAGENT_REDIS_URL: 'redis://:hunter2@127.0.0.1:9', PORT: '0' });
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.match(run.output(), /Cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:9/);
    assert.doesNotMatch(run.output(), /hunter2/);
    assertNoKey(run.output(), 'the command output');
  });

  test('with KAGENT_REDIS_URL: warns at start of a Redis that keeps nothing on disk, and exits on SIGTERM (its Redis connection let go of)', { timeout: 30_000, skip: hasRedisServer() ? false : 'redis-server is not installed here' }, async () => {
    const redis = await startRedis();
    const run = startCommand({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: 'http://127.0.0.1:9', KAGENT_AGENT_IDS: AGENT, KAGENT_REDIS_URL: redis.url, PORT: '0' });
    try {
      assert.ok(await run.listening, `the command did not start: ${run.output()}`);
      // Warnings go to stderr, the rest to stdout: wait for the warning itself.
      const told = /"level":"warn".*Redis keeps nothing on disk \(save \\"\\", appendonly no\)/;
      if (!told.test(run.output())) await new Promise<void>((resolve) => run.child.stderr.on('data', () => told.test(run.output()) && resolve()));
      assert.match(run.output(), told);
      run.child.kill('SIGTERM');
      // Bounded, so the old behaviour (a Redis connection keeping the process alive) fails rather than hangs.
      let bound: ReturnType<typeof setTimeout> | undefined;
      const ended = await Promise.race([run.exited, new Promise<['still running']>((resolve) => (bound = setTimeout(() => resolve(['still running']), 15_000)))]);
      clearTimeout(bound);
      assert.equal(ended[0], 0, 'the process ended once the server closed');
      assertNoKey(run.output(), 'the command output');
    } finally {
      run.child.kill('SIGKILL');
      await redis.stop();
    }
  });

  test('KAGENT_WORKERS above 1 with in-memory rate limits: exits 1 naming KAGENT_REDIS_URL and the limits', async () => {
    const run = startCommand({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: 'http://127.0.0.1:9', KAGENT_AGENT_IDS: AGENT, KAGENT_RATE_LIMIT_PER_VISITOR: 'off', KAGENT_WORKERS: '2', PORT: '0' });
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.match(run.output(), /KAGENT_WORKERS=2 needs KAGENT_REDIS_URL, because each worker would count KAGENT_RATE_LIMIT_PER_ADDRESS in its own memory/);
    const sessions = startCommand({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: 'http://127.0.0.1:9', KAGENT_AGENT_IDS: AGENT, KAGENT_RATE_LIMIT_PER_ADDRESS: 'off', KAGENT_RATE_LIMIT_PER_VISITOR: 'off', KAGENT_SESSION_SECRET: 'a-session-secret-of-at-least-32-characters', KAGENT_WORKERS: '2', PORT: '0' });
    assert.equal((await sessions.exited)[0], 1);
    assert.match(sessions.output(), /KAGENT_WORKERS=2 needs KAGENT_REDIS_URL, because each worker would count the visitor sessions \(KAGENT_SESSION_SECRET\) in its own memory/);
    assert.doesNotMatch(sessions.output(), /a-session-secret-of-at-least-32-characters/);
    const wrong = startCommand({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: 'http://127.0.0.1:9', KAGENT_AGENT_IDS: AGENT, KAGENT_WORKERS: 'two', PORT: '0' });
    assert.equal((await wrong.exited)[0], 1);
    assert.match(wrong.output(), /KAGENT_WORKERS must be a whole number from 1 to 256 \(got "two"\)/);
  });

  test('KAGENT_WORKERS=2: two worker processes answer on one port, a dead one is replaced, and SIGTERM stops them all', async () => {
    // Records from which connection each question reached the service: each worker keeps its own.
    const fromPorts: number[] = [];
    const upstream = createServer((req, res) => {
      fromPorts.push(req.socket.remotePort!);
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":"a"}'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const run = startCommand({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: upstreamUrl, KAGENT_AGENT_IDS: AGENT, KAGENT_ALLOWED_ORIGINS: SITE, KAGENT_RATE_LIMIT_PER_ADDRESS: 'off', KAGENT_RATE_LIMIT_PER_VISITOR: 'off', KAGENT_WORKERS: '2', PORT: '0' });
    const workers = () => readFileSync(`/proc/${run.child.pid}/task/${run.child.pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    let seen: number[] = [];
    try {
      const url = await run.listening;
      assert.ok(url, `the command did not start: ${run.output()}`);
      assert.equal(run.output().match(/listening on/g)?.length, 1, 'one listening line for all workers');
      assert.match(run.output(), /"workers":2/);
      seen = workers();
      assert.equal(seen.length, 2, `two workers under the primary: ${seen.join(', ')}`);
      // Each question on a new connection (none kept alive to a worker about to be killed).
      const ask = () =>
        new Promise<{ status: number }>((resolve, reject) => {
          const body = JSON.stringify({ query: 'hi' });
          const req = request(`${url}/agents/${AGENT}/query`, { method: 'POST', agent: false, headers: { origin: SITE, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
          });
          req.on('error', reject);
          req.end(body);
        });
      for (let i = 0; i < 4; i++) assert.equal((await ask()).status, 200);
      // Asked one after another, one process would reuse its one connection: two mean both workers answered.
      assert.equal(new Set(fromPorts).size, 2, `questions reached the service from ${new Set(fromPorts).size} connection(s)`);
      // One worker dies: the primary starts another.
      process.kill(seen[0]!, 'SIGKILL');
      const deadline = Date.now() + 20_000;
      for (;;) {
        const now = workers();
        if (now.length === 2 && !now.includes(seen[0]!) && /a worker stopped \(SIGKILL\); starting another/.test(run.output())) {
          seen = now;
          break;
        }
        assert.ok(Date.now() < deadline, `no worker replaced the dead one, with its log line, in 20 s: ${now.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal((await ask()).status, 200);
      assert.equal(fromPorts.length, 5);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
    assert.equal(run.child.exitCode, 0, run.output());
    for (const pid of seen) assert.ok(!existsSync(`/proc/${pid}/stat`) || /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8')), `worker ${pid} still runs after the primary stopped`);
    assertNoKey(run.output(), 'the command output');
  });

  test('serves a streamed answer to an allowed page and refuses the rest; its output never holds the key', async () => {
    const upstream = await startRecordingUpstream();
    const run = startCommand({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: upstream.url, KAGENT_AGENT_IDS: AGENT, KAGENT_ALLOWED_ORIGINS: SITE, PORT: '0' });
    try {
      const url = await run.listening;
      assert.ok(url, `the command did not start: ${run.output()}`);
      const response = await fetch(`${url}/agents/${AGENT}/query`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hi', streaming: true }) });
      assertNoKeyInHead(response);
      assert.equal(response.status, 200);
      const events = [];
      for await (const event of readAgentStream(response.body!)) events.push(event);
      assert.equal(events.at(-1)?.type, 'done');
      const refused = await fetch(`${url}/agents/${AGENT}/query`, { method: 'DELETE', headers: { origin: SITE } });
      assert.equal(refused.status, 405);
      assertNoKey(await refused.text(), 'a refusal');
      assert.equal(upstream.requests.length, 1);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
      await upstream.close();
    }
    assert.match(run.output(), /"message":"answered"/);
    assertNoKey(run.output(), 'the command output');
  });

  test('its start-up line names the agents, the allowed origins and whether visitor sessions are on, and warns when no origin is allowed', async () => {
    const base = { KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: 'http://127.0.0.1:9', KAGENT_AGENT_IDS: `${AGENT},agent_2`, PORT: '0' };
    const bare = startCommand(base);
    try {
      assert.ok(await bare.listening, `the command did not start: ${bare.output()}`);
      const warning = await outputMatching(bare, /"level":"warn".*/);
      assert.match(warning, /no origin is allowed, so every page's chat is refused: set KAGENT_ALLOWED_ORIGINS .*e\.g\. KAGENT_ALLOWED_ORIGINS=https:\/\/www\.example\.com/);
      const line = JSON.parse(/^\{.*listening on.*$/m.exec(bare.output())![0]) as Record<string, unknown>;
      assert.match(String(line.message), new RegExp(`^kagent proxy listening on http://127\\.0\\.0\\.1:\\d+/ for agents ${AGENT}, agent_2; no page \\(no origin allowed\\); visitor sessions off$`));
      assert.deepEqual([line.agents, line.allowedOrigins, line.visitorSessions], [[AGENT, 'agent_2'], [], 'off']);
    } finally {
      bare.child.kill('SIGTERM');
      await bare.exited;
    }
    const set = startCommand({ ...base, KAGENT_ALLOWED_ORIGINS: `${SITE}, http://localhost:5173`, KAGENT_SESSION_SECRET: 'a-session-secret-of-at-least-32-characters' });
    try {
      assert.ok(await set.listening, `the command did not start: ${set.output()}`);
      assert.match(set.output(), new RegExp(`for agents ${AGENT}, agent_2; pages from ${SITE}, http://localhost:5173; visitor sessions on"`));
      assert.match(set.output(), /"visitorSessions":"on"/);
    } finally {
      set.child.kill('SIGTERM');
      await set.exited;
    }
    // Stopped, it has printed all it will: no warning when an origin is allowed.
    assert.doesNotMatch(set.output(), /"level":"warn"/);
    assert.doesNotMatch(set.output(), /a-session-secret-of-at-least-32-characters/);
  });
});

/** Resolves with the first match of `pattern` in the command's output, once it has been printed (15 s: a ceiling for a loaded machine). */
function outputMatching(run: ReturnType<typeof startCommand>, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in: ${run.output()}`)), 15_000);
    const check = () => {
      const match = pattern.exec(run.output());
      if (!match) return;
      clearTimeout(timer);
      run.child.stdout.off('data', check);
      run.child.stderr.off('data', check);
      resolve(match[0]);
    };
    run.child.stdout.on('data', check);
    run.child.stderr.on('data', check);
    run.child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before printing ${pattern}: ${run.output()}`));
    });
    check();
  });
}
