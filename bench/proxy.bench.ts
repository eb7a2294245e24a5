// The proxy under load beside nginx, in one run on loopback: a stand-in
// upstream in this process; the proxy as the kagent-proxy command in its own
// process; nginx (Debian's nginx-light, when installed) in front of the same
// upstream as the reference reverse proxy. Measured side by side, alternating:
// time to first streamed byte, JSON requests per second at 16 connections,
// latency at 256 connections, memory per held stream, and a burst of 5,000
// simultaneous connections. Load comes from wrk when installed (it costs far
// less CPU than a Node client on a machine of two cores), else from Node.
// The JSON load at 16 connections also runs, in the same alternating rounds,
// through the proxy with visitor sessions on (a token on every question) and
// through the proxy as it was before sessions (BENCH_PROXY_BEFORE, a commit
// built here from git), so that the cost of sessions, on and off, is read as
// ratios to nginx measured in the same minutes. Insights' cost is measured on its own: the
// proxy with insights off, with insights on, and a second process with them off (the bench's
// own noise, an A/A pair), under the same load at the same time, in many short rounds, JSON
// and streamed answers (about 34 KB each, in batches of events as a model writes them); CPU
// per question read round by round from each process's threads.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_STREAM_HEADERS, SESSION_HEADER, answerEvent } from '../src/protocol/index.js';
import { INSIGHTS_ENV, INSIGHTS_TOKEN, SESSIONS_ENV, SESSION_TOKENS, buildProxyAt, earnTokens, tokensInTurn } from './support/proxy-variants.js';
import { streamedAnswerWrites } from './support/streamed-answer.js';

const KEY = 'sk_bench_0123456789abcdef';
const ORIGIN = 'https://www.example.com';
const AGENT = 'agent_bench';
const PATH = `/agents/${AGENT}/query`;
const TTFB_RUNS = 200;
const LOAD_SECONDS = 4;
/**
 * Rounds per server and connection count. At 256 connections a 4 s run's p99 swings between
 * about 40 ms and over a second for a bare 20-line node:http proxy as for this one, while the
 * server itself sees no request take over 60 ms between arriving and leaving: five rounds, so
 * that the median p99 is not one such run.
 */
const LOAD_ROUNDS = 5;
const HELD_STREAMS = 1000;
/** Streams opened before measuring, so that first-use costs (compiled code, heap growth) do not count per stream. */
const HELD_WARMUP = 200;
const BURST = 5000;
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
const WRK = spawnSync('wrk', ['--version']).error ? undefined : 'wrk';
/** Processes each server runs (`BENCH_WORKERS`, default 1): the proxy's `KAGENT_WORKERS` and nginx's `worker_processes` alike, so the comparison stays fair. */
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
if (!Number.isInteger(WORKERS) || WORKERS < 1) throw new Error(`BENCH_WORKERS must be a whole number of at least 1 (got ${process.env.BENCH_WORKERS})`);

/**
 * The proxy before visitor sessions (the last commit without them), built from git and measured beside this
 * checkout's under the same JSON load; `BENCH_PROXY_BEFORE=<commit>` names another, `off` leaves it out.
 */
const BEFORE = process.env.BENCH_PROXY_BEFORE ?? 'd27f650';

const ANSWER = JSON.stringify({ answer: 'A short answer. '.repeat(20), conversationId: 'c', visitorId: 'v', sources: [{ datasource_id: 'd', score: 0.9 }] });
/** A streamed answer's writes: 300 answer events, the response with five sources, [DONE] (bench/support/streamed-answer.ts). */
const STREAM_WRITES = streamedAnswerWrites();

// The stand-in service: JSON at once; a stream that starts at once; or a stream held open with a heartbeat event.
const heldResponses = new Set<ServerResponse>();
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
      // Written in batches of events, a turn of the event loop apart, as a model's tokens come.
      res.writeHead(200, EVENT_STREAM_HEADERS);
      let next = 0;
      const write = () => {
        if (res.destroyed) return;
        if (next === STREAM_WRITES.length - 1) return void res.end(STREAM_WRITES[next]);
        res.write(STREAM_WRITES[next++]);
        setImmediate(write);
      };
      write();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(ANSWER);
  });
});
upstream.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => upstream.listen({ port: 0, host: '127.0.0.1', backlog: 8192 }, resolve));
const upstreamPort = (upstream.address() as AddressInfo).port;
const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
const heartbeat = setInterval(() => {
  for (const res of heldResponses) res.write(answerEvent('.'));
}, 1000);

