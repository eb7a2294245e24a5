// The proxy's cost, side by side in one run on loopback: time to first byte
// of a streamed answer and JSON requests per second, direct to a stand-in
// upstream versus through the proxy (the kagent-proxy command in its own
// process, as deployed), then how many simultaneous streams one proxy
// process holds and the memory they take. For requests per second it also
// runs the floor, a minimal Web-standard pass-through on srvx, and the proxy
// with Node's built-in fetch, each in its own process, and reads each
// process's CPU time per request from /proc.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DONE_EVENT, EVENT_STREAM_HEADERS, answerEvent, endpointResponseEvent } from '../src/protocol/index.js';

const KEY = 'sk_bench_0123456789abcdef';
const ORIGIN = 'https://www.example.com';
const AGENT = 'agent_bench';
const PATH = `/agents/${AGENT}/query`;
const TTFB_RUNS = 300;
const RPS_SECONDS = 4;
const RPS_CONCURRENCY = 16;
const HELD_STREAMS = 1000;

const ANSWER = { answer: 'A short answer. '.repeat(20), conversationId: 'c', visitorId: 'v', sources: [{ datasource_id: 'd', score: 0.9 }] };
const STREAM = Array.from({ length: 20 }, (_, i) => answerEvent(`word${i} `)).join('') + endpointResponseEvent(JSON.stringify(ANSWER)) + DONE_EVENT;

// The stand-in service: JSON at once; a stream that starts at once; or a stream held open with a heartbeat event.
const heldResponses = new Set<import('node:http').ServerResponse>();
const upstream = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c));
  req.on('end', () => {
    const parsed = JSON.parse(body) as { streaming?: boolean; query: string };
    if (parsed.query === 'hold') {
      res.writeHead(200, EVENT_STREAM_HEADERS);
      res.write(answerEvent('held '));
      heldResponses.add(res);
      res.on('close', () => heldResponses.delete(res));
      return;
    }
    if (parsed.streaming) {
      res.writeHead(200, EVENT_STREAM_HEADERS);
      res.end(STREAM);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(ANSWER));
  });
});
upstream.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
const heartbeat = setInterval(() => {
  for (const res of heldResponses) res.write(answerEvent('.'));
}, 1000);

// The proxy, from the package's command, in its own process.
const proxyProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../src/proxy/cli.ts', import.meta.url))], {
  env: {
    ...process.env,
    KAGENT_API_KEY: KEY,
    KAGENT_UPSTREAM_URL: upstreamUrl,
    KAGENT_AGENT_IDS: AGENT,
    KAGENT_ALLOWED_ORIGINS: ORIGIN,
    KAGENT_RATE_LIMIT_PER_ADDRESS: 'off',
    KAGENT_RATE_LIMIT_PER_VISITOR: 'off',
    PORT: '0',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const proxyUrl = await new Promise<string>((resolve, reject) => {
  let output = '';
  const timer = setTimeout(() => reject(new Error(`proxy did not start: ${output}`)), 20_000);
  proxyProcess.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
    const match = /listening on (http:\/\/[^"\s/]+)/.exec(output);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]!);
      // Request log lines are not part of the measurement: drain them.
      proxyProcess.stdout!.resume();
    }
  });
});

/** Starts `code` (an ES module run through tsx from the repository root) in its own process; it prints `listening on <url>`. */
async function startServer(code: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: fileURLToPath(new URL('..', import.meta.url)), env: { ...process.env, ...env, UPSTREAM: upstreamUrl }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/[^"\s/]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
        child.stdout!.resume();
      }
    });
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

// The floor: srvx handing each request to the upstream and its answer back, nothing else.
const passThrough = (fetchCode: string) => `
  import { serve } from 'srvx/node';
  ${fetchCode}
  const target = process.env.UPSTREAM + ${JSON.stringify(PATH)};
  const server = serve({ port: 0, hostname: '127.0.0.1', silent: true, fetch: async (request) => {
    const answer = await upstreamFetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await request.text(), redirect: 'manual' });
    return new Response(answer.body, { status: answer.status, headers: { 'content-type': answer.headers.get('content-type') ?? 'application/json' } });
  } });
  await server.ready();
  console.log('listening on ' + server.url);
  process.on('SIGTERM', () => server.close(true).then(() => process.exit(0)));`;
