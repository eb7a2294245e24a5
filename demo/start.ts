// `npm start`: the demo page with <kagent-chat>, answering through the proxy
// (the `kagent-proxy` command, in a process of its own that alone holds the
// API key) from a local emulator seeded with this project's own README and
// docs, or, with KAGENT_UPSTREAM_URL, KAGENT_API_KEY and KAGENT_AGENT_IDS
// set, from that service. The page only ever talks to the proxy.
// `--build` (what `npm start` passes) builds the chat into dist/ first;
// `npm start -- --no-build` starts from the dist/ already built.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from 'srvx';
import { parseRateLimit } from '../src/proxy/core/env.js';
import { endWithLauncher } from '../src/proxy/node/launcher.js';
import { KagentClient } from '../src/client/index.js';
import { startEmulator, type RunningEmulator } from '../emulator/src/index.js';
import { seedKnowledgeBase } from './knowledge-base.js';

const root = new URL('../', import.meta.url);
const env = process.env;

/** Ports from the environment; `0` picks free ones (the end-to-end test does). */
const ports = {
  page: port('PORT', 5173),
  proxy: port('KAGENT_PROXY_PORT', 8788),
  emulator: port('KAGENT_EMULATOR_PORT', 8787),
};
const host = '127.0.0.1';

const running: { close(): Promise<void> }[] = [];
let stopping = false;

/**
 * The proxy's rate limits for the demo, unless set in the environment: an
 * hour of trying never meets them. A site's proxy starts stricter
 * (docs/proxy.md, Configuration): five questions a conversation every five minutes.
 */
const DEMO_LIMITS = [
  { variable: 'KAGENT_RATE_LIMIT_PER_SESSION', value: '60/5min', what: 'questions', per: 'conversation' },
  { variable: 'KAGENT_RATE_LIMIT_PER_VISITOR', value: '30/minute', what: '', per: 'visitor' },
  { variable: 'KAGENT_RATE_LIMIT_PER_ADDRESS', value: '60/minute', what: '', per: 'address' },
  { variable: 'KAGENT_SESSIONS_PER_ADDRESS', value: '60/hour', what: 'new conversations', per: 'address' },
] as const;

async function main(): Promise<void> {
  if (process.argv.includes('--build') && !process.argv.includes('--no-build')) await buildChat();
  const upstream = upstreamFromEnv();
  const bundle = await readFile(new URL('dist/kagent-chat.js', root), 'utf8').catch(() => fail('dist/kagent-chat.js is missing: run `npm run build` (npm start does it for you).'));

  // The page's server starts first: the proxy must know the page's origin.
  const page = listen('page', ports.page, (request) => servePage(request, bundle));
  const pageServer = await page;
  running.push(pageServer);

  let apiKey: string, upstreamUrl: string, agentIds: string[], localService: string | undefined;
  if (upstream) {
    ({ apiKey, upstreamUrl, agentIds } = upstream);
    console.log(`Answering from ${upstreamUrl} (agents ${agentIds.join(', ')}).`);
  } else {
    const { emulator, bubbleAgentId } = await startLocalService();
    apiKey = emulator.demo.apiKey;
    upstreamUrl = emulator.url;
    agentIds = [emulator.demo.agentId, bubbleAgentId];
    localService = emulator.url;
  }

  const limits = Object.fromEntries(DEMO_LIMITS.map(({ variable, value }) => [variable, env[variable] ?? value]));
  const proxy = await startProxy({
    KAGENT_API_KEY: apiKey,
    KAGENT_UPSTREAM_URL: upstreamUrl,
    KAGENT_AGENT_IDS: agentIds.join(','),
    KAGENT_ALLOWED_ORIGINS: env.KAGENT_ALLOWED_ORIGINS ?? pageServer.origin,
    // Visitor sessions on, as a site should run it: the page earns its session by proof of work. A new secret each start.
    KAGENT_SESSION_SECRET: env.KAGENT_SESSION_SECRET ?? randomBytes(32).toString('hex'),
    ...limits,
  });
  running.push(proxy);
  // The bubble gets the second agent when there is one, so the two chats keep conversations of their own.
  pageConfig = { agentId: agentIds[0]!, bubbleAgentId: agentIds[1] ?? agentIds[0]!, endpoint: proxy.url.replace(/\/$/, '') };

  console.log(`\n  kagent-chat demo:  ${pageServer.origin}/\n`);
  console.log(`  The page talks to the proxy at ${pageConfig.endpoint}; only the proxy holds the API key.`);
  if (localService) console.log(`  The proxy asks the local service (emulator) at ${localService}.`);
  console.log(`  Limits, loose for trying it out: ${DEMO_LIMITS.map(({ variable, what, per }) => `${inWords(limits[variable]!, what)} per ${per}`).join(', ')}.`);
  console.log('  A site\'s proxy starts stricter (5 questions every 5 minutes per conversation: docs/proxy.md, Configuration); set KAGENT_RATE_LIMIT_PER_SESSION and the others to try yours.');
  console.log('  Press Ctrl-C to stop (answers under way finish first; press it again to stop at once).\n');
}

