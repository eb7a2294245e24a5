// Starts the proxy on each runtime the conformance suite covers, configured
// from the same environment variables: Node (srvx), workerd (Miniflare) and
// Deno (the binary from the `deno` npm package). Non-Node entries are bundled
// with esbuild first, as a deployment would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { createProxy, proxyOptionsFromEnv } from '../../src/proxy/index.js';
import { createNodeFetch, serveProxy } from '../../src/proxy/node.js';

export interface RunningRuntime {
  name: string;
  url: string;
  /** Everything the runtime printed (its log lines), where it can be captured. */
  output(): string;
  close(): Promise<void>;
}

const root = new URL('../../', import.meta.url);

async function bundle(entry: string, conditions: string[]): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, root))],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions,
    target: 'es2022',
    write: false,
    // Only reached when KAGENT_REDIS_URL is set; the conformance runs don't use it.
    external: ['./redis-node.js', '@redis/client', 'node:*'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export async function startNodeRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  const lines: string[] = [];
  // As the kagent-proxy command runs it: upstream calls through the Node entry's node:http fetch.
  const proxy = createProxy({ ...proxyOptionsFromEnv(env), fetch: createNodeFetch(), log: (entry) => lines.push(JSON.stringify(entry)) });
  const running = await serveProxy(proxy, { port: 0 });
  return { name: 'node', url: running.url.replace(/\/$/, ''), output: () => lines.join('\n'), close: running.close };
}

export async function startWorkerdRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  const { Miniflare, Log, LogLevel } = await import('miniflare');
  const script = await bundle('src/proxy/cloudflare.ts', ['workerd', 'worker', 'browser']);
  let output = '';
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-04-01',
    host: '127.0.0.1',
    port: 0,
    bindings: env,
    log: new Log(LogLevel.WARN),
    handleRuntimeStdio: (stdout, stderr) => {
      stdout.on('data', (c: Buffer) => (output += c));
      stderr.on('data', (c: Buffer) => (output += c));
    },
  });
  const url = await mf.ready;
  return { name: 'workerd', url: url.href.replace(/\/$/, ''), output: () => output, close: () => mf.dispose() };
}

/** The deno binary from the npm package's platform dependency, if installed. */
export function denoBinary(): string | undefined {
  const path = fileURLToPath(new URL('node_modules/@deno/linux-x64-glibc/deno', root));
  return existsSync(path) ? path : undefined;
}

export async function startDenoRuntime(env: Record<string, string>): Promise<RunningRuntime> {
  const binary = denoBinary();
  if (!binary) throw new Error('the deno binary is not installed (npm package deno, @deno/linux-x64-glibc)');
  const dir = mkdtempSync(join(tmpdir(), 'kagent-proxy-deno-'));
  const file = join(dir, 'main.mjs');
  writeFileSync(file, await bundle('test/support/proxy-deno-main.ts', ['deno', 'worker', 'browser']));
  const child = spawn(binary, ['run', '--quiet', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', file], {
    env: { PATH: process.env.PATH ?? '', DENO_DIR: join(dir, 'cache'), DENO_NO_UPDATE_CHECK: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c));
  child.stderr.on('data', (c: Buffer) => (output += c));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`deno did not start within 15 s: ${output}`)), 15_000);
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
      reject(new Error(`deno exited with ${code}: ${output}`));
    });
  });
  return {
    name: 'deno',
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
