import { errorBody, errorCodeForStatus } from '../../protocol/index.js';

const encoder = new TextEncoder();

/** Headers on every answer the proxy writes. */
const BASE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * The proxy's answer as plain values, before any runtime's response object:
 * the Web handler turns it into a `Response`, the Node entry writes it to
 * node:http directly. A stream body is the relayed event stream.
 */
export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}

/** An error in the service's documented shape (section 7). */
export function errorAnswer(status: number, message: string, headers: Record<string, string> = {}, code = errorCodeForStatus(status)): ProxyAnswer {
  return jsonAnswer(status, errorBody(code, message), headers);
}

/** A JSON answer of the proxy's own (a session's challenge or grant). */
export function jsonAnswer(status: number, value: unknown, headers: Record<string, string>): ProxyAnswer {
  const body = encoder.encode(JSON.stringify(value));
  return {
    status,
    headers: { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.byteLength), ...headers },
    body,
  };
}

/** An answer as a Web `Response`. */
export function toResponse(answer: ProxyAnswer): Response {
  return new Response(answer.body as BodyInit | null, { status: answer.status, headers: answer.headers });
}

/** An error in the service's documented shape (section 7), as a Web `Response`. */
export function errorResponse(status: number, message: string, headers: Record<string, string> = {}, code = errorCodeForStatus(status)): Response {
  return toResponse(errorAnswer(status, message, headers, code));
}

/** The answer to an unexpected failure: says nothing about what failed; the log does. */
export function internalErrorAnswer(): ProxyAnswer {
  return errorAnswer(500, 'The proxy failed unexpectedly. Please try again.');
}

/** `internalErrorAnswer` as a Web `Response`. */
export function internalErrorResponse(): Response {
  return toResponse(internalErrorAnswer());
}