const floorBuiltIn = await startServer(passThrough('const upstreamFetch = fetch;'));
const floorNodeHttp = await startServer(passThrough("import { createNodeFetch } from './src/proxy/node-fetch.ts'; const upstreamFetch = createNodeFetch();"));
// The proxy as the command runs it, but calling the service with Node's built-in fetch, as it did before.
const proxyBuiltIn = await startServer(`
  import { serveProxy } from './src/proxy/node.ts';
  const running = await serveProxy({ apiKey: ${JSON.stringify(KEY)}, upstreamUrl: process.env.UPSTREAM, agentIds: [${JSON.stringify(AGENT)}], allowedOrigins: [${JSON.stringify(ORIGIN)}], perAddressLimit: false, perVisitorLimit: false, fetch: (input, init) => fetch(input, init) }, { port: 0 });
  console.log('listening on ' + running.url);
  process.on('SIGTERM', () => running.close().then(() => process.exit(0)));`);

const agent = new Agent({ keepAlive: true, maxSockets: RPS_CONCURRENCY });

/** POSTs the body; resolves with ms to the first body byte and ms to the end. */
function timedPost(base: string, body: string, http: Agent | false = agent): Promise<{ firstByte: number; total: number; status: number }> {
  const target = new URL(PATH, base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent: http, headers: { origin: ORIGIN, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res: IncomingMessage) => {
      let firstByte = 0;
      res.on('data', () => {
        if (!firstByte) firstByte = performance.now() - started;
      });
      res.on('end', () => resolve({ firstByte, total: performance.now() - started, status: res.statusCode ?? 0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const ms = (n: number) => `${n.toFixed(2)} ms`;

// Warm both paths (JIT, connections).
for (let i = 0; i < 50; i++) {
  await timedPost(upstreamUrl, '{"query":"warm","streaming":true}');
  await timedPost(proxyUrl, '{"query":"warm","streaming":true}');
}

// 1. Time to first byte of a streamed answer, alternating direct and proxied requests.
const ttfb = { direct: [] as number[], proxy: [] as number[] };
for (let i = 0; i < TTFB_RUNS; i++) {
  ttfb.direct.push((await timedPost(upstreamUrl, '{"query":"q","streaming":true}')).firstByte);
  const proxied = await timedPost(proxyUrl, '{"query":"q","streaming":true}');
  if (proxied.status !== 200) throw new Error(`proxy answered ${proxied.status}`);
  ttfb.proxy.push(proxied.firstByte);
}

// 2. JSON requests per second with RPS_CONCURRENCY requests in flight, each side for RPS_SECONDS.
/** CPU time (all threads, user + system) a process has used, in ms. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
};
/** Requests per second through `base`, and the CPU time per request of the server process `pid`. */
async function requestsPerSecond(base: string, pid?: number): Promise<{ rps: number; cpuUs?: number }> {
  // Warm the path (JIT, connections) before counting.
  const warmUntil = performance.now() + 1000;
  await Promise.all(Array.from({ length: RPS_CONCURRENCY }, async () => {
    while (performance.now() < warmUntil) await timedPost(base, '{"query":"q"}');
  }));
  const cpuBefore = pid === undefined ? 0 : cpuMs(pid);
  const deadline = performance.now() + RPS_SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: RPS_CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const { status } = await timedPost(base, '{"query":"q"}');
        if (status !== 200) throw new Error(`answered ${status}`);
        done++;
      }
    }),
  );
  return { rps: done / RPS_SECONDS, cpuUs: pid === undefined ? undefined : ((cpuMs(pid) - cpuBefore) * 1000) / done };
}
const rpsDirect = await requestsPerSecond(upstreamUrl);
const rpsFloorBuiltIn = await requestsPerSecond(floorBuiltIn.url, floorBuiltIn.pid);
const rpsFloorNodeHttp = await requestsPerSecond(floorNodeHttp.url, floorNodeHttp.pid);
const rpsProxyBuiltIn = await requestsPerSecond(proxyBuiltIn.url, proxyBuiltIn.pid);
const rpsProxy = await requestsPerSecond(proxyUrl, proxyProcess.pid);
await Promise.all([floorBuiltIn.stop(), floorNodeHttp.stop(), proxyBuiltIn.stop()]);

// 3. Simultaneous streams held open through the proxy, and the proxy process's memory.
const rssKiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proxyProcess.pid}/status`, 'utf8'))![1]);
await new Promise((resolve) => setTimeout(resolve, 500));
const rssBefore = rssKiB();
const held: import('node:http').ClientRequest[] = [];
let opened = 0;
const allOpen = new Promise<void>((resolve, reject) => {
  const target = new URL(PATH, proxyUrl);
  for (let i = 0; i < HELD_STREAMS; i++) {
    const body = '{"query":"hold","streaming":true}';
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent: false, headers: { origin: ORIGIN, 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`stream ${i} answered ${res.statusCode}`));
      res.once('data', () => {
        if (++opened === HELD_STREAMS) resolve();
      });
      res.resume();
    });
    req.on('error', () => {});
    req.end(body);
    held.push(req);
  }
});
await Promise.race([allOpen, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${opened} of ${HELD_STREAMS} streams opened in 60 s`)), 60_000))]);
// Let heartbeats flow through every stream before measuring.
await new Promise((resolve) => setTimeout(resolve, 2500));
const rssHeld = rssKiB();
const upstreamOpen = heldResponses.size;
for (const req of held) req.destroy();
await new Promise((resolve) => setTimeout(resolve, 1500));
const upstreamLeft = heldResponses.size;

