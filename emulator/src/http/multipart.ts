// A multipart/form-data reader over bytes already counted in: the parts are found with
// Buffer.indexOf (native), so a 50 MB upload is split in milliseconds instead of holding the
// server's thread for seconds as the Web-standard `Response.formData()` parser does.
import { HttpError } from './responses.js';

/** The fields and files of a multipart body, as a `FormData`. */
export function parseMultipart(bytes: Uint8Array, contentType: string): FormData {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) throw new HttpError(400, 'The multipart body could not be read: its Content-Type names no boundary.');
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const form = new FormData();
  let position = body.indexOf(delimiter);
  if (position === -1) throw new HttpError(400, 'The multipart body could not be read: no part starts with its boundary.');
  for (;;) {
    position += delimiter.length;
    // "--" after a delimiter closes the body.
    if (body[position] === 0x2d && body[position + 1] === 0x2d) return form;
    const headersEnd = body.indexOf('\r\n\r\n', position);
    if (headersEnd === -1) throw new HttpError(400, 'The multipart body could not be read: a part has no end to its headers.');
    const headers = body.subarray(position, headersEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd + 4);
    if (next === -1) throw new HttpError(400, 'The multipart body could not be read: it ends inside a part.');
    const content = body.subarray(headersEnd + 4, next);
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1] ?? '';
    const name = parameter(disposition, 'name');
    if (name !== undefined) {
      const fileName = parameter(disposition, 'filename');
      if (fileName === undefined) form.append(name, content.toString('utf8'));
      else {
        const type = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim() ?? '';
        form.append(name, new File([content as Uint8Array<ArrayBuffer>], fileName, { type }));
      }
    }
    position = next + 2;
  }
}

/** A `name="value"` parameter of a Content-Disposition header (quoted or not; `filename*` is not needed by any client here). */
function parameter(disposition: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(disposition);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}
