import type { Store } from '../store/store.js';
import { HttpError } from '../http/responses.js';

/**
 * `GET /files/{datasourceId}/{name}`: an uploaded file, at the address its
 * sources give as `source_url`. Like the service's stored files, the address
 * itself is the permission: it needs no key, and the datasource id in it
 * cannot be guessed.
 */
export async function getFile(store: Store, params: Record<string, string>): Promise<Response> {
  const row = store.datasources.get(params.id!);
  const bytes = row?.type === 'file' ? await store.files.readFile(row.id) : undefined;
  if (!row || !bytes) throw new HttpError(404, 'No such file.');
  // A Response body must not be a view of a SharedArrayBuffer.
  const body = bytes.buffer instanceof SharedArrayBuffer ? bytes.slice() : bytes;
  return new Response(body as Uint8Array<ArrayBuffer>, {
    headers: {
      'Content-Type': row.config.mime_type ?? 'application/octet-stream',
      'Content-Length': String(bytes.length),
      'Content-Disposition': `inline; filename*=UTF-8''${encodeURIComponent(row.config.fileName ?? row.name)}`,
      'X-Content-Type-Options': 'nosniff',
      // A stored file is shown, never run.
      'Content-Security-Policy': "sandbox; default-src 'none'",
    },
  });
}
