// Node only: reads a body stream up to a byte cap, for the visitor's request and the service's answer.
import type { Readable } from 'node:stream';

export interface CappedBody {
  bytes: Uint8Array;
  /** False when the cap was reached and the rest was left unread. */
  complete: boolean;
}

/**
 * Reads `body` up to `maxBytes`. Past that it calls `onOverflow` (which decides what
 * becomes of the rest: destroyed, or drained under `Connection: close`) and resolves
 * with what fits. Rejects when the body fails, or closes before its end (`closedMessage`).
 */
export function readNodeBodyCapped(body: Readable, maxBytes: number, onOverflow: () => void, closedMessage: () => Error): Promise<CappedBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const joined = () => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const done = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.byteLength > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        done();
        onOverflow();
        resolve({ bytes: joined(), complete: false });
        return;
      }
      size += chunk.byteLength;
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve({ bytes: chunks.length ? joined() : new Uint8Array(0), complete: true });
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      done();
      reject(closedMessage());
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}