interface Server {
  name: string;
  url: string;
  pid: number;
  stop: () => Promise<void>;
  /** Session tokens its questions carry, one after another (sessions on). */
  tokens?: string[];
  /** The wrk script its JSON load runs (sessions on: a token on each question). */
  wrkScript?: string;
}

// The command as users run it: `kagent-proxy`, which runs the build in dist/ (made here first from the
// sources, so the figures are this checkout's; through tsx instead it costs about 7% more CPU per request).
const PROXY_COMMAND = fileURLToPath(new URL('../bin/kagent-proxy.js', import.meta.url));
const built = spawnSync(process.execPath, [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', fileURLToPath(new URL('../tsconfig.build.json', import.meta.url))], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('building the proxy (tsc -p tsconfig.build.json) failed');

// The proxy, from the package's command, in its own process. All load comes from 127.0.0.1, so the per-address cap is off.
// Its log (a line per request: part of its cost, as in a deployment) goes to a file, as `kagent-proxy >> proxy.log`
// or a container's log driver takes it. Not to a pipe read by this process: Node writes to a pipe synchronously, and
// this process, busy being the upstream, read it late, so the proxy waited on its own log lines (about 9 ms per
// request at 16 connections: 1,700 requests/s on a quiet machine, against 6,900 with the same log in a file).
async function startProxy(name = 'kagent-proxy', command = PROXY_COMMAND, env: Record<string, string> = {}): Promise<Server> {
  const logFile = join(mkdtempSync(join(tmpdir(), 'kagent-bench-proxy-')), 'proxy.log');
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [command], {
    env: { ...process.env, KAGENT_API_KEY: KEY, KAGENT_UPSTREAM_URL: upstreamUrl, KAGENT_AGENT_IDS: AGENT, KAGENT_ALLOWED_ORIGINS: ORIGIN, KAGENT_RATE_LIMIT_PER_ADDRESS: 'off', KAGENT_RATE_LIMIT_PER_VISITOR: 'off', KAGENT_MAX_CONNECTIONS_PER_ADDRESS: 'off', KAGENT_WORKERS: String(WORKERS), PORT: '0', ...env },
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log);
  let exited = false;
  child.once('exit', () => (exited = true));
  // The command says where it listens in its first log line.
  const deadline = Date.now() + 20_000;
  let url: string | undefined;
  while (!url) {
    const output = readFileSync(logFile, 'utf8');
    url = /listening on (http:\/\/[^"\s/]+)/.exec(output)?.[1];
    if (url) break;
    if (exited || Date.now() > deadline) throw new Error(`proxy did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const stop = async () => {
    await stopChild(child);
    rmSync(logFile, { force: true });
  };
  return { name, url, pid: child.pid!, stop };
}

/** The proxy with visitor sessions on, its questions each carrying a token it granted, earned over HTTP as a page earns one. */
async function startProxyWithSessions(): Promise<Server> {
  const server = await startProxy('kagent-proxy, sessions on', PROXY_COMMAND, SESSIONS_ENV);
  const tokens = await earnTokens(server.url, ORIGIN, SESSION_TOKENS);
  const wrkScript = join(WRK_SCRIPT, '..', 'post-with-session.lua');
  writeFileSync(wrkScript, wrkPreamble + tokensInTurn(tokens, ORIGIN));
  return { ...server, tokens, wrkScript };
}

// nginx as a reverse proxy in front of the same upstream: as many workers as the proxy has processes, kept-alive upstream
// connections, buffering off as an operator sets it for event streams, no access log (the proxy's log is part of it).
async function startNginx(binary: string): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'kagent-bench-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes ${WORKERS};
master_process ${WORKERS > 1 ? 'on' : 'off'};
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
worker_rlimit_nofile 20000;
events { worker_connections 16384; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream service { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location / {
      proxy_pass http://service;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
`,
  );
  const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await timedPost(url, '{"query":"warm"}')).status === 200) break;
    } catch {
      if (Date.now() > deadline) throw new Error('nginx did not start');
      await sleep(50);
    }
  }
  return {
    name: 'nginx',
    url,
    pid: child.pid!,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stopChild(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const keepAlive = new Agent({ keepAlive: true, maxSockets: 256 });

/** POSTs the body; resolves with ms to the first body byte and ms to the end. */
function timedPost(base: string, body: string, agent: Agent | false = keepAlive, headers: Record<string, string> = {}): Promise<{ firstByte: number; total: number; status: number }> {
  const target = new URL(PATH, base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { origin: ORIGIN, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res: IncomingMessage) => {
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
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};
const median = (values: number[]) => quantile(values, 0.5);

/** A process and its descendants (a primary and its workers), from /proc. */
const processTree = (pid: number): number[] => {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  return [pid, ...children.flatMap(processTree)];
};
/**
 * CPU time (all threads, user + system) a process and its workers have used, in ms: each thread's time on a CPU in
 * nanoseconds (/proc/PID/task/TID/schedstat), not /proc/PID/stat's 10 ms ticks, which a round of a second reads to
 * about 1%. (Node's threads live as long as the process, so no thread's time leaves the sum.)
 */
const cpuMs = (pid: number) =>
  processTree(pid).reduce((sum, each) => {
    for (const thread of readdirSync(`/proc/${each}/task`)) sum += Number(readFileSync(`/proc/${each}/task/${thread}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    return sum;
  }, 0);
const rssKiB = (pid: number) => processTree(pid).reduce((sum, each) => sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${each}/status`, 'utf8'))![1]), 0);

interface Load {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Requests not answered within 2 s (wrk's timeout) or failed. */
  over2s: number;
  failed: number;
  cpuUsPerRequest: number;
}

const WRK_SCRIPT = join(mkdtempSync(join(tmpdir(), 'kagent-bench-wrk-')), 'post.lua');
const wrkPreamble = `wrk.method = "POST"
wrk.body = '{"query":"q"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Origin"] = "${ORIGIN}"
function done(summary, latency, requests)
  io.write(string.format('RESULT {"requests":%d,"us":%d,"p50":%d,"p99":%d,"max":%d,"timeout":%d,"connect":%d,"read":%d,"write":%d,"status":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    summary.errors.timeout, summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status))
end`;
writeFileSync(WRK_SCRIPT, `${wrkPreamble}\n`);

const WRK_STREAM_SCRIPT = join(WRK_SCRIPT, '..', 'post-streaming.lua');
writeFileSync(WRK_STREAM_SCRIPT, `${wrkPreamble.replace(`'{"query":"q"}'`, `'{"query":"q","streaming":true}'`)}\n`);

/** `connections` clients asking JSON questions (or streamed ones) back to back for `seconds` through `server`. */
async function load(server: Server, connections: number, seconds: number, streaming = false): Promise<Load> {
  const cpuBefore = cpuMs(server.pid);
  let result: Omit<Load, 'cpuUsPerRequest'>;
  if (WRK) {
    // Not spawnSync: the upstream answering wrk's requests runs in this process.
    const child = spawn(WRK, ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '2s', '-s', streaming ? WRK_STREAM_SCRIPT : (server.wrkScript ?? WRK_SCRIPT), server.url + PATH]);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c));
    child.stderr.on('data', (c: Buffer) => (output += c));
    // 'close', not 'exit': a process can exit before its output is read (seen with three wrk at once).
    await new Promise((resolve) => child.once('close', resolve));
    const line = /RESULT (\{.*\})/.exec(output)?.[1];
    if (!line) throw new Error(`wrk failed: ${output}`);
    const r = JSON.parse(line) as Record<string, number>;
    const failed = r.connect! + r.read! + r.write! + r.status!;
    result = { requests: r.requests!, rps: r.requests! / (r.us! / 1e6), p50Ms: r.p50! / 1000, p99Ms: r.p99! / 1000, maxMs: r.max! / 1000, over2s: r.timeout!, failed };
  } else {
    const agent = new Agent({ keepAlive: true, maxSockets: connections });
    const times: number[] = [];
    let failed = 0;
    let asked = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < deadline) {
          try {
            const token = server.tokens?.[asked % server.tokens.length];
            asked++;
            const { total, status } = await timedPost(server.url, streaming ? '{"query":"q","streaming":true}' : '{"query":"q"}', agent, token === undefined ? {} : { [SESSION_HEADER]: token });
            if (status === 200) times.push(total);
            else failed++;
          } catch {
            failed++;
          }
        }
      }),
    );
    agent.destroy();
    const elapsed = (performance.now() - started) / 1000;
    result = { requests: times.length + failed, rps: times.length / elapsed, p50Ms: quantile(times, 0.5), p99Ms: quantile(times, 0.99), maxMs: Math.max(...times), over2s: times.filter((t) => t > 2000).length, failed };
  }
  return { ...result, cpuUsPerRequest: ((cpuMs(server.pid) - cpuBefore) * 1000) / Math.max(1, result.requests) };
}