console.log(`Proxy vs direct on loopback (stand-in upstream in this process, proxy = kagent-proxy command in its own process)\n`);
console.log('| measure | direct | through the proxy | proxy adds |');
console.log('|---|---|---|---|');
console.log(`| time to first streamed byte, median (${TTFB_RUNS} requests, alternating) | ${ms(quantile(ttfb.direct, 0.5))} | ${ms(quantile(ttfb.proxy, 0.5))} | ${ms(quantile(ttfb.proxy, 0.5) - quantile(ttfb.direct, 0.5))} |`);
console.log(`| time to first streamed byte, p95 | ${ms(quantile(ttfb.direct, 0.95))} | ${ms(quantile(ttfb.proxy, 0.95))} | ${ms(quantile(ttfb.proxy, 0.95) - quantile(ttfb.direct, 0.95))} |`);
console.log('');
console.log(`| JSON requests per second, ${RPS_CONCURRENCY} in flight, ${RPS_SECONDS} s each | requests/s | % of direct | server CPU per request |`);
console.log('|---|---|---|---|');
const rpsRow = (name: string, { rps, cpuUs }: { rps: number; cpuUs?: number | undefined }) =>
  console.log(`| ${name} | ${rps.toFixed(0)} | ${((rps / rpsDirect.rps) * 100).toFixed(0)}% | ${cpuUs === undefined ? '-' : `${(cpuUs / 1000).toFixed(2)} ms`} |`);
rpsRow('direct to the upstream', rpsDirect);
rpsRow('floor: srvx pass-through, Node fetch', rpsFloorBuiltIn);
rpsRow('floor: srvx pass-through, node:http fetch', rpsFloorNodeHttp);
rpsRow('the proxy, Node fetch (as before)', rpsProxyBuiltIn);
rpsRow('the proxy, kagent-proxy command (node:http fetch)', rpsProxy);
console.log('');
console.log(`| simultaneous streams held through one proxy process | proxy RSS before | with the streams open | per stream | upstream requests cancelled after the visitors left |`);
console.log('|---|---|---|---|---|');
console.log(`| ${opened} (heartbeat every second) | ${(rssBefore / 1024).toFixed(1)} MiB | ${(rssHeld / 1024).toFixed(1)} MiB | ${((rssHeld - rssBefore) / opened).toFixed(1)} KiB | ${upstreamOpen - upstreamLeft} of ${upstreamOpen} |`);

clearInterval(heartbeat);
agent.destroy();
proxyProcess.kill('SIGTERM');
await new Promise((resolve) => proxyProcess.once('exit', resolve));
upstream.closeAllConnections();
upstream.close();
