// Starts the proxy on each runtime the conformance suite covers, configured
// from the same environment variables: Node (srvx), workerd (Miniflare), Deno
// (also as Netlify Edge Functions run it), edge-runtime (Vercel's) and Bun (the
// binaries of the `deno` and `bun` npm packages). Non-Node entries are bundled
// with esbuild first, as a deployment would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { builtinModules } from 'node:module';
import { proxyOptionsFromEnv } from '../../src/proxy/index.js';
import { serveProxy } from '../../src/proxy/node/index.js';
import { connectRedisRateLimitStore } from '../../src/proxy/stores/redis-node.js';

export interface RunningRuntime {
  name: string;
  url: string;
  /** Everything the runtime printed (its log lines), where it can be captured. */
  output(): string;
  close(): Promise<void>;
}

const root = new URL('../../', import.meta.url);

const builtins = new RegExp(`^(${builtinModules.filter((name) => !name.startsWith('_')).join('|').replace(/\//g, '\\/')})$`);
const nodePrefix: Plugin = {
  name: 'node-prefix',
  setup(build) {
    build.onResolve({ filter: builtins }, (args) => ({ path: `node:${args.path}`, external: true }));
  },
};

/** Each entry's bundle, made once per test process: every start of a runtime from it is still a process of its own. */
const bundles = new Map<string, Promise<string>>();

function bundle(entry: string, conditions: string[], format: 'esm' | 'iife' = 'esm', withRedis = false): Promise<string> {
  const key = JSON.stringify([entry, conditions, format, withRedis]);
  if (!bundles.has(key)) bundles.set(key, bundleOnce(entry, conditions, format, withRedis));
  return bundles.get(key)!;
}

async function bundleOnce(entry: string, conditions: string[], format: 'esm' | 'iife', withRedis: boolean): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, root))],
    bundle: true,
    format,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions,
    target: 'es2022',
    write: false,
    // The Redis store (node-redis over TCP) only where a run sets KAGENT_REDIS_URL; Node's modules come from the runtime.
    external: withRedis ? ['node:*'] : ['../stores/redis-node.js', '@redis/client', 'node:*'],
    // node-redis names Node's modules without the node: prefix, which Deno wants.
    plugins: withRedis ? [nodePrefix] : [],
    // node-redis is CommonJS: its require() of Node's modules needs a require, which Deno gives through node:module.
    ...(withRedis ? { banner: { js: "import { createRequire as kagentCreateRequire } from 'node:module'; const require = kagentCreateRequire(import.meta.url);" } } : {}),
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export async function startNodeRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  const lines: string[] = [];
  // As the kagent-proxy command runs it: made from options, served from the core, the service called through undici.
  const { redisUrl, ...options } = proxyOptionsFromEnv(env);
  // As the command does with KAGENT_REDIS_URL.
  const store = redisUrl ? await connectRedisRateLimitStore(redisUrl) : undefined;
  const running = await serveProxy({ ...options, ...(store ? { rateLimitStore: store } : {}), log: (entry) => lines.push(JSON.stringify(entry)) }, { port: 0 });
  return {
    name: 'node',
    url: running.url.replace(/\/$/, ''),
    output: () => lines.join('\n'),
    close: async () => {
      await running.close();
      await store?.close();
    },
  };
}

export async function startWorkerdRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  const { Miniflare, Log, LogLevel } = await import('miniflare');
  const script = await bundle('src/proxy/runtimes/cloudflare.ts', ['workerd', 'worker', 'browser']);
  let output = '';
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-04-01',
    host: '127.0.0.1',
    port: 0,
    bindings: env,
    log: new Log(LogLevel.WARN),
    // The placeholder `Request.cf`: Miniflare would otherwise try to download it and print the DNS failure's stack.
    cf: false,
    handleRuntimeStdio: (stdout, stderr) => {
      stdout.on('data', (c: Buffer) => (output += c));
      stderr.on('data', (c: Buffer) => (output += c));
    },
  });
  const url = await mf.ready;
  return { name: 'workerd', url: url.href.replace(/\/$/, ''), output: () => output, close: () => mf.dispose() };
}

