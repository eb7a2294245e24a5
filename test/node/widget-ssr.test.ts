// Importing the widget where there is no DOM (server-side rendering of a page that uses it).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';

test('importing the widget module in Node does not throw and defines nothing', async () => {
  assert.equal(typeof (globalThis as { customElements?: unknown }).customElements, 'undefined');
  const widget = await import('../../src/widget/index.js');
  assert.equal(typeof widget.KagentChat, 'function');
  assert.equal(widget.ENGLISH.send, 'Send');
  assert.equal(widget.withStrings({ send: 'Envoyer' }).send, 'Envoyer');
});

test('importing the built npm module in Node does not throw', { skip: !existsSync(new URL('../../dist/widget/index.js', import.meta.url)) && 'run npm run build first' }, async () => {
  const widget = await import(new URL('../../dist/widget/index.js', import.meta.url).href);
  assert.equal(typeof widget.KagentChat, 'function');
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
