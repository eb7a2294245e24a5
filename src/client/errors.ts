import { SESSION_ERROR_CODES, errorCodeForStatus, needsNewSession, parseRetryAfter, readErrorBody, type FieldProblem } from '../protocol/index.js';

/** Codes of failures that never reached an HTTP answer. */
export type LocalErrorCode = 'NETWORK_ERROR' | 'INVALID_REQUEST' | 'UNSUPPORTED_MIME_TYPE' | 'INVALID_RESPONSE';

/**
 * Every failure of the client: an error status from the service, a request
 * the client refused to send, or no answer at all.
 */
export class KagentError extends Error {
  override name = 'KagentError';
  /** The HTTP status; `0` when no response came (network failure, or the client refused to send). */
  readonly status: number;
  /** The service's error code (`UNAUTHORIZED`, `USAGE_LIMIT`, ...), or the usual code of the status when the body has none. */
  readonly code: string;
  /** Seconds to wait before trying again, from `Retry-After` (429). */
  readonly retryAfter: number | undefined;
  /** The invalid fields, when the client refused a body it checked. */
  readonly problems: readonly FieldProblem[];

  constructor(init: { status: number; code: string; message: string; retryAfter?: number | undefined; problems?: readonly FieldProblem[]; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.retryAfter = init.retryAfter;
    this.problems = init.problems ?? [];
  }

  /** Whether the usage limit was reached (402, or `USAGE_LIMIT` in a stream). */
  get usageLimit(): boolean {
    return this.status === 402 || this.code === 'USAGE_LIMIT';
  }

  /** Whether a kagent proxy refused the query for its session (missing, invalid, expired, another origin's): earn a new one and send once more. */
  get needsNewSession(): boolean {
    return needsNewSession(this.code);
  }

  /** Whether the site's questions for today are spent (a kagent proxy's daily budget); `retryAfter` says how long until they come back. */
  get budgetSpent(): boolean {
    return this.code === SESSION_ERROR_CODES.budgetSpent;
  }
}

/** Reads a failed response into a `KagentError`. `redact` removes secrets from text that came from the server. */
export async function errorFromResponse(response: Response, redact: (text: string) => string): Promise<KagentError> {
  const raw = await response.text().catch(() => '');
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {
    // Not JSON: a proxy's HTML page or plain text; keep it as text.
  }
  const { code, message } = readErrorBody(body);
  const fallback = `The service answered with status ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`;
  return new KagentError({
    status: response.status,
    code: code ?? errorCodeForStatus(response.status),
    // An HTML error page is no message for a person; keep short text only.
    message: redact(message && message.length <= 500 && !message.trimStart().startsWith('<') ? message : fallback),
    retryAfter: parseRetryAfter(response.headers.get('Retry-After')),
  });
}