/** The Vercel entry in `edge-runtime`, Vercel's own runtime for Edge Functions run locally. */
export async function startVercelRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  const { EdgeRuntime, runServer } = await import('edge-runtime');
  const lines: string[] = [];
  const capture = (...values: unknown[]) => lines.push(values.map(String).join(' '));
  const runtime = new EdgeRuntime({
    initialCode: await bundle('test/support/proxy-vercel-main.ts', ['edge-light', 'worker', 'browser'], 'iife'),
    // Vercel gives Edge Functions the project's variables as process.env; their console is the function's log.
    extend: (context) => Object.assign(context, { process: { env: { ...env } }, console: { ...context.console, log: capture, info: capture, warn: capture, error: capture } }),
  });
  const server = await runServer({ runtime, port: 0, host: '127.0.0.1' });
  return { name: 'vercel', url: server.url.replace(/\/$/, ''), output: () => lines.join('\n'), close: () => server.close() };
}

/** The deno binary from the npm package's platform dependency, if installed. */
export function denoBinary(): string | undefined {
  const path = fileURLToPath(new URL('node_modules/@deno/linux-x64-glibc/deno', root));
  return existsSync(path) ? path : undefined;
}

/**
 * The bun binary the `bun` npm package installed: its install script moves the platform
 * package's binary to `bun/bin/bun.exe` (a small stub stays there when the script did not run,
 * and the binary is then still in the platform package).
 */
export function bunBinary(): string | undefined {
  for (const path of ['node_modules/bun/bin/bun.exe', 'node_modules/@oven/bun-linux-x64/bin/bun']) {
    const file = fileURLToPath(new URL(path, root));
    if (existsSync(file) && statSync(file).size > 1_000_000) return file;
  }
  return undefined;
}

export async function startDenoRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  return startOnDeno('deno', 'test/support/proxy-deno-main.ts', env);
}

/** The Netlify entry on Deno, the runtime of Netlify Edge Functions. */
export async function startNetlifyRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  return startOnDeno('netlify', 'test/support/proxy-netlify-main.ts', env);
}

function startOnDeno(name: string, entry: string, env: Record<string, string>): Promise<RunningRuntime> {
  const binary = denoBinary();
  if (!binary) throw new Error('the deno binary is not installed (npm package deno, @deno/linux-x64-glibc)');
  return startProcessRuntime(name, entry, ['deno', 'worker', 'browser'], (dir, file) => ({
    command: binary,
    args: ['run', '--quiet', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', file],
    env: { DENO_DIR: join(dir, 'cache'), DENO_NO_UPDATE_CHECK: '1' },
  }), env);
}

export async function startBunRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  const binary = bunBinary();
  if (!binary) throw new Error('the bun binary is not installed (npm package bun, @oven/bun-linux-x64)');
  return startProcessRuntime('bun', 'test/support/proxy-bun-main.ts', ['bun', 'node', 'worker'], (dir, file) => ({
    command: binary,
    args: ['run', '--no-install', file],
    env: { BUN_INSTALL_CACHE_DIR: join(dir, 'cache'), DO_NOT_TRACK: '1' },
  }), env);
}

/** Bundles `entry`, runs it with a runtime binary, and waits for the port it prints as `{"listening":port}`. */
async function startProcessRuntime(
  name: string,
  entry: string,
  conditions: string[],
  command: (dir: string, file: string) => { command: string; args: string[]; env: Record<string, string> },
  env: Record<string, string>,
): Promise<RunningRuntime> {
  const dir = mkdtempSync(join(tmpdir(), `kagent-proxy-${name}-`));
  const file = join(dir, 'main.mjs');
  writeFileSync(file, await bundle(entry, conditions, 'esm', env.KAGENT_REDIS_URL !== undefined));
  const run = command(dir, file);
  const child = spawn(run.command, run.args, {
    env: { PATH: process.env.PATH ?? '', ...run.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c));
  child.stderr.on('data', (c: Buffer) => (output += c));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 15 s: ${output}`)), 15_000);
    const check = () => {
      const match = /\{"listening":(\d+)\}/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}: ${output}`));
    });
  });
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    close: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}
