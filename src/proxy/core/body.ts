import { QUERY_ID_FIELDS, checkAgentQuery, checkDatastoreQuery, describeProblems, isValidQueryId, queryIdRule } from '../../protocol/index.js';
import { concatBytes } from './bytes.js';
import type { ResolvedOptions } from './options.js';
import type { Route } from './route.js';

/** Why a body was refused: the status and a message for the visitor. */
export interface BodyProblem {
  status: 400 | 413 | 415;
  message: string;
}

export type BodyResult = { ok: true; body: Record<string, unknown> } | { ok: false; problem: BodyProblem };

/** `application/json`, with or without parameters such as `charset`. */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  return value.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * Reads the request body, refusing it once more than `maxBytes` have arrived,
 * whatever `Content-Length` claimed (or when it is absent, as with chunked uploads).
 * `read` reads the body itself, stopping past `maxBytes`; it is called only when
 * the declared length does not already refuse the body.
 */
export async function readBodyCapped(contentLength: string | null, read: (maxBytes: number) => Promise<{ bytes: Uint8Array; complete: boolean }>, maxBytes: number): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; problem: BodyProblem }> {
  const tooLarge: BodyProblem = { status: 413, message: `The request body is larger than ${maxBytes} bytes.` };
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > maxBytes) return { ok: false, problem: tooLarge };
  const body = await read(maxBytes);
  return body.complete ? { ok: true, bytes: body.bytes } : { ok: false, problem: tooLarge };
}

/** Refuses bytes that are not UTF-8; decoding without `stream` starts afresh each time, so one serves every request. */
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** Parses the bytes as a JSON object. */
export function parseJsonObject(bytes: Uint8Array): { ok: true; value: Record<string, unknown> } | { ok: false; problem: BodyProblem } {
  let text: string;
  try {
    text = strictDecoder.decode(bytes);
  } catch {
    return { ok: false, problem: { status: 400, message: 'The request body is not UTF-8 text.' } };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: { status: 400, message: 'The request body is not valid JSON.' } };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problem: { status: 400, message: 'The request body must be a JSON object.' } };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

type Limits = Pick<ResolvedOptions, 'allowFields' | 'pin' | 'maxQueryLength' | 'maxIdLength' | 'maxTopK'>;

/**
 * Builds the body sent to the service from scratch: the route's own fields,
 * checked and bounded; the fields the operator allows, checked as the service
 * checks them; then the pinned values over everything. Anything else is dropped.
 */
export function buildUpstreamBody(visitor: Record<string, unknown>, route: Route, options: Limits): BodyResult {
  const problems: string[] = [];
  const body: Record<string, unknown> = {};

  const query = visitor.query;
  if (typeof query !== 'string' || query.trim() === '') problems.push('query is required and must be a non-empty string');
  else if (query.length > options.maxQueryLength) problems.push(`query must be at most ${options.maxQueryLength} characters`);
  else body.query = query;

  if (route.kind === 'agent') {
    // The rule the widget also checks its ids against (src/protocol/query-ids.ts).
    for (const field of QUERY_ID_FIELDS) {
      const value = visitor[field];
      if (value === undefined || value === null) continue;
      if (!isValidQueryId(value, options.maxIdLength)) problems.push(queryIdRule(field, options.maxIdLength));
      else body[field] = value;
    }
    if (visitor.streaming !== undefined && visitor.streaming !== null) {
      if (typeof visitor.streaming !== 'boolean') problems.push('streaming must be true or false');
      else body.streaming = visitor.streaming;
    }
  } else if (visitor.topK !== undefined && visitor.topK !== null) {
    const topK = visitor.topK;
    if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1 || topK > options.maxTopK) problems.push(`topK must be a whole number from 1 to ${options.maxTopK}`);
    else body.topK = topK;
  }

  for (const field of options.allowFields[route.kind]) {
    if (visitor[field] !== undefined) body[field] = visitor[field];
  }
  if (problems.length > 0) return { ok: false, problem: { status: 400, message: `Invalid request: ${problems.join('; ')}.` } };

  const check = route.kind === 'agent' ? checkAgentQuery(body) : checkDatastoreQuery(body);
  if (!check.ok) return { ok: false, problem: { status: 400, message: `Invalid request: ${describeProblems(check.problems)}.` } };

  // Pins last, so they always win; they were checked at start-up. Copied one by one: a spread costs every request V8's slow path.
  const pins = options.pin[route.kind];
  for (const field in pins) body[field] = pins[field];
  return { ok: true, body };
}

/**
 * Reads a body stream up to `maxBytes`. Past that it stops and cancels the
 * stream, so the rest is never buffered, and says the body was not complete.
 */
export async function readStreamCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = true;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      await reader.cancel().catch(() => {});
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      complete = false;
      break;
    }
    size += value.byteLength;
    chunks.push(value);
  }
  return { bytes: concatBytes(chunks), complete };
}
