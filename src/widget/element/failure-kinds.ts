/** What went wrong with a question, in the terms the visitor is told. */
export const FAILURE_KINDS = [
  'bad-request',
  'unauthorized',
  'usage-limit',
  'not-found',
  'rate-limited',
  'server',
  'offline',
  'unreachable',
  'incomplete',
  'stream-error',
  'unreadable',
  // The part of the chat that sends questions and renders answers could not be fetched (offline, blocked).
  'not-loaded',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface ChatFailure {
  kind: FailureKind;
  /** HTTP status, when the service answered with one. */
  status?: number;
  /** The service's error code (`USAGE_LIMIT`, `NOT_FOUND`...), when it gave one. */
  code?: string;
  /** The service's own message, for developers (shown in the console, not to visitors). */
  detail?: string;
  /** The words to show instead of the kind's, when the second part has more exact ones (a visitor session's limits). */
  message?: string;
  /** Seconds to wait before asking again (429). */
  retryAfter?: number;
}
