// For the installed-package test: packs the workspace's packages, installs
// the tarballs into a fresh app outside the repository, runs the installed
// commands there and serves the app's pages over real HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { listen, type TestServer } from './http.js';

/** What a finished command printed, both streams interleaved. */
export interface Finished {
  code: number | null;
  output: string;
}

/**
 * The environment of a command run in the temporary app: the caller's, minus
 * what `npm test` adds to point npm and the PATH at this checkout (its
 * `node_modules/.bin`, its package and its prefix), so that npm and npx in
 * the app see only the app.
 */
export function appEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) && !/^npm_config_/i.test(name)) continue;
    if (/^npm_config_(local_prefix|call)$/i.test(name) || name === 'INIT_CWD') continue;
    env[name] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((entry) => !entry.includes(`${sep}node_modules${sep}`) && !entry.endsWith(`${sep}node_modules${sep}.bin`))
    .join(':');
  return { ...env, ...extra };
}

/** Runs a command to its end in `cwd` and returns its exit code and output. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = appEnvironment()): Promise<Finished> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

/** The last lines of a command's output, for a failure message. */
const tail = (output: string, lines = 40) => output.trimEnd().split('\n').slice(-lines).join('\n');

/**
 * `npm pack` of the root package and every workspace into `destination`, as the README says
 * (each package's `prepack` builds it first). Returns each tarball's path by package name, and
 * what npm printed (which scripts it ran).
 */
export async function packWorkspace(root: string, destination: string): Promise<{ tarballs: Map<string, string>; output: string }> {
  // Notice level whatever the caller's (`npm run -s` sets it silent): npm then names each script it runs.
  const packed = await run('npm', ['pack', '-ws', '--include-workspace-root', '--loglevel', 'notice', '--pack-destination', destination], root, process.env);
  if (packed.code !== 0) throw new Error(`npm pack failed (exit ${packed.code}):\n${tail(packed.output)}`);
  const tarballs = new Map<string, string>();
  for (const file of readdirSync(destination)) {
    const match = /^(.+)-\d+\.\d+\.\d+(?:-[\w.]+)?\.tgz$/.exec(file);
    if (match) tarballs.set(match[1]!, join(destination, file));
  }
  return { tarballs, output: packed.output };
}

/** Errors npm reports when it cannot reach the registry. */
const OFFLINE = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT)\b|network request to .* failed/;

/**
 * `npm install` in `cwd`, through npm's cache first (`--prefer-offline`),
 * the registry for what the cache lacks. An unreachable registry fails with
 * a message that says so, not with npm's whole log.
 */
export async function npmInstall(cwd: string, args: string[]): Promise<void> {
  const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...args], cwd);
  if (installed.code === 0) return;
  if (OFFLINE.test(installed.output)) {
    throw new Error(
      `The installed-package test could not reach the npm registry to install ${args.join(' ')} ` +
        `(and npm's cache does not hold it). It needs the registry, as CI has; npm said:\n${tail(installed.output, 12)}`,
    );
  }
  throw new Error(`npm install ${args.join(' ')} failed (exit ${installed.code}):\n${tail(installed.output)}`);
}

/** The packages in a `node_modules` folder, nested ones included, as `name@version`. */
export function installedPackages(nodeModules: string): string[] {
  const found: string[] = [];
  const visit = (folder: string) => {
    if (!existsSync(folder)) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      const path = join(folder, entry.name);
      if (entry.name.startsWith('@')) {
        visit(path);
        continue;
      }
      const manifest = join(path, 'package.json');
      if (!existsSync(manifest)) continue;
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string };
      found.push(`${name}@${version}`);
      visit(join(path, 'node_modules'));
    }
  };
  visit(nodeModules);
  return found.sort();
}

/** Every file under `folder`, as paths relative to it. */
export function filesUnder(folder: string): string[] {
  return (readdirSync(folder, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1));
}

/** The bytes of every file under `folder`, as `du --apparent-size` counts them. */
export function folderBytes(folder: string): number {
  return filesUnder(folder).reduce((sum, file) => sum + statSync(join(folder, file)).size, 0);
}

/** A long-running command started in the app, and the lines it printed so far. */
export interface Started {
  child: ChildProcess;
  output(): string;
  /** Waits for a line (stdout or stderr) matching `pattern`; rejects if the command exits first. */
  line(pattern: RegExp): Promise<RegExpExecArray>;
  /** Stops it and everything it started (npx, npm, node). */
  stop(): Promise<void>;
}

/** Starts `command` in its own process group, so that stopping it stops npx's children too. */
export function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiting = new Set<() => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (text) => {
      lines.push(text);
      for (const check of waiting) check();
    });
  }
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    child,
    output: () => lines.join('\n'),
    line(pattern) {
      return new Promise((found, fail) => {
        const check = () => {
          for (const text of lines) {
            const match = pattern.exec(text);
            if (match) {
              waiting.delete(check);
              found(match);
              return;
            }
          }
        };
        waiting.add(check);
        check();
        void exited.then(() => {
          // Lines already read are checked first: a command may print what we wait for and then exit.
          check();
          if (waiting.delete(check)) fail(new Error(`${command} ${args.join(' ')} exited (${child.exitCode}) before printing ${pattern}:\n${lines.join('\n')}`));
        });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      await exited;
    },
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
};

/**
 * Serves folders as a static site: `mounts` maps a path prefix ('/package/')
 * to a folder; the longest matching prefix wins, `index.html` for a folder.
 */
export function serveFolders(mounts: Record<string, string>): Promise<TestServer> {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  return listen((request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    const prefix = prefixes.find((candidate) => path.startsWith(candidate));
    if (!prefix) return new Response('not found', { status: 404 });
    const folder = resolve(mounts[prefix]!);
    let file = resolve(folder, `.${sep}${path.slice(prefix.length)}`);
    if (file !== folder && !file.startsWith(folder + sep)) return new Response('not found', { status: 404 });
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return new Response('not found', { status: 404 });
    return new Response(readFileSync(file), { headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' } });
  });
}
