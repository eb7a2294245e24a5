import { after, before, describe, test } from 'node:test';
import { CONFORMANCE, conformanceEnv } from '../support/proxy-conformance.js';
import { assertNoKey } from '../support/proxy-harness.js';
import { startRecordingUpstream, type RecordingUpstream } from '../support/proxy-upstream.js';
import { denoBinary, startDenoRuntime, startNodeRuntime, startWorkerdRuntime, type RunningRuntime } from '../support/proxy-runtimes.js';

// The same conformance suite on every runtime entry the package ships and CI can run.
const RUNTIMES: [name: string, start: (env: Record<string, string>) => Promise<RunningRuntime>, skip: string | false][] = [
  ['Node (srvx)', startNodeRuntime, false],
  ['workerd (Miniflare, the Cloudflare Workers entry)', startWorkerdRuntime, false],
  ['Deno (the Deno entry)', startDenoRuntime, denoBinary() ? false : 'the deno binary is not installed (npm ci installs it)'],
];

for (const [name, start, skip] of RUNTIMES) {
  describe(`proxy conformance on ${name}`, { skip }, () => {
    let upstream: RecordingUpstream;
    let runtime: RunningRuntime;
    before(async () => {
      upstream = await startRecordingUpstream();
      runtime = await start(conformanceEnv(upstream.url));
    });
    after(async () => {
      await runtime?.close();
      await upstream?.close();
      if (runtime) assertNoKey(runtime.output(), `${name}'s log`);
    });
    for (const [title, run] of CONFORMANCE) test(title, () => run({ url: runtime.url, upstream }));
  });
}
