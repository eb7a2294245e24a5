// Whatever ends `npm start`, `npx kagent-proxy` or the node process under them
// (SIGINT, SIGTERM or SIGKILL), every process they started ends and every port
// they held closes; SIGINT and SIGTERM let an answer under way finish first.
// Real processes on free ports; each wait is for an event (a port refusing, a
// process gone), never a fixed sleep. Linux: the process tree is read in /proc.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { DONE_EVENT, EVENT_STREAM_HEADERS, answerEvent, endpointResponseEvent } from '../../src/protocol/index.js';
import { earnSession, TEST_DIFFICULTY, withSession } from '../support/proxy-sessions.js';
import { startRecordingUpstream, type RecordingUpstream } from '../support/proxy-upstream.js';
import { SAMPLE_ANSWER } from '../support/scripted-service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SITE = 'http://site.example';
const AGENT = 'agent-exits';
const scratch = mkdtempSync(join(tmpdir(), 'kagent-exits-'));
let upstream: RecordingUpstream;
/** Opened by the test once the shutdown has begun: the stand-in service then finishes the answer it holds. */
const gates = new Map<string, () => void>();

before(async () => {
  builtOnce();
  upstream = await startRecordingUpstream();
  // The first half of the answer at once; the rest when the test opens the gate named by the question.
  upstream.behave(async (_req, res, recorded) => {
    const question = (JSON.parse(recorded.body) as { query: string }).query;
    res.writeHead(200, EVENT_STREAM_HEADERS);
    res.write(answerEvent('Half '));
    await new Promise<void>((open) => gates.set(question, open));
    res.end(answerEvent('of it.') + endpointResponseEvent(JSON.stringify(SAMPLE_ANSWER)) + DONE_EVENT);
  });
});

