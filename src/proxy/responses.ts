import { errorBody, errorCodeForStatus } from '../protocol/index.js';

const encoder = new TextEncoder();

/** Headers on every answer the proxy writes. */
const BASE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** An error in the service's documented shape (section 7). */
export function errorResponse(status: number, message: string, headers: Record<string, string> = {}, code = errorCodeForStatus(status)): Response {
  const body = encoder.encode(JSON.stringify(errorBody(code, message)));
  return new Response(body, {
    status,
    headers: { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.byteLength), ...headers },
  });
}

/** The answer to an unexpected failure: says nothing about what failed; the log does. */
export function internalErrorResponse(): Response {
  return errorResponse(500, 'The proxy failed unexpectedly. Please try again.');
}
