// The proxy's cost, side by side in one run on loopback: time to first byte
// of a streamed answer and JSON requests per second, direct to a stand-in
// upstream versus through the proxy (the kagent-proxy command in its own
// process, as deployed), then how many simultaneous streams one proxy
// process holds and the memory they take.
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
async function requestsPerSecond(base: string): Promise<number> {
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
  return done / RPS_SECONDS;
}
const rpsDirect = await requestsPerSecond(upstreamUrl);
const rpsProxy = await requestsPerSecond(proxyUrl);

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
console.log(`| JSON requests per second (${RPS_CONCURRENCY} in flight, ${RPS_SECONDS} s each) | ${rpsDirect.toFixed(0)} | ${rpsProxy.toFixed(0)} | ${((rpsProxy / rpsDirect) * 100).toFixed(0)}% of direct |`);
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
