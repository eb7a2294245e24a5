// A multipart/form-data reader over bytes already counted in: the parts are found with
// Buffer.indexOf (native), so a 50 MB upload is split in milliseconds instead of holding the
// server's thread for seconds as the Web-standard `Response.formData()` parser does. A file
// part stays a view of the body's bytes: no copy into a Blob and back (each copy of 50 MB
// held the server's thread for tens of milliseconds). The search goes a few megabytes at a time,
// with a turn for other requests between: in a file of short lines (a CSV with CRLF line ends)
// every line end starts a candidate match, and one search through 48 MB took over 100 ms.
import { HttpError } from './responses.js';
import { yieldToRequests } from '../yield.js';

/** Bytes searched in one turn of the server's thread (about 10 ms in the worst case measured). */
const SEARCH_WINDOW = 4 * 1024 * 1024;

/** A file part of a form: its name as sent, its declared type and its bytes (a view of the body). */
export interface FormFile {
  readonly fileName: string;
  readonly type: string;
  readonly bytes: Uint8Array;
}

/** The fields and files of a multipart body; the first part of each name wins. */
export class MultipartForm {
  readonly #parts = new Map<string, string | FormFile>();
  add(name: string, value: string | FormFile): void {
    if (!this.#parts.has(name)) this.#parts.set(name, value);
  }
  get(name: string): string | FormFile | null {
    return this.#parts.get(name) ?? null;
  }
}

/** The fields and files of a multipart body. */
export async function parseMultipart(bytes: Uint8Array, contentType: string): Promise<MultipartForm> {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) throw new HttpError(400, 'The multipart body could not be read: its Content-Type names no boundary.');
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const partEnd = Buffer.concat([Buffer.from('\r\n'), delimiter]);
  const form = new MultipartForm();
  let position = await search(body, delimiter, 0);
  if (position === -1) throw new HttpError(400, 'The multipart body could not be read: no part starts with its boundary.');
  for (;;) {
    position += delimiter.length;
    // "--" after a delimiter closes the body.
    if (body[position] === 0x2d && body[position + 1] === 0x2d) return form;
    const headersEnd = await search(body, HEADERS_END, position);
    if (headersEnd === -1) throw new HttpError(400, 'The multipart body could not be read: a part has no end to its headers.');
    const headers = body.subarray(position, headersEnd).toString('utf8');
    const next = await search(body, partEnd, headersEnd + 4);
    if (next === -1) throw new HttpError(400, 'The multipart body could not be read: it ends inside a part.');
    const content = body.subarray(headersEnd + 4, next);
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1] ?? '';
    const name = parameter(disposition, 'name');
    if (name !== undefined) {
      const fileName = parameter(disposition, 'filename');
      if (fileName === undefined) form.add(name, content.toString('utf8'));
      else {
        const type = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim() ?? '';
        form.add(name, { fileName, type, bytes: new Uint8Array(content.buffer, content.byteOffset, content.byteLength) });
      }
    }
    position = next + 2;
  }
}

const HEADERS_END = Buffer.from('\r\n\r\n');

/** Where `needle` first occurs in `body` from `from` on (-1 if nowhere), searched a window at a time with a turn for other requests between. */
async function search(body: Buffer, needle: Buffer, from: number): Promise<number> {
  for (let start = from; start < body.length; start += SEARCH_WINDOW) {
    if (start > from) await yieldToRequests();
    // Each window runs on by the needle's length less one, so a match across its end is found.
    const window = body.subarray(start, Math.min(body.length, start + SEARCH_WINDOW + needle.length - 1));
    const found = window.indexOf(needle);
    if (found !== -1) return start + found;
  }
  return -1;
}

/** A `name="value"` parameter of a Content-Disposition header (quoted or not; `filename*` is not needed by any client here). */
function parameter(disposition: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(disposition);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}
