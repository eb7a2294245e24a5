// `npm start` as a child process, for the end-to-end test and the screenshot script.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DemoProcess {
  /** npm, in a process group of its own: signal `-child.pid` to reach npm, node and all. */
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** The demo page's address, once it prints it. */
  ready: Promise<string>;
}

/**
 * Runs `npm start` in `root` with free ports and a fresh data folder of its own
 * (and `env` on top, e.g. `KAGENT_DATA_DIR` to reuse one), waiting at most
 * `timeoutMs` for the page's address. `build: false` starts from the dist/ already built (`npm start -- --no-build`).
 */
export function startDemoProcess(root: URL, env: Record<string, string> = {}, timeoutMs = 120_000, { build = true } = {}): DemoProcess {
  let said = '';
  const child = spawn('npm', ['start', '--silent', ...(build ? [] : ['--', '--no-build'])], {
    cwd: root,
    env: { ...process.env, PORT: '0', KAGENT_PROXY_PORT: '0', KAGENT_EMULATOR_PORT: '0', KAGENT_DATA_DIR: mkdtempSync(join(tmpdir(), 'kagent-demo-')), ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no address within ${timeoutMs / 1000} s:\n${said}`)), timeoutMs);
    const read = (chunk: Buffer) => {
      said += chunk;
      const match = /kagent-chat demo:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(said);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}):\n${said}`));
    });
  });
  // Once the address is known, a later exit is the caller's business, not an unhandled rejection.
  ready.catch(() => {});
  return { child, output: () => said, ready };
}
