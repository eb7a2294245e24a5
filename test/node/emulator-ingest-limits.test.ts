// The two guards of ingestion that no single file shows: the memory watch (a reader's memory
// outside its heap, which the heap limit does not see) and the turns organizations take.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { extractDocument } from '../../emulator/src/ingest/index.js';
import { IngestQueue } from '../../emulator/src/ingest-queue.js';
import { MemoryPersistence } from '../../emulator/src/store/persistence.js';
import type { Change, DatasourceRow, DatastoreRow } from '../../emulator/src/store/records.js';
import { Store } from '../../emulator/src/store/store.js';
import { hugeStreamPdf } from '../fixtures/emulator/hostile.js';
import { refusal } from '../support/ingest-refusal.js';

describe('memory watch', () => {
  test('a reader whose buffers outside its heap pass the cap is stopped; a small file read beside it is read again alone', async () => {
    // Three content streams of 60 MB each (under the 64 MB one stream may unpack to), which pdf.js
    // decodes into typed arrays outside the worker's heap: only the watch of the process's
    // memory sees them. Without the watch the file runs into the time limit (checked by hand).
    const pdf = hugeStreamPdf(60 * 1024 * 1024, 3);
    const limits = { maxMemoryMb: 64, timeoutMs: 120_000 };
    const [hostile, small] = await Promise.all([
      refusal(extractDocument({ bytes: pdf, mimeType: 'application/pdf', fileName: 'stream.pdf' }, limits)),
      extractDocument({ bytes: new TextEncoder().encode('The lighthouse is painted every spring.'), mimeType: 'text/plain', fileName: 'small.txt' }, limits),
    ]);
    assert.equal(hostile, 'reading the file needs more than the 64 MB of memory allowed');
    assert.equal(small.pages[0]!.text, 'The lighthouse is painted every spring.');
  });
});

describe('PDF streams', () => {
  test('a stream unpacking past 64 MB is refused before the PDF is read, naming the stream', async () => {
    const pdf = hugeStreamPdf(100 * 1024 * 1024);
    assert.equal(await refusal(extractDocument({ bytes: pdf, mimeType: 'application/pdf', fileName: 'stream.pdf' })), "the PDF file's stream (object 5) unpacks to more than the 64 MB allowed for one stream");
  });
});

describe('turns between organizations', () => {
  const now = '2026-11-23T00:00:00.000Z';
  const datastore = (organizationId: string): DatastoreRow => ({ id: `store-${organizationId}`, organizationId, name: organizationId, description: '', type: 'qdrant', visibility: 'private', createdAt: now, updatedAt: now });
  const document = (organizationId: string, n: number): DatasourceRow => ({
    id: `${organizationId}-${n}`,
    organizationId,
    datastoreId: `store-${organizationId}`,
    type: 'text',
    name: `${organizationId} ${n}`,
    status: 'unsynched',
    errorMessage: null,
    groupId: null,
    custom_id: null,
    config: {},
    text: `Document ${n} of ${organizationId}: the ferry leaves at dawn.`,
    createdAt: now,
    updatedAt: now,
    lastSynch: null,
  });

  /** The order datasources start in, read from the `running` rows ingestion commits. */
  function recordStarts(store: Store): string[] {
    const started: string[] = [];
    const commit = store.commit.bind(store);
    store.commit = (changes: Change[]) => {
      for (const change of changes) if ('put' in change && change.put === 'datasource' && change.row.status === 'running') started.push(change.row.id);
      commit(changes);
    };
    return started;
  }

  test("one organization's queue of uploads does not hold another's back: its next file starts as soon as a reader is free", async () => {
    const store = new Store(new MemoryPersistence());
    store.commit([{ put: 'datastore', row: datastore('busy') }, { put: 'datastore', row: datastore('quiet') }]);
    const busy = Array.from({ length: 6 }, (_, n) => document('busy', n));
    const quiet = [document('quiet', 0), document('quiet', 1)];
    store.commit([...busy, ...quiet].map((row): Change => ({ put: 'datasource', row })));
    const started = recordStarts(store);
    const ingestion = new IngestQueue(store, { log: (message) => assert.fail(message) });
    for (const row of busy) ingestion.enqueue(row.id);
    for (const row of quiet) ingestion.enqueue(row.id);
    await ingestion.idle();
    // Two readers: busy-0 and busy-1 start at once; then the quiet organization (fewest running) comes first.
    assert.deepEqual(started.slice(0, 2), ['busy-0', 'busy-1']);
    assert.ok(started.indexOf('quiet-0') <= 2, `quiet-0 started ${started.indexOf('quiet-0') + 1}th: ${started.join(', ')}`);
    assert.ok(started.indexOf('quiet-1') <= 4, `quiet-1 started ${started.indexOf('quiet-1') + 1}th: ${started.join(', ')}`);
    assert.equal(started.length, 8);
    for (const row of [...busy, ...quiet]) assert.equal(store.datasources.get(row.id)?.status, 'synched');
    ingestion.close();
  });
});
