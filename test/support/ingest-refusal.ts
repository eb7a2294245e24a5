import assert from 'node:assert/strict';
import { IngestError } from '../../emulator/src/ingest/index.js';

/** The message of the IngestError `promise` rejects with; fails the test on success or on any other error. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof IngestError, `expected an IngestError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('expected a refusal');
}
