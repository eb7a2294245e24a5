// Builds of the proxy side by side under the JSON load of bench/proxy.bench.ts
// (wrk, 16 connections), in alternating rounds, so that a change is judged
// against the code before it in the same minutes of a shared machine.
//
//   node --import tsx bench/support/proxy-side-by-side.ts [dir/proxy/cli.js ...]
//
// Each argument is a built `cli.js` (default: this checkout's dist/, built
// first), optionally with node flags for it before a `|`, and `+sessions`
// after it for visitor sessions on (a token on each question) or `+insights` for insights on; a copy of dist/
// elsewhere needs package.json and node_modules beside it. BENCH_STREAMING=1 asks for streamed answers (those of
// bench/support/streamed-answer.ts) instead of JSON. BENCH_ROUNDS (default 5; the first is left out as warm-up),
// BENCH_SECONDS (4), BENCH_CONNECTIONS (16), BENCH_WORKERS (1), and
// BENCH_NODE_ARGS (extra node flags for the proxy, e.g. `--cpu-prof
// --cpu-prof-dir=/tmp/prof`) as in the bench. The stand-in upstream runs in a
// process of its own here, so the upstream's own turns never delay reading
// wrk's output or /proc.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INSIGHTS_ENV, SESSIONS_ENV, SESSION_TOKENS, earnTokens, tokensInTurn } from './proxy-variants.js';
import { streamedAnswerWrites } from './streamed-answer.js';

const KEY = 'sk_bench_0123456789abcdef';
const ORIGIN = 'https://www.example.com';
const AGENT = 'agent_bench';
const PATH = `/agents/${AGENT}/query`;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const STREAMING = process.env.BENCH_STREAMING === '1';

const root = fileURLToPath(new URL('../../', import.meta.url));
let builds = process.argv.slice(2);
if (builds.length === 0) {
  const built = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building the proxy failed');
  builds = [join(root, 'dist/proxy/node/cli.js')];
}

const work = mkdtempSync(join(tmpdir(), 'kagent-side-by-side-'));