/** `60/5min` of `questions` as `60 questions every 5 minutes`, `30/minute` as `30 a minute`. */
function inWords(limit: string, what: string): string {
  const parsed = parseRateLimit(limit);
  if (parsed === false) return `no limit on ${what || 'questions'}`;
  if (!parsed) return limit;
  const { max, windowSeconds: s } = parsed;
  const window = s === 60 ? 'a minute' : s === 3600 ? 'an hour' : s % 60 === 0 ? `every ${s / 60} minutes` : `every ${s} s`;
  return `${max}${what ? ` ${what}` : ''} ${window}`;
}

/** `vite build`, in this process: `npm start` is one process, so whatever ends it ends everything. */
async function buildChat(): Promise<void> {
  console.log('Building the chat into dist/…');
  const { build } = await import('vite');
  await build({ configFile: fileURLToPath(new URL('vite.config.ts', root)), logLevel: 'warn' });
}

/**
 * The emulator, with this project's README and docs as its knowledge base, and
 * a second agent on the same documents for the page's bubble.
 */
async function startLocalService(): Promise<{ emulator: RunningEmulator; bubbleAgentId: string }> {
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator({
      port: ports.emulator,
      host,
      dataDir: await dataFolder(),
      log: (message) => console.error(`emulator: ${message}`),
      ...(env.KAGENT_DEMO_KEY ? { demoApiKey: env.KAGENT_DEMO_KEY } : {}),
    });
  } catch (error) {
    if (isPortInUse(error)) fail(portInUseMessage('local service (emulator)', 'KAGENT_EMULATOR_PORT', ports.emulator));
    throw error;
  }
  running.push(emulator);
  const client = new KagentClient({ baseUrl: emulator.url, apiKey: emulator.demo.apiKey });
  await seedKnowledgeBase(root, { url: emulator.url, apiKey: emulator.demo.apiKey, datastoreId: emulator.demo.datastoreId }, {
    // A terminal gets one line that counts up; a log gets one line per step.
    progress: ({ done, total }) => {
      const line = `Reading the knowledge base: ${done} of ${total} documents`;
      process.stdout.write(process.stdout.isTTY ? `\r${line}` : `${line}\n`);
    },
    warn: (message) => console.warn(`\n${message}`),
  });
  if (process.stdout.isTTY) process.stdout.write('\n');
  // Kept in the data folder like everything else: the bubble's agent of the last start is the one the open page knows.
  const bubbleName = 'Demo bubble agent';
  const existing = (await client.agents.list()).data.find((agent) => agent.name === bubbleName);
  const bubble = existing ?? (await client.agents.create({ name: bubbleName, description: 'The demo page\'s bubble: the same documents, a conversation of its own.', datastoreIds: [emulator.demo.datastoreId], visibility: 'public' }));
  return { emulator, bubbleAgentId: bubble.id };
}