after(async () => {
  // A failed test leaves its answer held: let it go, or the stand-in could not close.
  for (const open of gates.values()) open();
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * dist/ as `npm start` and `kagent-proxy` run it, built here only when missing or older than src/ (in CI, the
 * package tests' `npm pack` has just built it: one build shared).
 */
function builtOnce(): void {
  const newest = (folder: string): number =>
    Math.max(0, ...readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs));
  const sources = newest(join(root, 'src'));
  const stale = (file: string) => {
    try {
      return statSync(join(root, file)).mtimeMs < sources;
    } catch {
      return true;
    }
  };
  const run = (command: string, args: string[]) => {
    const done = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
    assert.equal(done.status, 0, `${command} ${args.join(' ')}:\n${done.stdout}${done.stderr}`);
  };
  if (stale('dist/proxy/node/cli.js')) run('npx', ['tsc', '-p', 'tsconfig.build.json']);
  if (stale('dist/kagent-chat.js')) run('npx', ['vite', 'build', '--logLevel', 'warn']);
}

interface Entry {
  /** The command as a user types it. */
  name: string;
  start(env: NodeJS.ProcessEnv): ChildProcess;
  /** The node process that runs our code, below npm or npx and its shell. */
  isOurNode(cmdline: string[]): boolean;
  /** Waits for the start-up output; the ports it holds and the proxy's address. */
  ready(said: () => string, wait: (pattern: RegExp) => Promise<RegExpExecArray>): Promise<{ ports: number[]; proxy: string; page?: string }>;
}

const proxyEnv = () => ({ PORT: '0', HOST: '127.0.0.1', KAGENT_API_KEY: 'kagent_exits_KEY', KAGENT_UPSTREAM_URL: upstream.url, KAGENT_AGENT_IDS: AGENT, KAGENT_ALLOWED_ORIGINS: SITE });
const demoEnv = () => ({ PORT: '0', KAGENT_PROXY_PORT: '0', KAGENT_EMULATOR_PORT: '0', KAGENT_DATA_DIR: mkdtempSync(join(scratch, 'data-')), KAGENT_UPSTREAM_URL: upstream.url, KAGENT_API_KEY: 'kagent_exits_KEY', KAGENT_AGENT_IDS: AGENT, KAGENT_SESSION_DIFFICULTY: TEST_DIFFICULTY });
const spawnHere = (command: string, args: string[], env: NodeJS.ProcessEnv) => spawn(command, args, { cwd: root, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
const isNode = (cmdline: string[]) => /(^|\/)node$/.test(cmdline[0] ?? '');

async function demoReady(wait: (pattern: RegExp) => Promise<RegExpExecArray>) {
  const [, page] = await wait(/kagent-chat demo:\s+(http:\/\/127\.0\.0\.1:\d+)\//);
  await wait(/Press Ctrl-C to stop/);
  const config = (await (await fetch(`${page}/demo-config.json`)).json()) as { endpoint: string };
  return { ports: [page!, config.endpoint].map((url) => Number(new URL(url).port)), proxy: config.endpoint, page };
}
async function proxyReady(wait: (pattern: RegExp) => Promise<RegExpExecArray>) {
  const [, proxy] = await wait(/kagent proxy listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { ports: [Number(new URL(proxy!).port)], proxy: proxy! };
}

const ENTRIES: Entry[] = [
  {
    name: 'npm start',
    start: (env) => spawnHere('npm', ['start', '--', '--no-build'], { ...demoEnv(), ...env }),
    isOurNode: (cmdline) => isNode(cmdline) && cmdline.includes('demo/start.ts'),
    ready: (_said, wait) => demoReady(wait),
  },
  {
    name: 'npx kagent-proxy',
    start: (env) => spawnHere('npx', ['kagent-proxy'], { ...proxyEnv(), ...env }),
    isOurNode: (cmdline) => isNode(cmdline) && cmdline.some((arg) => arg.endsWith('kagent-proxy')),
    ready: (_said, wait) => proxyReady(wait),
  },
  {
    name: 'node bin/kagent-proxy.js',
    start: (env) => spawnHere(process.execPath, ['bin/kagent-proxy.js'], { ...proxyEnv(), ...env }),
    isOurNode: () => true,
    ready: (_said, wait) => proxyReady(wait),
  },
  {
    name: 'node demo/start.ts',
    start: (env) => spawnHere(process.execPath, ['--import', 'tsx', 'demo/start.ts'], { ...demoEnv(), ...env }),
    isOurNode: () => true,
    ready: (_said, wait) => demoReady(wait),
  },
];

/** Every process on the machine: parent, state and command line (/proc). */
function processTable(): Map<number, { ppid: number; state: string; cmdline: string[] }> {
  const table = new Map<number, { ppid: number; state: string; cmdline: string[] }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      table.set(Number(name), { ppid: Number(ppid), state: state!, cmdline });
    } catch {
      // Ended while we read.
    }
  }
  return table;
}

/** `pid` and all its descendants, with their command lines. */
function tree(pid: number): Map<number, string[]> {
  const table = processTable();
  const found = new Map<number, string[]>([[pid, table.get(pid)?.cmdline ?? []]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, { ppid, cmdline }] of table) {
      if (found.has(ppid) && !found.has(child)) {
        found.set(child, cmdline);
        grew = true;
      }
    }
  }
  return found;
}

/** Ended: gone, or a zombie waiting for its parent to collect it. */
function ended(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** A new connection to the port is refused: nothing listens there any more. */
function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Waits until `condition` holds (checked every 50 ms: these are other processes, with no event to listen to here). */
async function until(condition: () => boolean | Promise<boolean>, what: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still not so after ${timeoutMs / 1000} s: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function started(entry: Entry) {
  const child = entry.start({});
  let said = '';
  const waiting = new Set<() => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.on('data', (chunk: Buffer) => {
      said += chunk;
      for (const check of waiting) check();
    });
  }
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const wait = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(said);
        if (match) {
          waiting.delete(check);
          resolve(match);
        }
      };
      waiting.add(check);
      check();
      void exit.then(() => waiting.has(check) && reject(new Error(`${entry.name} ended before printing ${pattern}:\n${said}`)));
    });
  return { child, said: () => said, wait, exit };
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGKILL'] as const;

for (const entry of ENTRIES) {
  const launched = entry.name.startsWith('npm') || entry.name.startsWith('npx');
  const targets = launched ? [entry.name.split(' ')[0]!, 'node'] : ['node'];
  describe(entry.name, { concurrency: 3 }, () => {
    for (const target of targets) {
      // SIGINT to npm or npx both as a terminal's Ctrl-C sends it (to the process group) and as a process manager
      // does (to npm's process alone, which Debian's sh, dash, keeps while its command runs).
      const sends = SIGNALS.flatMap((signal) => (signal === 'SIGINT' && target !== 'node' ? [{ signal, group: true }, { signal, group: false }] : [{ signal, group: false }]));
      for (const { signal, group } of sends) {
        const graceful = signal !== 'SIGKILL';
        test(`${signal} to ${target}'s ${group ? 'process group (Ctrl-C)' : 'process'} ends every process and port${graceful ? ', after the answer under way' : ''}`, { timeout: 90_000 }, async (t) => {
          const run = started(entry);
          t.after(() => {
            for (const pid of tree(run.child.pid!).keys()) if (!ended(pid)) process.kill(pid, 'SIGKILL');
          });
          const { ports, proxy, page } = await entry.ready(run.said, run.wait);
          const processes = tree(run.child.pid!);
          const ours = [...processes].find(([, cmdline]) => entry.isOurNode(cmdline))?.[0];
          assert.ok(ours, `our node process under ${entry.name}: ${JSON.stringify([...processes.values()])}`);

          // An answer under way: its first half has arrived when the signal is sent.
          const question = `${entry.name} ${target}${group ? ' group' : ''} ${signal}`;
          const origin = page ? new URL(page).origin : SITE;
          const headers = page ? withSession((await earnSession(proxy, origin)).grant.token, origin) : { Origin: SITE, 'Content-Type': 'application/json' };
          const response = await fetch(`${proxy.replace(/\/$/, '')}/agents/${AGENT}/query`, { method: 'POST', headers, body: JSON.stringify({ query: question, streaming: true }) });
          assert.equal(response.status, 200);
          const reader = response.body!.getReader();
          const decoder = new TextDecoder();
          let text = decoder.decode((await reader.read()).value, { stream: true });
          assert.match(text, /Half/);
          const rest = (async () => {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) return text;
              text += decoder.decode(value, { stream: true });
            }
          })().catch(() => text);

          process.kill(target === 'node' ? ours : group ? -run.child.pid! : run.child.pid!, signal);
          if (graceful) {
            // The proxy stops taking connections: its shutdown has begun, and the answer must still finish.
            await until(() => refuses(Number(new URL(proxy).port)), () => `the proxy still listens:\n${run.said()}`);
            gates.get(question)!();
            assert.match(await rest, /of%20it\.[\s\S]*\[DONE\]/, 'the answer under way finished');
          } else {
            gates.get(question)!();
          }
          for (const port of ports) await until(() => refuses(port), () => `port ${port} still listens:\n${run.said()}`);
          await until(() => [...processes.keys()].every(ended), () => `left running: ${JSON.stringify([...processes].filter(([pid]) => !ended(pid)))}\n${run.said()}`);
        });
      }
    }
  });
}

test('SIGKILL to npm start, answering from its own emulator, frees the emulator\'s port too', { timeout: 120_000 }, async (t) => {
  const run = started({ ...ENTRIES[0]!, start: () => spawnHere('npm', ['start', '--', '--no-build'], { PORT: '0', KAGENT_PROXY_PORT: '0', KAGENT_EMULATOR_PORT: '0', KAGENT_DATA_DIR: mkdtempSync(join(scratch, 'data-')) }) });
  t.after(() => {
    for (const pid of tree(run.child.pid!).keys()) if (!ended(pid)) process.kill(pid, 'SIGKILL');
  });
  const { ports } = await demoReady(run.wait);
  const [, emulator] = await run.wait(/local service \(emulator\) at (http:\/\/127\.0\.0\.1:\d+)/);
  const processes = tree(run.child.pid!);
  process.kill(run.child.pid!, 'SIGKILL');
  for (const port of [...ports, Number(new URL(emulator!).port)]) await until(() => refuses(port), () => `port ${port} still listens:\n${run.said()}`);
  await until(() => [...processes.keys()].every(ended), () => `left running: ${JSON.stringify([...processes].filter(([pid]) => !ended(pid)))}`);
});
