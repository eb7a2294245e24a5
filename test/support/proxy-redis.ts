// Starts a real redis-server of its own on a free port on 127.0.0.1, for the
// shared rate-limit store's tests, and stops it afterwards.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './http.js';

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Whether a redis-server binary is on PATH (`.ci/run` installs Debian's). */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Starts redis-server on `port`, or on a free one; `args` after the defaults (no persistence) replace them. */
export async function startRedis(port?: number, { args = [] }: { args?: string[] } = {}): Promise<TestRedis> {
  // A port picked free can be taken before redis binds it: try a few.
  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const listenOn = port ?? (await freePort());
    const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(listenOn), '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    leaveBehindNothing(child);
    const ready = await waitForReady(child);
    if (ready === true) {
      return {
        port: listenOn,
        url: `redis://127.0.0.1:${listenOn}`,
        stop: () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            // Waited on: its exit must keep the process alive until it comes.
            child.ref();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      };
    }
    lastError = ready;
    child.kill('SIGKILL');
  }
  throw new Error(`redis-server did not start: ${lastError}`);
}

/** Every redis-server these tests started and have not seen end. */
const running = new Set<ChildProcess>();
let endsWithProcess = false;

/**
 * A test that fails before it stops its Redis must not keep its file's process alive: `node --test` waits for the
 * file to exit, so a server left referenced hung the whole run with every test of the file done (seen in a loaded CI
 * run). The server and its pipes are not referenced (stop() references it while it waits for its end), and whatever
 * is still running is ended when the process exits.
 */
function leaveBehindNothing(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
  if (endsWithProcess) return;
  endsWithProcess = true;
  process.once('exit', () => {
    for (const server of running) server.kill('SIGKILL');
  });
}

function waitForReady(child: ChildProcess): Promise<true | string> {
  return new Promise((resolve) => {
    let output = '';
    const timer = setTimeout(() => resolve(`not ready after 5 s: ${output}`), 5000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(`exited with ${code}: ${output}`);
    });
  });
}
