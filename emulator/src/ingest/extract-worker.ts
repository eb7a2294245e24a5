// Worker thread entry: extracts one file per message, so a slow or hostile file can be stopped
// without stopping the emulator.
import { parentPort } from 'node:worker_threads';
import { IngestError, reasonOf } from './errors.js';
import { extractInThisThread, type UploadedFile } from './extract.js';

export interface ExtractRequest {
  id: number;
  file: UploadedFile;
}

export type ExtractReply =
  | { id: number; ok: true; document: Awaited<ReturnType<typeof extractInThisThread>> }
  | { id: number; ok: false; reason: string }
  | { ready: true };

const port = parentPort;
if (port) {
  port.on('message', async ({ id, file }: ExtractRequest) => {
    let reply: ExtractReply;
    try {
      reply = { id, ok: true, document: await extractInThisThread(file) };
    } catch (error) {
      reply = { id, ok: false, reason: error instanceof IngestError ? error.message : `could not read the file: ${reasonOf(error)}` };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies ExtractReply);
}
