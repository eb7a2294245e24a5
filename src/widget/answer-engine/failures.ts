import { INCOMPLETE_STREAM, SESSION_ERROR_CODES, parseRetryAfter, readErrorBody, type StreamErrorEvent } from '../../protocol/index.js';
import type { ChatFailure, FailureKind } from '../element/failure-kinds.js';
import { inUse } from './chat-in-use.js';

/** Wait used when a 429 carries no readable `Retry-After`. */
export const DEFAULT_RETRY_AFTER = 10;
/** Longest wait honoured; a larger `Retry-After` is a server mistake, not a reason to lock the chat for days. */
export const MAX_RETRY_AFTER = 3600;

const KIND_BY_CODE: Record<string, FailureKind> = {
  USAGE_LIMIT: 'usage-limit',
  NOT_FOUND: 'not-found',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'unauthorized',
  RATE_LIMITED: 'rate-limited',
  [INCOMPLETE_STREAM]: 'incomplete',
};

function kindForStatus(status: number): FailureKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 402) return 'usage-limit';
  if (status === 404) return 'not-found';
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'server';
  return 'bad-request';
}

/** Reads a failed response (either error body shape, or none) into a failure. */
export async function failureFromResponse(response: Response): Promise<ChatFailure> {
  // No body (an aborted read): undefined; text that is not JSON: the text.
  let body: unknown = await response.text().catch(() => {});
  try {
    body = JSON.parse(body as string);
  } catch {
    // Kept as it came.
  }
  const { code, message } = readErrorBody(body);
  const kind = code === 'USAGE_LIMIT' ? 'usage-limit' : kindForStatus(response.status);
  const failure: ChatFailure = { kind, status: response.status };
  if (code) failure.code = code;
  if (message) failure.detail = message;
  const wait = parseRetryAfter(response.headers.get('retry-after')) ?? DEFAULT_RETRY_AFTER;
  if (code === SESSION_ERROR_CODES.budgetSpent) {
    // Not a wait the chat counts down (it is hours, to midnight UTC): said once, with the time to come back.
    failure.kind = 'usage-limit';
    failure.message = budgetSpent(wait);
  } else if (kind === 'rate-limited') {
    failure.retryAfter = Math.min(MAX_RETRY_AFTER, Math.max(1, wait));
  }
  return failure;
}

/** `DAILY_BUDGET_SPENT`: the site's questions for today are used up; back at the time `Retry-After` names (in the words of the chat in use, or English). */
function budgetSpent(seconds: number): string {
  const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  // Whole minutes first, rounded up, then hours: 3,599 s is "1 h", not "60 min".
  const inMinutes = Math.ceil(seconds / 60);
  const hours = Math.floor(inMinutes / 60);
  const minutes = inMinutes % 60;
  const words = inUse.chat?.strings.dailyBudgetSpent;
  if (words) return words(at, hours, minutes);
  return `This site's questions for today are used up. Please come back after ${at} (in ${hours ? `${hours} h${minutes ? ` ${minutes} min` : ''}` : `${Math.max(1, minutes)} min`}).`;
}

/** A `[ERROR]...` line, or a stream that closed before `[DONE]`. */
export function failureFromStreamError(event: StreamErrorEvent): ChatFailure {
  const kind: FailureKind = event.usageLimit ? 'usage-limit' : (KIND_BY_CODE[event.code!] ?? 'stream-error');
  const failure: ChatFailure = { kind, detail: event.message };
  if (event.code) failure.code = event.code;
  if (kind === 'rate-limited') failure.retryAfter = DEFAULT_RETRY_AFTER;
  return failure;
}

/** fetch failed before any response: offline, or the endpoint is unreachable. */
export function failureFromNetworkError(error: unknown): ChatFailure {
  // (This part runs in browsers only, where navigator.onLine is always a boolean.)
  const kind = navigator.onLine ? 'unreachable' : 'offline';
  return { kind, detail: error instanceof Error ? error.message : String(error) };
}
