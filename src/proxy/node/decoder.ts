// Node: the decoder for a service's compressed answer, as fetch decodes one
// (gzip, deflate, br), flushing what it has as it goes, so that a streamed
// answer is relayed as it arrives. Shared by the Web `fetch` on node:http
// (node-fetch.ts) and the proxy's own call on undici (node-upstream-call.ts).
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, constants as zlib } from 'node:zlib';

/** A decoder for `Content-Encoding: encoding`, or `undefined` when the body is not encoded (or in a coding fetch does not decode). */
export function answerDecoder(encoding: string | null | undefined): Transform | undefined {
  const coding = encoding?.trim().toLowerCase();
  if (coding === 'gzip' || coding === 'x-gzip') return createGunzip({ flush: zlib.Z_SYNC_FLUSH, finishFlush: zlib.Z_SYNC_FLUSH });
  if (coding === 'deflate') return createInflate({ flush: zlib.Z_SYNC_FLUSH, finishFlush: zlib.Z_SYNC_FLUSH });
  if (coding === 'br') return createBrotliDecompress({ flush: zlib.BROTLI_OPERATION_FLUSH, finishFlush: zlib.BROTLI_OPERATION_FLUSH });
  return undefined;
}
