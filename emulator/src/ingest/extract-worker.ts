// Worker thread entry: runs one task (reading a file, splitting a text) per message, so a slow
// or hostile file can be stopped without stopping the emulator, and no large text is split on
// the server's thread.
import { parentPort } from 'node:worker_threads';
import { IngestError, reasonOf } from './errors.js';
import { runTask, type ExtractTask, type TaskResult } from './tasks.js';

export interface ExtractRequest {
  id: number;
  task: ExtractTask;
}

export type ExtractReply = { id: number; ok: true; result: TaskResult } | { id: number; ok: false; reason: string } | { ready: true };

const port = parentPort;
if (port) {
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
