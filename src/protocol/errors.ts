import * as v from 'valibot';

/** The documented error body (section 7). */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** `ErrorBody` as a schema, for the OpenAPI document and servers' tests. */
export const ErrorBodyRecord = v.looseObject({
  error: v.looseObject({
    /** `UNAUTHORIZED`, or another of `ERROR_CODES`. */
    code: v.string(),
    message: v.string(),
  }),
});

/** The shape the service's own handler also writes (wire-format.md). */
export interface PlainErrorBody {
  error: string;
}

/** A successful list (section 7): the records and where they sit in the whole. */
export interface ListResponse<T> {
  data: T[];
  meta: { page: number; limit: number; total: number };
}

/**
 * Codes used in error bodies. The description shows only `UNAUTHORIZED`;
 * `USAGE_LIMIT` and `NOT_FOUND` are the service's own stream error codes; the
 * rest name the status they go with.
 */
export const ERROR_CODES = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'USAGE_LIMIT',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
} as const satisfies Record<number, string>;

/** The usual code for an HTTP status, for bodies that carry none. */
export function errorCodeForStatus(status: number): string {
  return (ERROR_CODES as Record<number, string>)[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'HTTP_ERROR');
}

/** Builds the documented error body. */
export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/**
 * Reads either error shape, or anything else a failing server may send
 * (`{message}`, a bare string). Fields it cannot find are `undefined`.
 */
export function readErrorBody(body: unknown): { code: string | undefined; message: string | undefined } {
  if (typeof body === 'string') return { code: undefined, message: body.trim() || undefined };
  const { error, message } = (body && typeof body === 'object' ? body : {}) as { error?: unknown; message?: unknown };
  // `{ error: { code, message } }`, else `{ error: "..." }`, else `{ message: "..." }`.
  const inner = (error && typeof error === 'object' ? error : { message: typeof error === 'string' ? error : message }) as { code?: unknown; message?: unknown };
  return { code: stringOrNone(inner.code), message: stringOrNone(inner.message) };
}

const stringOrNone = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Seconds to wait from a `Retry-After` header, which is either a number of
 * seconds or an HTTP date. `undefined` when absent or unreadable.
 */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // Only a date remains valid; Date.parse would read "-5" as a year.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
