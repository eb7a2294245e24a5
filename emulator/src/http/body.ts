import { describeProblems, type CheckResult } from 'kagent-chat/protocol';
import { parseMultipart, type MultipartForm } from './multipart.js';
import { HttpError } from './responses.js';
import { yieldToRequests } from '../yield.js';

/** JSON bodies above this are refused; uploads have their own limit. */
export const MAX_JSON_BYTES = 5 * 1024 * 1024;
/** JSON nested deeper than this is refused with a 400 (no request of the interface needs more than a few levels). */
export const MAX_JSON_DEPTH = 64;
/** Room for the multipart envelope and text fields around an uploaded file of the largest allowed size. */
const MULTIPART_ENVELOPE_BYTES = 64 * 1024;

/**
 * The whole body, counted while it is read: a body longer than `maxBytes` is refused with a
 * 413 as soon as the count passes it, whether it declared its length or came chunked. The
 * 413 closes the connection, so the rest of a huge body is never read. With `shared`, the
 * bytes are gathered in a `SharedArrayBuffer`, so an upload reaches the reader threads
 * without being copied again on the server's thread.
 */
export async function readBodyAtMost(request: Request, maxBytes: number, what: string, shared = false): Promise<Uint8Array> {
  const tooLarge = () => new HttpError(413, `${what} is larger than ${maxBytes} bytes.`, { headers: { Connection: 'close' } });
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  // A declared length is filled chunk by chunk as it arrives: no copy of the whole body in one go at the end.
  // (Large buffers are mapped zero pages: memory is taken as bytes arrive, not when declared.)
  const declaredLength = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
  const filled = declaredLength > 0 ? new Uint8Array(shared ? new SharedArrayBuffer(declaredLength) : new ArrayBuffer(declaredLength)) : undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (filled && length + value.byteLength <= declaredLength) filled.set(value, length);
      else chunks.push(value);
      length += value.byteLength;
      if (length > maxBytes) throw tooLarge();
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, `The body could not be read: ${(error as Error).message}`);
  }
  if (filled && length === declaredLength && chunks.length === 0) return filled;
  if (filled) throw new HttpError(400, `The body is ${length} bytes long, not the ${declaredLength} its Content-Length declares.`);
  if (chunks.length === 1 && !shared) return chunks[0]!;
  const bytes = new Uint8Array(shared ? new SharedArrayBuffer(length) : new ArrayBuffer(length));
  let position = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, position);
    position += chunk.byteLength;
  }
  return bytes;
}

/** A JSON body at least this long is handled in a turn after the one that decoded and parsed it. */
const LARGE_JSON_BYTES = 256 * 1024;

/**
 * Reads a JSON body, which must be an object (every body of the interface is one); one sent with
 * a Content-Type other than JSON, or holding an array or a plain value, is a 400. An empty (or
 * blank) body is a 400 too, as openapi.json requires a body, except with `optional` (the deletes,
 * whose body may be left out): it then reads as `{}`. After a large body, the server gets a
 * turn before the request goes on: decoding and parsing 5 MB take about 10 ms, and what follows
 * (journaling a document's text) as long again or more.
 */
export async function readJson(request: Request, { optional = false }: { optional?: boolean } = {}): Promise<unknown> {
  const bytes = await readBodyAtMost(request, MAX_JSON_BYTES, 'The body');
  if (bytes.byteLength === 0) return emptyBody(optional);
  const type = request.headers.get('Content-Type');
  if (type !== null && !isJsonType(type)) throw new HttpError(400, `The body must be JSON (Content-Type: application/json), not ${type.split(';')[0]!.trim() || 'an empty type'}.`);
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') return emptyBody(optional);
  const value = parseJson(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, `The body must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}.`);
  }
  if (bytes.byteLength >= LARGE_JSON_BYTES) await yieldToRequests();
  return value;
}

/** `application/json`, or a `+json` type such as `application/merge-patch+json`, with any parameters. */
function isJsonType(type: string): boolean {
  return /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type);
}

/** What an empty body reads as: `{}` where the body may be left out, else a 400. */
function emptyBody(optional: boolean): Record<string, never> {
  if (optional) return {};
  throw new HttpError(400, 'The body is empty: this request takes a JSON object.');
}

function parseJson(text: string): unknown {
  let value: unknown;
  try {
    // V8's parser does not recurse, so deep nesting is safe here; it is refused just after.
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, `The body is not valid JSON: ${(error as Error).message}`);
  }
  // Checked on the parsed value (a few objects) rather than on the text (5 million characters took 90 ms).
  if (valueDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw new HttpError(400, `The body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  return value;
}

/**
 * How deeply arrays and objects nest in a parsed JSON value, counted up to just past `limit`
 * without recursion: deep nesting overflows the recursive checks that follow.
 */
export function valueDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return deepest;
    }
    for (const child of Object.values(current)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The checked value, or a 400 naming every invalid field and its rule. */
export function valid<T>(result: CheckResult<T>): T {
  if (result.ok) return result.value;
  throw new HttpError(400, `Invalid request: ${describeProblems(result.problems)}`);
}

/**
 * Reads a multipart body, counting its bytes as they come: refused with a 413 once it passes
 * `maxBytes` (plus room for the envelope), whether declared or chunked.
 */
export async function readForm(request: Request, maxBytes: number): Promise<MultipartForm> {
  // Counted in whole, then split by a native search: the server's thread is never held for long.
  const type = request.headers.get('Content-Type') ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    throw new HttpError(400, `Content-Type must be multipart/form-data, got ${type || 'none'}.`);
  }
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > maxBytes + MULTIPART_ENVELOPE_BYTES) {
    throw new HttpError(413, `The upload is larger than ${maxBytes} bytes.`, { headers: { Connection: 'close' } });
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBodyAtMost(request, maxBytes + MULTIPART_ENVELOPE_BYTES, 'The upload', true);
  } catch (error) {
    // The refusal names the cap the uploader knows, not the room left for the envelope.
    if (error instanceof HttpError && error.status === 413) throw new HttpError(413, `The upload is larger than ${maxBytes} bytes.`, { headers: error.headers });
    throw error;
  }
  return await parseMultipart(bytes, type);
}

/** The text fields of a form, as an object for the protocol checks. */
export function formFields(form: MultipartForm, names: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of names) {
    const value = form.get(name);
    if (value !== null) fields[name] = typeof value === 'string' ? value : `(a file)`;
  }
  return fields;
}

/** `page` and `limit` of a list (1-based page; 20 per page, at most 100). */
export function pageOf(url: URL): { page: number; limit: number } {
  const read = (name: string, fallback: number, max: number): number => {
    const raw = url.searchParams.get(name);
    if (raw === null) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new HttpError(400, `Invalid request: ${name} must be a whole number of at least 1`);
    return Math.min(Number(raw), max);
  };
  return { page: read('page', 1, Number.MAX_SAFE_INTEGER), limit: read('limit', 20, 100) };
}
