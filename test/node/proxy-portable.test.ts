import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const proxyDir = new URL('../../src/proxy/', import.meta.url);

/** The .ts files of a folder under src/proxy, its subfolders' too, as `folder/file.ts` (`core/sessions/sessions.ts`). */
function filesOf(folder: string): string[] {
  return readdirSync(new URL(`${folder}/`, proxyDir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${folder}/${f}`);
}

function sourceOf(file: string): string {
  return readFileSync(new URL(file, proxyDir), 'utf8');
}

// Only node/ and the Redis store's TCP connection open sockets or serve HTTP themselves; everything else must run on any runtime with fetch.
test('the proxy core, the stores and the platform entries import no Node module and no Node-only global', () => {
  const files = [...filesOf('core'), ...filesOf('runtimes'), ...filesOf('stores').filter((f) => f !== 'stores/redis-node.ts'), 'index.ts'];
  assert.ok(files.includes('core/proxy.ts') && files.includes('core/sessions/sessions.ts') && files.includes('runtimes/cloudflare.ts') && files.includes('stores/memory.ts'));
  for (const file of files) {
    const source = sourceOf(file);
    assert.doesNotMatch(source, /from ['"](node:|srvx|undici|@redis\/client)|require\(/, `${file} imports a Node module`);
    assert.doesNotMatch(source, /\bBuffer\.|__dirname|setImmediate/, `${file} uses a Node-only global`);
    // process.env only where the platform itself provides it (Vercel and Bun).
    if (!['runtimes/vercel.ts', 'runtimes/bun.ts'].includes(file)) assert.doesNotMatch(source, /\bprocess\.(env|argv|exit|on|stdout|stderr)/, `${file} uses process`);
  }
});

test('the Node server, the platform entries and the package entry reach the core through its one door, core/index.ts', () => {
  const outside = [...filesOf('node'), ...filesOf('runtimes'), ...filesOf('stores'), 'index.ts'];
  for (const file of outside) {
    for (const [, target] of sourceOf(file).matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)) {
      if (!target!.includes('core/')) continue;
      assert.match(target!, /(^|\/)core\/index\.js$/, `${file} imports ${target} rather than core/index.js`);
    }
  }
});

test('the core knows nothing of the Node server or the platform entries', () => {
  for (const file of filesOf('core')) assert.doesNotMatch(sourceOf(file), /from ['"](?:\.\.\/)+(node|runtimes)\//, `${file} imports from node/ or runtimes/`);
});

test('the stores depend on nothing of the proxy: the core uses them, not the other way', () => {
  for (const file of filesOf('stores')) assert.doesNotMatch(sourceOf(file), /from ['"]\.\.\//, `${file} imports from outside stores/`);
});

test('src/proxy shows its rooms: at most 6 files at its top level, the rest in core/, node/, runtimes/ and stores/', () => {
  const entries = readdirSync(proxyDir, { withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => e.name);
  const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  assert.ok(files.length <= 6, `top-level files: ${files.join(', ')}`);
  assert.deepEqual(folders, ['core', 'node', 'runtimes', 'stores']);
});
