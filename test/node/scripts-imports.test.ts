import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

test('the build scripts import nothing from bench/ or test/: a build needs neither', () => {
  const dir = new URL('../../scripts/', import.meta.url);
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.[cm]?[jt]s$/.test(entry.name)) continue;
    const source = readFileSync(`${entry.parentPath ?? entry.path}/${entry.name}`, 'utf8');
    assert.doesNotMatch(source, /from ['"](?:\.\.\/)+(?:bench|test)\//, `scripts/${entry.name} imports from bench/ or test/`);
  }
});
