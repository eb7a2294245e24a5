import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

test('src/protocol imports no Node module and touches no DOM global', () => {
  const dir = new URL('../../src/protocol/', import.meta.url);
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  assert.ok(files.includes('sessions/contract.ts'), 'the files of its folders too');
  for (const file of files) {
    const source = readFileSync(new URL(file, dir), 'utf8');
    assert.doesNotMatch(source, /from ['"]node:|require\(/, `${file} imports a Node module`);
    assert.doesNotMatch(source, /\b(window|document|localStorage|navigator)\./, `${file} uses a DOM global`);
  }
});

test('src/protocol loads in plain Node, where there is no DOM', async () => {
  assert.equal(typeof (globalThis as { document?: unknown }).document, 'undefined');
  const protocol = await import('../../src/protocol/index.js');
  assert.equal(typeof protocol.AgentStreamDecoder, 'function');
});
