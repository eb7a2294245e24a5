// Importing the widget where there is no DOM (server-side rendering of a page that uses it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('importing the widget module in Node does not throw and defines nothing', async () => {
  assert.equal(typeof (globalThis as { customElements?: unknown }).customElements, 'undefined');
  const widget = await import('../../src/widget/index.js');
  assert.equal(typeof widget.KagentChat, 'function');
  assert.equal(widget.ENGLISH.send, 'Send');
  assert.equal(widget.withStrings({ send: 'Envoyer' }).send, 'Envoyer');
});

test('importing the npm module as the build emits it (plain ES modules, no tsx) does not throw', async () => {
  // The package's own build settings, for the widget's entry only, into a folder whose
  // imports of lit, marked and the rest resolve to this checkout's node_modules.
  const folder = `${root}node_modules/.cache/kagent-ssr-${process.pid}/`;
  mkdirSync(folder, { recursive: true });
  try {
    writeFileSync(`${folder}tsconfig.json`, JSON.stringify({
      extends: `${root}tsconfig.build.json`,
      compilerOptions: { outDir: `${folder}out`, rootDir: `${root}src`, declaration: false, declarationMap: false, sourceMap: false, inlineSources: false },
      include: [],
      files: [`${root}src/widget/index.ts`],
    }));
    execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${folder}tsconfig.json`], { stdio: 'pipe' });
    const widget = await import(pathToFileURL(`${folder}out/widget/index.js`).href);
    assert.equal(typeof widget.KagentChat, 'function');
    assert.equal(widget.ENGLISH.send, 'Send');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('with a server DOM shim that has customElements, importing twice defines the element once', async () => {
  const defined = new Map<string, unknown>();
  const registry = {
    get: (name: string) => defined.get(name),
    define: (name: string, constructor: unknown) => {
      if (defined.has(name)) throw new Error(`${name} is already defined`);
      defined.set(name, constructor);
    },
  };
  (globalThis as { customElements?: unknown }).customElements = registry;
  try {
    await import(`../../src/widget/index.js?first=${Date.now()}`);
    await import(`../../src/widget/index.js?second=${Date.now()}`);
    assert.equal(defined.size, 1);
    assert.equal(typeof defined.get('kagent-chat'), 'function');
  } finally {
    delete (globalThis as { customElements?: unknown }).customElements;
  }
});