// The stand-in service of bench/proxy.bench.ts: its JSON answer, and its streamed answer written a batch of events a turn.
const UPSTREAM = `
import { createServer } from 'node:http';
const ANSWER = JSON.stringify({ answer: 'A short answer. '.repeat(20), conversationId: 'c', visitorId: 'v', sources: [{ datasource_id: 'd', score: 0.9 }] });
const WRITES = ${JSON.stringify(streamedAnswerWrites())};
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (!JSON.parse(body).streaming) { res.writeHead(200, { 'Content-Type': 'application/json' }); return res.end(ANSWER); }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    let next = 0;
    const write = () => {
      if (res.destroyed) return;
      if (next === WRITES.length - 1) return res.end(WRITES[next]);
      res.write(WRITES[next++]);
      setImmediate(write);
    };
    write();
  });
});
server.keepAliveTimeout = 30000;
server.listen({ port: 0, host: '127.0.0.1', backlog: 8192 }, () => console.log(server.address().port));
`;
writeFileSync(join(work, 'upstream.mjs'), UPSTREAM);
const upstream = spawn(process.execPath, [join(work, 'upstream.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
// Never left behind, whatever happens to this script.
process.once('exit', () => upstream.kill('SIGTERM'));
const upstreamPort = await new Promise<string>((resolve) => upstream.stdout!.once('data', (c: Buffer) => resolve(c.toString().trim())));

const wrkScript = `wrk.method = "POST"
wrk.body = '${STREAMING ? '{"query":"q","streaming":true}' : '{"query":"q"}'}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Origin"] = "${ORIGIN}"
function done(summary, latency, requests)
  io.write(string.format('RESULT %d %d %d %d %d\\n', summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), summary.errors.status))
end
`;
writeFileSync(join(work, 'post.lua'), wrkScript);

interface Running {
  cli: string;
  child: ChildProcess;
  url: string;
  script: string;
}

async function start(cli: string, index: number): Promise<Running> {
  const logFile = join(work, `proxy-${index}.log`);
  const log = openSync(logFile, 'w');
  // `--flag --other|path/cli.js`: node flags for this one build.
  const [flags, rest] = cli.includes('|') ? (cli.split('|') as [string, string]) : ['', cli];
  const sessions = rest.endsWith('+sessions');
  const insights = rest.endsWith('+insights');
  const path = sessions || insights ? rest.slice(0, rest.lastIndexOf('+')) : rest;
  const child = spawn(process.execPath, [...NODE_ARGS, ...flags.split(' ').filter(Boolean), path], {
    env: { ...process.env, KAGENT_API_KEY: KEY, KAGENT_UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}`, KAGENT_AGENT_IDS: AGENT, KAGENT_ALLOWED_ORIGINS: ORIGIN, KAGENT_RATE_LIMIT_PER_ADDRESS: 'off', KAGENT_RATE_LIMIT_PER_VISITOR: 'off', KAGENT_MAX_CONNECTIONS_PER_ADDRESS: 'off', KAGENT_WORKERS: String(WORKERS), PORT: '0', ...(sessions ? SESSIONS_ENV : {}), ...(insights ? INSIGHTS_ENV : {}) },
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log);
  for (;;) {
    const url = /listening on (http:\/\/[^"\s/]+)/.exec(readFileSync(logFile, 'utf8'))?.[1];
    if (url && !sessions) return { cli, child, url, script: join(work, 'post.lua') };
    if (url) {
      const tokens = await earnTokens(url, ORIGIN, SESSION_TOKENS);
      const script = join(work, `post-${index}.lua`);
      writeFileSync(script, wrkScript + tokensInTurn(tokens, ORIGIN));
      return { cli, child, url, script };
    }
    if (child.exitCode !== null) throw new Error(`${cli} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const processTree = (pid: number): number[] => [pid, ...readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number).flatMap(processTree)];
/** CPU time used so far by a process and its workers, in ms: in the process itself (user) and in the kernel on its behalf (system). */
const cpuMs = (pid: number) =>
  processTree(pid).reduce(
    (sum, each) => {
      const fields = readFileSync(`/proc/${each}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return { user: sum.user + Number(fields[11]) * 10, system: sum.system + Number(fields[12]) * 10 };
    },
    { user: 0, system: 0 },
  );

async function load(server: Running): Promise<{ rps: number; cpuUs: number; systemUs: number; p50Ms: number; p99Ms: number }> {
  const before = cpuMs(server.child.pid!);
  const wrk = spawn('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--timeout', '2s', '-s', server.script, server.url + PATH]);
  let output = '';
  wrk.stdout.on('data', (c: Buffer) => (output += c));
  await new Promise((resolve) => wrk.once('exit', resolve));
  const match = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(output);
  if (!match) throw new Error(`wrk failed: ${output}`);
  const [requests, us, p50, p99, refused] = match.slice(1).map(Number) as [number, number, number, number, number];
  if (refused > 0) console.log(`${server.cli}: ${refused} of ${requests} questions refused`);
  const after = cpuMs(server.child.pid!);
  const perRequest = (ms: number) => (ms * 1000) / requests;
  return { rps: requests / (us / 1e6), cpuUs: perRequest(after.user + after.system - before.user - before.system), systemUs: perRequest(after.system - before.system), p50Ms: p50 / 1000, p99Ms: p99 / 1000 };
}

const servers: Running[] = [];
for (const [i, cli] of builds.entries()) servers.push(await start(cli, i));
const results = new Map<Running, Awaited<ReturnType<typeof load>>[]>(servers.map((s) => [s, []]));
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load average at start: ${loadAverage()}`);
for (let round = 0; round < ROUNDS; round++) {
  for (const server of round % 2 ? [...servers].reverse() : servers) {
    const result = await load(server);
    if (round > 0) results.get(server)!.push(result);
    console.log(`round ${round}${round === 0 ? ' (warm-up)' : ''} ${server.cli}: ${result.rps.toFixed(0)} requests/s, ${result.cpuUs.toFixed(0)} µs CPU per request (${result.systemUs.toFixed(0)} in the kernel), p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`);
  }
}
console.log(`load average at end: ${loadAverage()}`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
for (const server of servers) {
  const runs = results.get(server)!;
  console.log(`median ${server.cli}: ${median(runs.map((r) => r.rps)).toFixed(0)} requests/s, ${median(runs.map((r) => r.cpuUs)).toFixed(0)} µs CPU per request (${median(runs.map((r) => r.systemUs)).toFixed(0)} in the kernel)`);
}

for (const server of servers) {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}
upstream.kill('SIGTERM');
rmSync(work, { recursive: true, force: true });
