// The emulator's imports run one way: the store at the bottom knows nothing of the search
// built on it, and search knows nothing of ingestion, answers or the routes above it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

/** The folders of emulator/src that the files of `folder` import from (`.` for its top level). */
function importedFolders(folder: string): Map<string, string[]> {
  const dir = new URL(`../../emulator/src/${folder}/`, import.meta.url);
  const found = new Map<string, string[]>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(new URL(file, dir), 'utf8');
    for (const [, path] of source.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const target = new URL(path!, dir).pathname.split('/emulator/src/')[1]!;
      const targetFolder = target.includes('/') ? target.split('/')[0]! : '.';
      found.set(targetFolder, [...(found.get(targetFolder) ?? []), `${file} -> ${path}`]);
    }
  }
  return found;
}

test('the store imports only itself: the search indexes follow it as its watcher', () => {
  const folders = importedFolders('store');
  assert.deepEqual([...folders.keys()], ['store'], [...folders.values()].flat().join('\n'));
});

test('search imports only itself and the store', () => {
  const outside = [...importedFolders('search')].filter(([folder]) => folder !== 'search' && folder !== 'store');
  assert.deepEqual(outside, []);
});
