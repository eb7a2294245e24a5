import { after, before, describe, test } from 'node:test';
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

// The suite with sessions off, then with visitor sessions on, each against its own start of the runtime.
const SUITES = [
  ['proxy conformance', conformanceEnv, CONFORMANCE],
  ['visitor sessions', sessionConformanceEnv, SESSION_CONFORMANCE],
] as const;

for (const [suite, env, cases] of SUITES) {
  for (const [name, start, skip] of RUNTIMES) {
    describe(`${suite} on ${name}`, { skip }, () => {
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