/**
 * Where the emulator keeps its key, agents, documents and conversations, so a
 * restart (after a crash too) keeps them and an open page's Retry continues
 * its conversation: `KAGENT_DATA_DIR`, by default `.kagent-data/` in the
 * project (ignored by git). `KAGENT_RESET_DATA=1` (or `npm start -- --reset`)
 * empties it first.
 */
async function dataFolder(): Promise<string> {
  const folder = env.KAGENT_DATA_DIR?.trim() || fileURLToPath(new URL('.kagent-data/', root));
  if (env.KAGENT_RESET_DATA === '1' || process.argv.includes('--reset')) {
    await rm(folder, { recursive: true, force: true });
    console.log(`Started over: ${folder} emptied.`);
  }
  return folder;
}

/** What the page needs to know: set once the proxy is up. */
let pageConfig: { agentId: string; bubbleAgentId: string; endpoint: string } | undefined;

async function servePage(request: Request, bundle: string): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('Method not allowed', { status: 405 });
  if (pathname === '/kagent-chat.js') return new Response(bundle, { headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' } });
  // The chat's other chunks, which kagent-chat.js imports from beside itself (the second part, DOMPurify's for a
  // browser without a sanitizer of its own, the session keeper's, also its solver Worker's script), and the source maps.
  const built = /^\/(kagent-chat(?:-[a-z]+-[\w-]+)?\.js(\.map)?)$/.exec(pathname);
  if (built) {
    const file = await readFile(new URL(`dist/${built[1]}`, root), 'utf8').catch(() => undefined);
    if (file === undefined) return new Response('Not found', { status: 404 });
    return new Response(file, { headers: { 'Content-Type': built[2] ? 'application/json' : 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' } });
  }
  if (pathname === '/demo-config.json') {
    if (!pageConfig) return Response.json({ error: { code: 'UNAVAILABLE', message: 'Still starting' } }, { status: 503 });
    return Response.json(pageConfig, { headers: { 'Cache-Control': 'no-store' } });
  }
  if (pathname === '/' || pathname === '/index.html') {
    const html = await readFile(new URL('demo/index.html', root), 'utf8');
    return new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' } });
  }
  return new Response('Not found', { status: 404 });
}

interface Listening {
  origin: string;
  close(): Promise<void>;
}

async function listen(name: string, port: number, fetch: (request: Request) => Response | Promise<Response>): Promise<Listening> {
  const server = serve({ fetch, port, hostname: host, silent: true, gracefulShutdown: false, error: () => new Response('Internal error', { status: 500 }) });
  try {
    await server.ready();
  } catch (error) {
    if (isPortInUse(error)) fail(portInUseMessage(name, 'PORT', port));
    throw error;
  }
  const actual = (server.node!.server!.address() as AddressInfo).port;
  return { origin: `http://${host}:${actual}`, close: () => server.close(true) };
}

/** The real service, when all three variables are set; none of them: the emulator. */
function upstreamFromEnv(): { apiKey: string; upstreamUrl: string; agentIds: string[] } | undefined {
  const names = ['KAGENT_UPSTREAM_URL', 'KAGENT_API_KEY', 'KAGENT_AGENT_IDS'] as const;
  const set = names.filter((name) => env[name]?.trim());
  if (set.length === 0) return undefined;
  if (set.length < names.length) {
    fail(`To answer from a real service, set all of ${names.join(', ')}; missing: ${names.filter((n) => !set.includes(n)).join(', ')}.`);
  }
  return {
    upstreamUrl: env.KAGENT_UPSTREAM_URL!.trim(),
    apiKey: env.KAGENT_API_KEY!.trim(),
    agentIds: env.KAGENT_AGENT_IDS!.split(',').map((id) => id.trim()).filter(Boolean),
  };
}

/**
 * The `kagent-proxy` command, configured through its environment (your other
 * KAGENT_ variables, such as rate limits, pass on to it). Its log is shown
 * short: warnings and failures only (its entries never hold the key).
 */
function startProxy(settings: Record<string, string>): Promise<Listening & { url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', fileURLToPath(new URL('demo/exit-with-parent.ts', root)), fileURLToPath(new URL('src/proxy/node/cli.ts', root))], {
    // Without npm's variables: this process alone ends the proxy (once: a second signal would drop answers under way).
    env: { ...env, npm_lifecycle_event: undefined, ...settings, PORT: String(ports.proxy), HOST: host },
    // stdin: a pipe the child watches, closed by the system whenever this process ends.
    stdio: ['pipe', 'pipe', 'pipe'],
    // A process group of its own: a terminal's Ctrl-C reaches this process only, which stops the proxy once, gracefully
    // (a second signal would make it drop the answers under way).
    detached: true,
  });
  const closed = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await closed;
  };
  return new Promise((resolve, reject) => {
    let errors = '';
    let pending = '';
    let pendingErrors = '';
    // Whatever the proxy writes to stderr (warnings, crashes) reaches the terminal, named.
    child.stderr!.on('data', (chunk: Buffer) => {
      errors += chunk;
      pendingErrors += chunk;
      const lines = pendingErrors.split('\n');
      pendingErrors = lines.pop()!;
      for (const line of lines) if (line.trim()) console.error(`proxy: ${proxyLine(line)}`);
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        let entry: { level?: string; message?: string };
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        const listening = /^kagent proxy listening on (\S+)/.exec(entry.message ?? '');
        if (listening) resolve({ url: listening[1]!, origin: new URL(listening[1]!).origin, close });
        else if (entry.level === 'warn' || entry.level === 'error') console.warn(`proxy ${entry.level}: ${entry.message}`);
      }
    });
    child.on('exit', (code) => {
      const reason = /EADDRINUSE/.test(errors)
        ? portInUseMessage('proxy', 'KAGENT_PROXY_PORT', ports.proxy)
        : `The proxy stopped (exit code ${code}): ${errors.trim() || 'no reason given'}`;
      abort(reason);
      reject(new Error(reason));
    });
  });
}

