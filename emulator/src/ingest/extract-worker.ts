// Worker thread entry: runs one task (reading a file, splitting a text) per message, so a slow
// or hostile file can be stopped without stopping the emulator, and no large text is split on
// the server's thread.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { IngestError, reasonOf } from './errors.js';
import { runTask, type ExtractTask, type TaskResult } from './tasks.js';

/** The reader threads' nice value: below the server's thread, not so low that a loaded machine starves them past their time limit. */
const READER_NICE = 5;

export interface ExtractRequest {
  id: number;
  task: ExtractTask;
}

export type ExtractReply = { id: number; ok: true; result: TaskResult } | { id: number; ok: false; reason: string } | { ready: true };

const port = parentPort;
if (port) {
  // Linux: where the reader and the server's thread want the same core, the server's thread goes
  // first (a thread's nice value is its own), so a file being read never keeps requests waiting.
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), READER_NICE);
  } catch {
    // Elsewhere (or not allowed): the reader runs at the server's priority.
  }
  port.on('message', async ({ id, task }: ExtractRequest) => {
    // An upload comes as a view of a SharedArrayBuffer (not copied on the server's thread); the
    // parsers get a copy of their own, made here.
    if (task.kind !== 'split' && task.file.bytes.buffer instanceof SharedArrayBuffer) task.file.bytes = new Uint8Array(task.file.bytes);
    let reply: ExtractReply;
    try {
      reply = { id, ok: true, result: await runTask(task) };
    } catch (error) {
      reply = { id, ok: false, reason: error instanceof IngestError ? error.message : `could not read the file: ${reasonOf(error)}` };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies ExtractReply);
}
