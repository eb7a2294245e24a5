// An emulator in a process of its own, started as `kagent-emulator --json` starts it: its memory
// and its thread are its own, so a bench or a test measures the emulator, not its own client.
// It runs as plain JavaScript, as the published package does: the sources bundled by esbuild
// (the command and its reader thread), not run through tsx, whose loader thread alone holds
// about 70 MB.
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../../', import.meta.url);

/** Bundles the command and the reader thread's script side by side (the command finds the reader beside itself). */
async function buildEmulator(outdir: string): Promise<string> {
  const manifest = JSON.parse(readFileSync(new URL('emulator/package.json', root), 'utf8')) as { dependencies: Record<string, string> };
  await build({
    entryPoints: { cli: fileURLToPath(new URL('emulator/src/cli.ts', root)), 'extract-worker': fileURLToPath(new URL('emulator/src/ingest/extract-worker.ts', root)) },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Parsers loaded on demand stay in chunks of their own, loaded when first used, as in the package.
    splitting: true,
    target: 'node20',
    tsconfig: fileURLToPath(new URL('tsconfig.json', root)),
    // Its dependencies load from node_modules as installed; kagent-chat's protocol is bundled from source.
    external: Object.keys(manifest.dependencies).filter((name) => name !== 'kagent-chat'),
    logLevel: 'warning',
  });
  return `${outdir}cli.js`;
}

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
  // A folder of its own: two benches or tests may build at once.
  const outdir = fileURLToPath(new URL(`node_modules/.cache/kagent-emulator-process/${process.pid}-${Date.now()}/`, root));
  const cli = await buildEmulator(outdir);
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
      rmSync(outdir, { recursive: true, force: true });
    },
  };
}