/** Opens `count` event streams through `server` that the upstream holds open; resolves once each has sent a byte. */
async function openStreams(server: Server, count: number): Promise<ClientRequest[]> {
  const held: ClientRequest[] = [];
  let opened = 0;
  const allOpen = new Promise<void>((resolve, reject) => {
    const target = new URL(PATH, server.url);
    for (let i = 0; i < count; i++) {
      const body = '{"query":"hold","streaming":true}';
      const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent: false, headers: { origin: ORIGIN, 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream ${i} through ${server.name} answered ${res.statusCode}`));
        res.once('data', () => {
          if (++opened === count) resolve();
        });
        res.resume();
      });
      req.on('error', () => {});
      req.end(body);
      held.push(req);
    }
  });
  await Promise.race([allOpen, sleep(60_000).then(() => Promise.reject(new Error(`only ${opened} of ${count} streams opened through ${server.name} in 60 s`)))]);
  return held;
}

/**
 * Memory per held stream: `HELD_WARMUP` streams are opened first, so the
 * server's code for streams is compiled and its heap sized for them; then
 * `count` more, and the growth between the two is divided by `count`.
 */
async function heldStreams(server: Server, count: number): Promise<{ opened: number; perStreamKiB: number; cancelled: string }> {
  const warm = await openStreams(server, HELD_WARMUP);
  // Let heartbeats flow through every stream before measuring.
  await sleep(2500);
  const before = rssKiB(server.pid);
  const held = await openStreams(server, count);
  await sleep(2500);
  const during = rssKiB(server.pid);
  const upstreamOpen = heldResponses.size;
  for (const req of [...warm, ...held]) req.destroy();
  const deadline = Date.now() + 10_000;
  while (heldResponses.size > 0 && Date.now() < deadline) await sleep(50);
  return { opened: held.length, perStreamKiB: (during - before) / count, cancelled: `${upstreamOpen - heldResponses.size} of ${upstreamOpen}` };
}

/** `count` visitors connecting at the same instant, each asking one question on its own connection. */
async function burst(server: Server, count: number): Promise<{ answered: number; reset: number; other: number; p50Ms: number; p99Ms: number; maxMs: number }> {
  const times: number[] = [];
  let reset = 0;
  let other = 0;
  await Promise.all(
    Array.from({ length: count }, () =>
      timedPost(server.url, '{"query":"q"}', false).then(
        ({ total, status }) => (status === 200 ? times.push(total) : other++),
        (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? reset++ : other++),
      ),
    ),
  );
  return { answered: times.length, reset, other, p50Ms: quantile(times, 0.5), p99Ms: quantile(times, 0.99), maxMs: Math.max(...times) };
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadAtStart = loadAverage();
const servers: Server[] = [await startProxy()];
if (NGINX) servers.push(await startNginx(NGINX));
const [proxy, nginx] = servers as [Server, Server | undefined];
// The same command recording every question (KAGENT_INSIGHTS=on, memory store), measured beside two processes of it
// with insights off that have seen the same questions (the one above has seen far more): its cost per question, and
// the bench's own noise in the same rounds (the two off against each other).
const withInsights = await startProxy('kagent-proxy, insights on', PROXY_COMMAND, INSIGHTS_ENV);
servers.push(withInsights);
const offA = await startProxy('kagent-proxy, insights off (A)');
const offB = await startProxy('kagent-proxy, insights off (B)');
// Beside them under the JSON load at 16 connections: the proxy with sessions on, and the proxy before sessions.
const withSessions = await startProxyWithSessions();
const beforeBuild = BEFORE === 'off' ? undefined : buildProxyAt(BEFORE);
const before = beforeBuild && 'command' in beforeBuild ? await startProxy(`kagent-proxy before sessions (${BEFORE})`, beforeBuild.command) : undefined;
const json16Servers = [before, proxy, withSessions, nginx].filter((server): server is Server => server !== undefined);
const json256Servers = [proxy, nginx].filter((server): server is Server => server !== undefined);
const tokenHeader = (server: Server, i: number): Record<string, string> => (server.tokens ? { [SESSION_HEADER]: server.tokens[i % server.tokens.length]! } : {});

// Warm every path (JIT, connections).
for (let i = 0; i < 100; i++) {
  for (const server of [...servers, offA, offB]) await timedPost(server.url, '{"query":"warm","streaming":true}');
  for (const server of [before, withSessions]) if (server) await timedPost(server.url, '{"query":"warm"}', keepAlive, tokenHeader(server, i));
}

// 1. Time to first byte of a streamed answer, alternating direct and through each server.
const ttfb = new Map<string, number[]>([['direct', []], ...servers.map((s) => [s.name, []] as [string, number[]])]);
for (let i = 0; i < TTFB_RUNS; i++) {
  ttfb.get('direct')!.push((await timedPost(upstreamUrl, '{"query":"q","streaming":true}')).firstByte);
  for (const server of servers) {
    const answered = await timedPost(server.url, '{"query":"q","streaming":true}');
    if (answered.status !== 200) throw new Error(`${server.name} answered ${answered.status}`);
    ttfb.get(server.name)!.push(answered.firstByte);
  }
}

// 2 and 3. JSON questions at 16 connections (every server) and at 256 (the proxy and nginx), servers alternating,
// LOAD_ROUNDS rounds each; medians reported. First one round each, not counted: a Node process's first seconds
// under load cost it several times the CPU of the next ones (seen: 850 µs a question, then 200, then about 110)
// while its code is compiled, which would count against whichever server had seen the fewest questions before.
for (const server of json16Servers) await load(server, 16, LOAD_SECONDS);
const loads = new Map<string, Load[]>();
for (let round = 0; round < LOAD_ROUNDS; round++) {
  for (const connections of [16, 256]) {
    const measured = connections === 16 ? json16Servers : json256Servers;
    for (const server of round % 2 ? [...measured].reverse() : measured) {
      const key = `${server.name}@${connections}`;
      loads.set(key, [...(loads.get(key) ?? []), await load(server, connections, LOAD_SECONDS)]);
    }
  }
}
// Insights' cost: the proxy with insights on and two processes with them off, under the same load at the same time
// (each its own wrk at 16 connections), INSIGHTS_ROUNDS rounds of 2 s, JSON then streamed, after four rounds not
// counted. Run at once rather than in turn, the three share whatever else the machine does in that round, so the
// ratio is taken round by round, against the mean of the two off; the two off against each other is what the
// bench's own noise gives.
// The memory store keeps 200,000 records at most and drops the rest (which costs less than keeping them), so the
// records are forgotten (DELETE /insights) before it could fill, and a round not counted follows (what is held does
// not change what a record costs: bench/support/insights-in-process.ts with BENCH_RECORDS_HELD).
const INSIGHTS_ROUNDS = Number(process.env.BENCH_INSIGHTS_ROUNDS ?? 21);
const INSIGHTS_SECONDS = 2;
const insightsTrio = [offA, withInsights, offB];
const inTurn = <T>(items: T[], round: number): T[] => items.map((_, i) => items[(i + round) % items.length]!);
/** Questions the insights proxy may hold now (a bound: every question it was asked since its records were last forgotten). */
let recordsHeld = 10_000;
/** The three under load at once; what each measured, in the trio's order. */
async function insightsRound(streaming: boolean): Promise<Load[]> {
  const measured = await Promise.all(insightsTrio.map((server) => load(server, 16, INSIGHTS_SECONDS, streaming)));
  recordsHeld += measured[1]!.requests + 16;
  if (recordsHeld > 150_000) {
    const forgot = await fetch(`${withInsights.url}/insights`, { method: 'DELETE', headers: { authorization: `Bearer ${INSIGHTS_TOKEN}` } });
    if (!forgot.ok) throw new Error(`DELETE /insights answered ${forgot.status}`);
    recordsHeld = 0;
    await insightsRound(streaming);
  }
  return measured;
}
for (const streaming of [false, true]) {
  const kind = streaming ? 'streamed' : 'json';
  // Not counted: the insights processes have not been under this load yet, and a Node process's first seconds of
  // a load cost it far more (seen: the first JSON rounds at 3.6x, 2.2x, 1.5x, then about 1.1x).
  for (let warm = 0; warm < 4; warm++) await insightsRound(streaming);
  for (let round = 0; round < INSIGHTS_ROUNDS; round++) {
    const measured = await insightsRound(streaming);
    insightsTrio.forEach((server, i) => loads.set(`${server.name}@insights ${kind}`, [...(loads.get(`${server.name}@insights ${kind}`) ?? []), measured[i]!]));
  }
}
// The time to an answer's first byte, streamed and JSON, one question at a time through the three in turn.
const INSIGHTS_TTFB_RUNS = 300;
const firstBytes = new Map<string, { streamed: number[]; json: number[] }>(insightsTrio.map((server) => [server.name, { streamed: [], json: [] }]));
for (let i = 0; i < INSIGHTS_TTFB_RUNS; i++) {
  for (const server of inTurn(insightsTrio, i)) {
    const times = firstBytes.get(server.name)!;
    for (const kind of ['streamed', 'json'] as const) {
      const answered = await timedPost(server.url, kind === 'json' ? '{"query":"q"}' : '{"query":"q","streaming":true}');
      if (answered.status !== 200) throw new Error(`${server.name} answered ${answered.status}`);
      times[kind].push(answered.firstByte);
    }
  }
}
const loadOf = (server: Server, connections: number | string): Load => {
  const runs = loads.get(`${server.name}@${connections}`)!;
  const pick = (f: (l: Load) => number) => median(runs.map(f));
  return { requests: pick((l) => l.requests), rps: pick((l) => l.rps), p50Ms: pick((l) => l.p50Ms), p99Ms: pick((l) => l.p99Ms), maxMs: Math.max(...runs.map((l) => l.maxMs)), over2s: Math.max(...runs.map((l) => l.over2s)), failed: Math.max(...runs.map((l) => l.failed)), cpuUsPerRequest: pick((l) => l.cpuUsPerRequest) };
};

// 4. Streams held open, and each server's memory for them (after the load runs, as a running server is).
const held = new Map<string, Awaited<ReturnType<typeof heldStreams>>>();
for (const server of servers) held.set(server.name, await heldStreams(server, HELD_STREAMS));

// 5. A burst of simultaneous connections, each a visitor with one question.
const bursts = new Map<string, Awaited<ReturnType<typeof burst>>>();
for (const server of servers) {
  await sleep(1000);
  bursts.set(server.name, await burst(server, BURST));
}

const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ms` : '-');
const names = servers.map((s) => s.name);
const processes = WORKERS === 1 ? 'one process' : `${WORKERS} workers (KAGENT_WORKERS) and their primary`;
console.log(`Load average ${loadAtStart} at the start, ${loadAverage()} at the end (the machine's other work).`);
console.log(`Loopback, one run. Upstream: a stand-in in this process. kagent-proxy: the built command (bin/kagent-proxy.js), ${processes}. ${NGINX ? `nginx: ${NGINX}, ${WORKERS === 1 ? 'one worker' : `${WORKERS} workers and their master`}, the same upstream.` : 'nginx: NOT INSTALLED (apt-get install nginx-light), so no reference figures and no ratios.'} Load: ${WRK ? 'wrk, one thread' : 'Node clients (wrk not installed)'}.\n`);

console.log(`| time to first streamed byte (${TTFB_RUNS} requests each, alternating) | direct | ${names.join(' | ')} |`);
console.log(`|---|---|${names.map(() => '---').join('|')}|`);
for (const [label, q] of [['median', 0.5], ['p95', 0.95]] as const) console.log(`| ${label} | ${[...ttfb.values()].map((v) => ms(quantile(v, q))).join(' | ')} |`);
console.log('');

console.log(`| JSON questions, ${LOAD_SECONDS} s runs, median of ${LOAD_ROUNDS} | requests/s | p50 | p99 | max | over 2 s or failed (worst run) | server CPU per request |`);
console.log('|---|---|---|---|---|---|---|');
for (const connections of [16, 256]) {
  for (const server of connections === 16 ? json16Servers : json256Servers) {
    const l = loadOf(server, connections);
    console.log(`| ${server.name}, ${connections} connections | ${l.rps.toFixed(0)} | ${ms(l.p50Ms)} | ${ms(l.p99Ms)} | ${ms(l.maxMs)} | ${l.over2s} + ${l.failed} | ${(l.cpuUsPerRequest).toFixed(0)} µs |`);
  }
}
console.log('');

console.log(`| ${HELD_STREAMS} event streams held open after ${HELD_WARMUP} (heartbeat every second) | streams open | memory per stream (RSS) | upstream requests closed when the visitors left |`);
console.log('|---|---|---|---|');
for (const server of servers) {
  const h = held.get(server.name)!;
  console.log(`| ${server.name} | ${h.opened} | ${h.perStreamKiB.toFixed(1)} KiB | ${h.cancelled} |`);
}
console.log('');

console.log(`| ${BURST} visitors connecting at once, one question each | answered | reset | other failures | p50 | p99 | slowest |`);
console.log('|---|---|---|---|---|---|---|');
for (const server of servers) {
  const b = bursts.get(server.name)!;
  console.log(`| ${server.name} | ${b.answered} | ${b.reset} | ${b.other} | ${ms(b.p50Ms)} | ${ms(b.p99Ms)} | ${ms(b.maxMs)} |`);
}
console.log('');

// The cost of sessions, off and on, against the proxy before them: ratios taken round by round (the servers of one
// round ran within seconds of each other, so the machine's load moves them together), the median and the spread.
const perRound = (server: Server, against: Server, f: (l: Load) => number, load = '16') => {
  const mine = loads.get(`${server.name}@${load}`)!;
  const theirs = loads.get(`${against.name}@${load}`)!;
  return mine.map((l, round) => f(l) / f(theirs[round]!));
};
const spread = (ratios: number[]) => `**${median(ratios).toFixed(2)}x** (${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)})`;
const cpu = (l: Load) => l.cpuUsPerRequest;
const rps = (l: Load) => l.rps;
console.log(`| JSON questions at 16 connections, ${LOAD_ROUNDS} rounds of ${LOAD_SECONDS} s${nginx ? '' : ' (no nginx: no ratios to it)'} | CPU per request | × nginx's CPU | × nginx's requests/s | refused or failed (worst run) |`);
console.log('|---|---|---|---|---|');
for (const server of json16Servers) {
  const l = loadOf(server, 16);
  const toNginx = nginx ? [spread(perRound(server, nginx, cpu)), spread(perRound(server, nginx, rps))] : ['-', '-'];
  console.log(`| ${server.name} | ${l.cpuUsPerRequest.toFixed(0)} µs | ${toNginx.join(' | ')} | ${l.over2s + l.failed} |`);
}
console.log('');
{
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  console.log('| CPU per JSON question, round by round | ratio, median (spread) | target | |');
  console.log('|---|---|---|---|');
  if (before) {
    const offBefore = perRound(proxy, before, cpu);
    console.log(`| sessions off against the proxy before sessions (${BEFORE}) | ${spread(offBefore)} | at most 1x | ${verdict(median(offBefore) <= 1)} |`);
  } else console.log(`| sessions off against the proxy before sessions | not measured: ${beforeBuild && 'missing' in beforeBuild ? beforeBuild.missing : 'BENCH_PROXY_BEFORE=off'} | at most 1x | **not measured** |`);
  const onOff = perRound(withSessions, proxy, cpu);
  console.log(`| sessions on (a token on each question) against sessions off | ${spread(onOff)} | under 1.1x | ${verdict(median(onOff) < 1.1)} |`);
  console.log('');
}

if (nginx) {
  const json16 = loadOf(proxy, 16).rps / loadOf(nginx, 16).rps;
  const p256 = loadOf(proxy, 256);
  const p99Ratio = p256.p99Ms / loadOf(nginx, 256).p99Ms;
  const memory = held.get(proxy.name)!.perStreamKiB / held.get(nginx.name)!.perStreamKiB;
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  console.log('| kagent-proxy against nginx | ratio | target | |');
  console.log('|---|---|---|---|');
  console.log(`| JSON requests/s at 16 connections | ${json16.toFixed(2)}x | at least 0.3x | ${verdict(json16 >= 0.3)} |`);
  console.log(`| p99 at 256 connections | ${p99Ratio.toFixed(2)}x, ${p256.over2s} over 2 s | at most 2x, none over 2 s | ${verdict(p99Ratio <= 2 && p256.over2s === 0)} |`);
  // With several processes a worker's heap can shrink while the streams open, so the growth can even be negative: no figure then.
  const measurable = held.get(proxy.name)!.perStreamKiB > 0 && held.get(nginx.name)!.perStreamKiB > 0;
  console.log(`| memory per held stream | ${measurable ? `${memory.toFixed(2)}x` : 'not measurable in this run (RSS fell while the streams opened)'} | at most 2x | ${measurable ? verdict(memory <= 2) : '**not measured**'} |`);
} else {
  console.log('nginx is not installed: no reference run and no ratios (install nginx-light to get them).');
}

{
  // What was recorded, read back: every question kept (a full or failing store would have dropped some, and the
  // figures would then be of a proxy that recorded less).
  const report = (await (await fetch(`${withInsights.url}/insights`, { headers: { authorization: `Bearer ${INSIGHTS_TOKEN}` } })).json()) as { totals: { questions: number; dropped: number } };
  const quartiles = (values: number[], digits: number) => `${quantile(values, 0.25).toFixed(digits)} to ${quantile(values, 0.75).toFixed(digits)}`;
  const ratioLine = (ratios: number[]) => `**${median(ratios).toFixed(3)}x** (middle half ${quartiles(ratios, 3)}; all ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)})`;
  console.log('');
  console.log(`| insights, ${INSIGHTS_ROUNDS} rounds of ${INSIGHTS_SECONDS} s, the three processes at once, each at 16 connections | insights on against off (the mean of the two), round by round | off (B) against off (A): the bench's own noise | target | |`);
  console.log('|---|---|---|---|---|');
  for (const kind of ['json', 'streamed'] as const) {
    const key = `insights ${kind}`;
    const onOff = perRound(withInsights, offA, cpu, key).map((ratio, round) => (2 * ratio) / (1 + perRound(offB, offA, cpu, key)[round]!));
    const offOff = perRound(offB, offA, cpu, key);
    const us = (server: Server) => loadOf(server, key).cpuUsPerRequest.toFixed(0);
    const what = kind === 'json' ? 'proxy CPU per JSON question' : 'proxy CPU per streamed answer (34 KB)';
    console.log(`| ${what}: off ${us(offA)} and ${us(offB)} µs, on ${us(withInsights)} (medians) | ${ratioLine(onOff)} | ${ratioLine(offOff)} | at most 1.05x | ${median(onOff) <= 1.05 ? 'met' : '**not met**'} |`);
  }
  // Paired: the three asked in turn, so each difference is of questions asked a few milliseconds apart.
  for (const kind of ['streamed', 'json'] as const) {
    const [a, on, b] = insightsTrio.map((server) => firstBytes.get(server.name)![kind]) as [number[], number[], number[]];
    const off = a.map((t, i) => (t + b[i]!) / 2);
    const gapLine = (gaps: number[]) => `${median(gaps) >= 0 ? '+' : ''}${median(gaps).toFixed(3)} ms (middle half ${quartiles(gaps, 3)})`;
    console.log(`| time to the first byte of a ${kind === 'json' ? 'JSON answer' : 'streamed answer'}, ${INSIGHTS_TTFB_RUNS} questions one at a time: off ${ms(median(off))}, median of the differences | ${gapLine(on.map((t, i) => t - off[i]!))} | ${gapLine(b.map((t, i) => t - a[i]!))} | nothing added | |`);
  }
  console.log(`| questions recorded / dropped | ${report.totals.questions} / ${report.totals.dropped} | | none dropped | ${report.totals.dropped === 0 ? 'met' : '**not met: the figures above are of a proxy that dropped records**'} |`);
  // Round by round, in the order run: a cost that grew with the records held would rise from the first to the last.
  const rounds = (key: string) => perRound(withInsights, offA, cpu, key).map((ratio, round) => ((2 * ratio) / (1 + perRound(offB, offA, cpu, key)[round]!)).toFixed(2)).join(', ');
  console.log(`| CPU on against off, round by round in the order run: JSON; streamed | ${rounds('insights json')}; ${rounds('insights streamed')} | | | |`);
}

clearInterval(heartbeat);
keepAlive.destroy();
for (const server of [...servers, offA, offB, withSessions, ...(before ? [before] : [])]) await server.stop();
rmSync(join(WRK_SCRIPT, '..'), { recursive: true, force: true });
upstream.closeAllConnections();
upstream.close();
