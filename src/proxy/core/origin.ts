import { QUESTION_ID_HEADER, QUESTIONS_LEFT_HEADER, SESSION_HEADER } from '../../protocol/index.js';
import type { ResolvedOptions } from './options.js';

export type OriginDecision =
  | { allowed: true; /** The value for `Access-Control-Allow-Origin`; none for a request without `Origin`. */ allowOrigin: string | undefined }
  | { allowed: false; reason: string };

/** Whether a page at the request's `Origin` may use the proxy: exact scheme, host and port, or `*` when configured. */
export function checkOrigin(origin: string | null, options: Pick<ResolvedOptions, 'allowedOrigins' | 'allowRequestsWithoutOrigin'>): OriginDecision {
  if (origin === null || origin === '') {
    if (options.allowRequestsWithoutOrigin || options.allowedOrigins === '*') return { allowed: true, allowOrigin: undefined };
    return { allowed: false, reason: 'the request has no Origin header' };
  }
  if (options.allowedOrigins === '*') return { allowed: true, allowOrigin: '*' };
  // Browsers send the origin already serialised (lower-case host, default port left out), as stored.
  if (options.allowedOrigins.has(origin)) return { allowed: true, allowOrigin: origin };
  return { allowed: false, reason: 'the origin is not allowed' };
}

/** Response headers a page may read: when to try again, a session's questions left, and the recorded question's id (for feedback). */
const EXPOSED = `Retry-After, ${QUESTIONS_LEFT_HEADER}, ${QUESTION_ID_HEADER}`;

/** CORS headers for a response to an allowed origin. Never `Allow-Credentials`: the proxy uses no cookies. */
export function corsHeaders(allowOrigin: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { Vary: 'Origin' };
  if (allowOrigin) {
    headers['Access-Control-Allow-Origin'] = allowOrigin;
    headers['Access-Control-Expose-Headers'] = EXPOSED;
  }
  return headers;
}

/** The answer to a CORS preflight, given before any rate limit or upstream call. */
export function preflightHeaders(allowOrigin: string | undefined, sessions: boolean): Record<string, string> {
  return {
    ...corsHeaders(allowOrigin),
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    // Only the body's type, and the session token when sessions are on: a visitor's page has no business sending Authorization or cookies here.
    'Access-Control-Allow-Headers': sessions ? `Content-Type, ${SESSION_HEADER}` : 'Content-Type',
    'Access-Control-Max-Age': '600',
    Allow: 'POST, OPTIONS',
  };
}
