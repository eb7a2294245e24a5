// The periodic snapshot (the journal past its size limit) is written in the background, a
// slice at a time, while commits go on; it and the journal written beside it rebuild the
// whole state, and a snapshot cut off half-way loses nothing either.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DatastoreIndexes } from '../../emulator/src/search/indexes.js';
import { DiskPersistence, MemoryPersistence } from '../../emulator/src/store/persistence.js';
import type { ConversationRow, DatasourceRow, DatastoreRow, FragmentRow, StoreState } from '../../emulator/src/store/records.js';
import { Store } from '../../emulator/src/store/store.js';
import { tempDataDir } from '../fixtures/emulator/harness.js';

const folders: { cleanup(): void }[] = [];
after(() => folders.forEach((made) => made.cleanup()));

function folder(): string {
  const made = tempDataDir();
  folders.push(made);
  return made.dir;
}

const now = '2026-11-23T00:00:00.000Z';
const datastore: DatastoreRow = { id: 'ds1', organizationId: 'org1', name: 'Notes', description: '', type: 'qdrant', visibility: 'private', createdAt: now, updatedAt: now };

function datasource(id: string): DatasourceRow {
  return { id, organizationId: 'org1', datastoreId: 'ds1', type: 'text', name: id, status: 'synched', errorMessage: null, groupId: null, custom_id: null, config: {}, createdAt: now, updatedAt: now, lastSynch: now };
}

function fragments(datasourceId: string, from: number, count: number): FragmentRow[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${datasourceId}-${from + i}`, text: `Fragment ${from + i} of ${datasourceId}: the ferry leaves the north pier at dawn.`, offset: (from + i) * 60 }));
}

/** Commits fragment slices of `id` until a commit sets a background snapshot going (the journal is set aside). */
function commitUntilSnapshotStarts(store: Store, dir: string, id: string): number {
  store.commit([{ put: 'datasource', row: datasource(id) }]);
  let count = 0;
  while (!existsSync(join(dir, 'journal.previous.jsonl'))) {
    store.commit([{ add: 'fragments', datasourceId: id, from: count, fragments: fragments(id, count, 50) }]);
    count += 50;
    assert.ok(count < 100_000, 'a snapshot should have started');
  }
  return count;
}

describe('background snapshot', () => {
  test('past the journal limit, the snapshot is written in the background; commits made meanwhile are kept', async () => {
    const dir = folder();
    const store = new Store(new DiskPersistence(dir, { snapshotAfterBytes: 256 * 1024 }));
    store.commit([{ put: 'datastore', row: datastore }]);
    const written = commitUntilSnapshotStarts(store, dir, 'big');
    // The commit that started the snapshot returned before the snapshot was in place.
    assert.equal(existsSync(join(dir, 'snapshot.json')), false, 'no snapshot yet when the commit returned');
    // Commits while it is written go to the new journal.
    store.commit([{ put: 'datasource', row: datasource('during') }, { put: 'fragments', datasourceId: 'during', fragments: fragments('during', 0, 3) }]);
    store.commit([{ add: 'fragments', datasourceId: 'big', from: written, fragments: fragments('big', written, 10) }]);
    await store.snapshotWritten();
    assert.equal(existsSync(join(dir, 'journal.previous.jsonl')), false, 'the old journal goes once the snapshot is in place');
    const snapshot = JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { datasources: DatasourceRow[]; fragments: { datasourceId: string; fragments: FragmentRow[] }[] };
    assert.ok(snapshot.fragments.find((entry) => entry.datasourceId === 'big')!.fragments.length >= written);
    // Reopened as after a kill (no clean snapshot at close): the snapshot and the new journal make everything.
    store.close();
    const indexes = new DatastoreIndexes();
    const reopened = new Store(new DiskPersistence(dir), { watcher: indexes });
    try {
      assert.equal(reopened.fragments.get('big')?.length, written + 10);
      assert.deepEqual(reopened.fragments.get('big')!.map((fragment) => fragment.id), fragments('big', 0, written + 10).map((fragment) => fragment.id));
      assert.equal(reopened.fragments.get('during')?.length, 3);
      assert.ok(reopened.datasources.has('during'));
      assert.ok(indexes.of('ds1').query('ferry north pier', { topK: 3 }).length > 0, 'indexed again after the restart');
    } finally {
      reopened.close();
    }
  });

  test('a snapshot cut off half-way loses nothing: the old journal and the new one are read in order', async () => {
    const dir = folder();
    const store = new Store(new DiskPersistence(dir, { snapshotAfterBytes: 256 * 1024 }));
    store.commit([{ put: 'datastore', row: datastore }]);
    const written = commitUntilSnapshotStarts(store, dir, 'big');
    store.commit([{ delete: 'fragments', id: 'big' }]);
    store.commit([{ add: 'fragments', datasourceId: 'big', from: 0, fragments: fragments('big', 0, 7) }]);
    // Closing stops the background snapshot before it is in place, as a kill would.
    store.close();
    assert.equal(existsSync(join(dir, 'journal.previous.jsonl')), true);
    assert.ok(written > 7);
    const indexes = new DatastoreIndexes();
    const reopened = new Store(new DiskPersistence(dir), { watcher: indexes });
    try {
      assert.equal(reopened.fragments.get('big')?.length, 7, 'the delete and the new slice of the new journal come after the old journal');
      assert.equal(existsSync(join(dir, 'journal.previous.jsonl')), false, 'the two journals are one again');
    } finally {
      reopened.close();
    }
    await store.snapshotWritten();
  });

  test('conversations of long questions are written a megabyte or so at a time, never all in one piece', async () => {
    // Keeps the pieces a background snapshot is written from, and asks for one at the first commit.
    let pieces: string[] = [];
    let wanted = true;
    const persistence = Object.assign(new MemoryPersistence(), {
      wantsSnapshot: () => wanted,
      async snapshotInBackground(given: () => Iterable<string>): Promise<void> {
        wanted = false;
        pieces = [...given()];
      },
    });
    const store = new Store(persistence);
    const question = 'ferry '.repeat(350_000);
    const conversation = (id: string, questions: number): ConversationRow => ({
      id,
      agentId: 'a1',
      organizationId: 'org1',
      visitorId: 'v1',
      createdAt: now,
      updatedAt: now,
      messages: Array.from({ length: questions }, (_, i) => ({ id: `${id}-${i}`, from: 'human' as const, text: `${i} ${question}`, createdAt: now })),
    });
    // Seven conversations of a 2 MB question and one of three, as seven visitors and a persistent one would leave them.
    const conversations = [...Array.from({ length: 7 }, (_, i) => conversation(`c${i}`, 1)), conversation('long', 3)];
    store.commit(conversations.map((row) => ({ put: 'conversation' as const, row })));
    await store.snapshotWritten();
    const longest = Math.max(...pieces.map((piece) => piece.length));
    assert.ok(longest < 2 * question.length + 4096, `the longest piece holds ${longest} characters: one question and its envelope at most, not a batch of them`);
    const written = JSON.parse(pieces.join('')) as StoreState;
    assert.deepEqual(written.conversations, conversations, 'the pieces make the conversations whole');
  });
});
