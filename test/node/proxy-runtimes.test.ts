import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hasRedisServer, startRedis, type TestRedis } from '../support/proxy-redis.js';
import { CONFORMANCE, SESSION_CONFORMANCE, conformanceEnv, sessionConformanceEnv } from '../support/proxy-conformance.js';
import { assertNoKey } from '../support/proxy-harness.js';
import { startRecordingUpstream, type RecordingUpstream } from '../support/proxy-upstream.js';
import { bunBinary, denoBinary, startBunRuntime, startDenoRuntime, startNetlifyRuntime, startVercelRuntime, startNodeRuntime, startWorkerdRuntime, type RunningRuntime } from '../support/proxy-runtimes.js';

// The same conformance suite on every runtime entry the package ships and CI can run.
// Deno's and Bun's binaries come from their npm packages (linux-x64 here, as on CI): on
// linux-x64 a missing binary fails the run rather than skipping it.
const otherPlatform = process.platform !== 'linux' || process.arch !== 'x64';
const RUNTIMES: [name: string, start: (env: Record<string, string>) => Promise<RunningRuntime>, skip: string | false][] = [
  ['Node (serveProxy on node:http)', startNodeRuntime, false],
  ['workerd (Miniflare, the Cloudflare Workers entry)', startWorkerdRuntime, false],
  ['Deno (the Deno entry)', startDenoRuntime, otherPlatform && !denoBinary() ? 'the tests look for the linux-x64 deno binary only' : false],
  ['Deno as Netlify Edge Functions run it (the Netlify entry)', startNetlifyRuntime, otherPlatform && !denoBinary() ? 'the tests look for the linux-x64 deno binary only' : false],
  ['edge-runtime, as Vercel runs Edge Functions (the Vercel entry)', startVercelRuntime, false],
  ['Bun (the Bun entry)', startBunRuntime, otherPlatform && !bunBinary() ? 'the tests look for the linux-x64 bun binary only' : false],
];

// Redis for the runs with the Redis store: the runtimes that can open TCP connections (Node, Deno, Bun) connect to it by KAGENT_REDIS_URL.
const redisSkip = hasRedisServer() ? false : 'redis-server is not installed here (.ci/run installs it; locally: apt-get install redis-server)';
let redis: TestRedis | undefined;
before(async () => {
  if (!redisSkip) redis = await startRedis();
});
after(() => redis?.stop());
const OVER_TCP = new Set<unknown>([startNodeRuntime, startDenoRuntime, startBunRuntime]);

// The suite with sessions off, then with visitor sessions on (in each runtime's memory, then in Redis), each against its own start of the runtime.
const SUITES: [suite: string, env: (upstreamUrl: string) => Record<string, string>, cases: typeof CONFORMANCE, runsOn: (start: unknown) => boolean, skip: string | false][] = [
  ['proxy conformance', conformanceEnv, CONFORMANCE, () => true, false],
  ['visitor sessions', sessionConformanceEnv, SESSION_CONFORMANCE, () => true, false],
  // One Redis for every runtime: the sessions each run starts from 127.0.0.1 would add up, so that limit is tried elsewhere.
  ['visitor sessions with the Redis store', (url) => ({ ...sessionConformanceEnv(url), KAGENT_REDIS_URL: redis!.url, KAGENT_SESSIONS_PER_ADDRESS: 'off' }), SESSION_CONFORMANCE, (start) => OVER_TCP.has(start), redisSkip],
];

for (const [suite, env, cases, runsOn, suiteSkip] of SUITES) {
  for (const [name, start, skip] of RUNTIMES) {
    if (!runsOn(start)) continue;
    describe(`${suite} on ${name}`, { skip: suiteSkip || skip }, () => {
      let upstream: RecordingUpstream;
      let runtime: RunningRuntime;
      before(async () => {
        upstream = await startRecordingUpstream();
        runtime = await start(env(upstream.url));
      });
      after(async () => {
        await runtime?.close();
        await upstream?.close();
        if (runtime) assertNoKey(runtime.output(), `${name}'s log`);
      });
      for (const [title, run] of cases) test(title, () => run({ url: runtime.url, upstream }));
    });
  }
}

// A guessable session secret on every entry: the runtime refuses to run with it and says why in its log, never to a visitor.
const WEAK_SECRET = 'changemechangemechangemechangeme';
for (const [name, start, skip] of RUNTIMES) {
  test(`a guessable session secret is refused on ${name}, with how to make one`, { skip }, async () => {
    const upstream = await startRecordingUpstream();
    let runtime: RunningRuntime | undefined;
    try {
      try {
        runtime = await start({ ...sessionConformanceEnv(upstream.url), KAGENT_SESSION_SECRET: WEAK_SECRET });
      } catch (error) {
        // Node's serveProxy refuses at start.
        assert.match((error as Error).message, /KAGENT_SESSION_SECRET\) is too easy to guess.*openssl rand -base64 32/);
        return;
      }
      const response = await fetch(`${runtime.url}/sessions/challenge`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      assert.equal(response.status, 500);
      assert.ok(!(await response.text()).includes('guess'), 'the reason stays out of the answer');
      // The log line may come a moment after the answer.
      for (let i = 0; i < 100 && !/too easy to guess/.test(runtime.output()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(runtime.output(), /KAGENT_SESSION_SECRET\) is too easy to guess.*openssl rand -base64 32/);
      assert.ok(!runtime.output().includes(WEAK_SECRET), 'the secret stays out of the log');
      assert.equal(upstream.requests.length, 0);
    } finally {
      await runtime?.close();
      await upstream.close();
    }
  });
}