/** A proxy log line as a person reads it: its JSON entry's level and message, or the line itself. */
function proxyLine(line: string): string {
  try {
    const entry = JSON.parse(line) as { level?: string; message?: string };
    if (entry.message) return `${entry.level ?? 'log'}: ${entry.message}`;
  } catch {
    // Not a log entry: a crash's stack trace, a runtime warning.
  }
  return line;
}

function port(name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535) fail(`${name} must be a port number (0 to 65535), got ${JSON.stringify(value)}.`);
  return Number(value);
}

function isPortInUse(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === 'EADDRINUSE';
}

function portInUseMessage(what: string, variable: string, port: number): string {
  return `Port ${port} is already in use, so the ${what} cannot start. Stop what uses it, or pick another port: ${variable}=${port + 10} npm start`;
}

/** Says what is wrong and stops everything. */
function abort(message: string): void {
  if (stopping) return;
  console.error(`\n${message}`);
  void stop(1);
}

/** `abort`, and ends the calling code too. */
function fail(message: string): never {
  abort(message);
  throw new Error(message);
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // The proxy first (it lets the answers under way finish, up to 5 s), then the emulator they come from, then the page.
  for (const server of running.reverse()) await server.close().catch(() => {});
  process.exit(code);
}

// A second Ctrl-C stops at once; the proxy, whose stdin pipe then closes, ends too.
const onSignal = () => (stopping ? process.exit(130) : void stop(0));
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// npm runs this through a shell that does not pass a signal on (and nothing passes on a SIGKILL): npm's end is ours too.
endWithLauncher(() => {
  console.log('npm has ended: stopping the demo.');
  void stop(0);
});

main().catch((error: unknown) => {
  if (!stopping) {
    console.error(error instanceof Error ? error.message : error);
    void stop(1);
  }
});
