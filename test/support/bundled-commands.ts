// The repository's two commands, kagent-emulator and kagent-proxy, bundled by esbuild into plain JavaScript once per
// test process, for tests that start them as processes of their own: each start then costs what the published
// package's does (about 0.1 s of CPU), not a tsx start-up (its loader thread and the TypeScript of every module,
// about 0.6 s each time, more under load). Their dependencies load from node_modules as installed.
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../../', import.meta.url);
const path = (relative: string) => fileURLToPath(new URL(relative, root));
// A folder of this process's own (two test files or benches may build at once), removed when it exits.
const outdir = path(`node_modules/.cache/kagent-commands/${process.pid}-${Date.now()}/`);
let removing = false;

async function bundle(folder: string, entryPoints: Record<string, string>, options: { external?: string[]; packages?: 'external' }): Promise<void> {
  if (!removing) process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
  removing = true;
  await build({
    entryPoints: Object.fromEntries(Object.entries(entryPoints).map(([name, source]) => [name, path(source)])),
    outdir: `${outdir}${folder}/`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Modules loaded on demand stay in chunks of their own, loaded when first used, as in the package.
    splitting: true,
    target: 'node20',
    tsconfig: path('tsconfig.json'),
    logLevel: 'warning',
    ...options,
  });
}

let emulator: Promise<string> | undefined;
/** `kagent-emulator`'s command and its reader thread's script side by side (the command finds the reader beside itself); kagent-chat's protocol is bundled from source. */
export function emulatorCommand(): Promise<string> {
  const manifest = JSON.parse(readFileSync(new URL('emulator/package.json', root), 'utf8')) as { dependencies: Record<string, string> };
  const external = Object.keys(manifest.dependencies).filter((name) => name !== 'kagent-chat');
  emulator ??= bundle('emulator', { cli: 'emulator/src/cli.ts', 'extract-worker': 'emulator/src/ingest/extract-worker.ts' }, { external }).then(() => `${outdir}emulator/cli.js`);
  return emulator;
}

let proxy: Promise<string> | undefined;
/** `kagent-proxy`'s command (src/proxy/node/cli.ts); node:cluster's workers run the same file. */
export function proxyCommand(): Promise<string> {
  proxy ??= bundle('proxy', { cli: 'src/proxy/node/cli.ts' }, { packages: 'external' }).then(() => `${outdir}proxy/cli.js`);
  return proxy;
}
