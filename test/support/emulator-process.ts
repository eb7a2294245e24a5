// An emulator in a process of its own, started as `kagent-emulator --json` starts it: its memory
// and its thread are its own, so a bench or a test measures the emulator, not its own client.
// It runs as plain JavaScript, as the published package does: the sources bundled by esbuild
// (the command and its reader thread), not run through tsx, whose loader thread alone holds
// about 70 MB.
import { readFileSync } from 'node:fs';
import { emulatorCommand } from './bundled-commands.js';

export interface EmulatorProcess {
  url: string;
  apiKey: string;
  agentId: string;
  datastoreId: string;
  /** Its resident memory, in bytes (Linux), or 0 when it cannot be read. */
  rss(): number;
  close(): Promise<void>;
}

export async function startEmulatorProcess(): Promise<EmulatorProcess> {
  const { spawn } = await import('node:child_process');
  const { createInterface } = await import('node:readline');
  const cli = await emulatorCommand();
  const child = spawn(process.execPath, [cli, '--port', '0', '--json', '--pace', '0', '--rate-limit-pro', '100000000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}) before it started`)));
  });
  const started = JSON.parse(line) as { url: string; apiKey: string; agentId: string; datastoreId: string };
  return {
    ...started,
    rss: () => {
      try {
        return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
      } catch {
        return 0;
      }
    },
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
