import { INCOMPLETE_STREAM, QUESTION_ID_HEADER, QUESTIONS_LEFT_HEADER, SESSION_HEADER, describeProblems, isQuestionId, needsNewSession, readAgentQueryAnswer, readAgentStream, type AgentQueryAnswer } from '../../protocol/index.js';
import type { ChatFailure } from '../element/failure-kinds.js';
import { failureFromNetworkError, failureFromResponse, failureFromStreamError } from './failures.js';
import { nextTask } from './next-task.js';
import { learnFeatures } from './proxy-features.js';
import { sessionFor, type SessionTicket, type VisitorSession } from './sessions/index.js';

export interface AskOptions {
  /** The proxy, or the service itself for a public agent. */
  endpoint: string;
  agentId: string;
  query: string;
  conversationId?: string;
  visitorId?: string;
  /** `true`: an event stream, shown as it arrives; `false`: one JSON answer. */
  streaming: boolean;
  /** Aborting stops the answer (Stop, or the element leaving the page). */
  signal: AbortSignal;
  /** Further body fields (e.g. `filters`) for endpoints that allow them; the chat's own fields win. */
  queryOptions?: Record<string, unknown> | undefined;
  /** `off`: the endpoint is not kagent-proxy, and is not asked what it serves (the element's `proxy-features`). */
  proxyFeatures?: 'auto' | 'off';
  /** Each piece of the answer as it arrives. */
  onText?: (fragment: string) => void;
}

export type AskOutcome =
  /**
   * `note`: a word for the visitor to read with the answer (a visitor session's questions running out). `questionId`: the
   * proxy's name for the question where it records them (`Kagent-Question-Id`), which the answer's feedback goes with.
   */
  | { type: 'answered'; answer: string; response: AgentQueryAnswer | undefined; note?: string; questionId?: string }
  | { type: 'failed'; failure: ChatFailure; partialAnswer: string }
  | { type: 'stopped'; partialAnswer: string };

/** A question that failed before any of its answer came. */
const failed = (failure: ChatFailure): AskOutcome => ({ type: 'failed', failure, partialAnswer: '' });

/** `POST {endpoint}/agents/{agentId}/query`. */
export function queryUrl(endpoint: string, agentId: string): string {
  return `${endpoint.replace(/\/+$/, '')}/agents/${encodeURIComponent(agentId)}/query`;
}

/**
 * Asks the agent once. One POST is made, whatever happens: no retry on an
 * error, a closed stream, a 429 or a hidden tab; the visitor decides whether
 * to ask again. (The one re-ask, for ids the proxy refuses, is the
 * conversation's: see `ConversationController`.)
 *
 * With visitor sessions on at the proxy, the question goes with the
 * session's token (waiting for one being earned); if the proxy refuses the
 * token (expired, its secret retired, none sent), a new session is earned and
 * the question sent once more, never twice.
 */
export async function askAgent(options: AskOptions): Promise<AskOutcome> {
  const pageSaysOff = options.proxyFeatures === 'off';
  // A proxy that refuses this page's origin is not asked (its refusal would be a CORS failure): the console has said why.
  const { refused } = await learnFeatures(options.endpoint, pageSaysOff);
  if (refused) return failed(refused);
  let session = await sessionFor(options.endpoint, false, pageSaysOff);
  if (session && 'failure' in session) return failed(session.failure);
  // One answer at a time per session: this page's other chats asking the same proxy wait for it (the keeper's `turn`).
  const endTurn = await session?.turn(options.signal);
  try {
    let ticket: SessionTicket = (await session?.ticket(options.signal)) ?? { token: undefined };
    for (let attempt = 0; ; attempt++) {
      if (options.signal.aborted) return { type: 'stopped', partialAnswer: '' };
      if ('failure' in ticket) return failed(ticket.failure);
      const outcome = await askWith(options, ticket.token, session);
      if (outcome.type !== 'failed' || !needsNewSession(outcome.failure.code)) return outcome;
      // Refused twice (a second try is only made with a keeper): said plainly, the question kept for Retry.
      if (attempt > 0) return { ...outcome, failure: session!.refusedAgain(outcome.failure) };
      // Sessions are on after all (the browser kept an older answer of the features route, or the page said off): the keeper's chunk comes now.
      if (!session) {
        const keeper = await sessionFor(options.endpoint, true);
        if (!keeper) return outcome;
        if ('failure' in keeper) return failed(keeper.failure);
        session = keeper;
      }
      ticket = await session.renew(ticket.token, options.signal);
    }
  } finally {
    endTurn?.();
  }
}

/** One POST, with the session's `token` if there is one; `session` words its limits. */
async function askWith(options: AskOptions, token: string | undefined, session: VisitorSession | undefined): Promise<AskOutcome> {
  const { streaming, signal } = options;
  let response: Response;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: streaming ? 'text/event-stream' : 'application/json' };
  if (token) headers[SESSION_HEADER] = token;
  try {
    // An already aborted signal sends nothing.
    response = await fetch(queryUrl(options.endpoint, options.agentId), { method: 'POST', headers, body: requestBody(options, streaming), signal });
  } catch (error) {
    if (signal.aborted) return { type: 'stopped', partialAnswer: '' };
    return failed(failureFromNetworkError(error));
  }
  if (!response.ok) {
    const failure = await failureFromResponse(response);
    return failed(session?.explain(failure) ?? failure);
  }
  const outcome = await (streaming ? readStreamed(response, options) : readJson(response, options));
  if (outcome.type !== 'answered') return outcome;
  const note = session?.questionsLeft(response.headers.get(QUESTIONS_LEFT_HEADER));
  if (note) outcome.note = note;
  const questionId = response.headers.get(QUESTION_ID_HEADER);
  if (isQuestionId(questionId)) outcome.questionId = questionId;
  return outcome;
}

function requestBody(options: AskOptions, streaming: boolean): string {
  const body: Record<string, unknown> = { ...options.queryOptions, query: options.query, streaming };
  if (options.conversationId) body.conversationId = options.conversationId;
  if (options.visitorId) body.visitorId = options.visitorId;
  return JSON.stringify(body);
}

/** The answer as an event stream, read with the protocol's one reader (`readAgentStream`), shown piece by piece. */
async function readStreamed(response: Response, options: AskOptions): Promise<AskOutcome> {
  const type = response.headers.get('content-type');
  if (!response.body || !/^text\/event-stream\b/i.test(type ?? '')) {
    await response.body?.cancel().catch(() => {});
    return failed({ kind: 'unreadable', status: response.status, detail: `Expected an event stream, got ${type ?? 'no content type'}` });
  }
  let answer = '';
  let broke: unknown;
  try {
    for await (const event of readAgentStream(response.body.pipeThrough(inSlices()))) {
      if (event.type === 'answer') {
        answer += event.text;
        if (event.text) options.onText?.(event.text);
      } else if (event.type === 'done') return { type: 'answered', answer: event.answer, response: event.response };
      else return { type: 'failed', failure: failureFromStreamError(event), partialAnswer: event.partialAnswer };
    }
  } catch (error) {
    broke = error;
  }
  if (options.signal.aborted) return { type: 'stopped', partialAnswer: answer };
  // The connection broke mid-answer: it was cut off.
  return { type: 'failed', failure: { kind: 'incomplete', code: INCOMPLETE_STREAM, detail: String(broke) }, partialAnswer: answer };
}

/** Longest stretch, in ms, that reading a stream may hold the main thread before letting the page paint. */
const READ_SLICE_MS = 10;
/** Bytes handed to the event parser at a time when a burst arrives in one large chunk. */
const PIECE_BYTES = 4096;

/**
 * The body on its way to the reader, a task at a time: a burst of buffered
 * data would otherwise be parsed in one long task; it is passed on in
 * pieces, so the page keeps painting.
 */
function inSlices(): TransformStream<Uint8Array, Uint8Array> {
  let sliceStart = performance.now();
  return new TransformStream({
    async transform(chunk, controller) {
      for (let offset = 0; offset < chunk.length; offset += PIECE_BYTES) {
        if (offset > 0 || performance.now() - sliceStart >= READ_SLICE_MS) {
          await nextTask();
          sliceStart = performance.now();
        }
        controller.enqueue(chunk.subarray(offset, offset + PIECE_BYTES));
      }
    },
  });
}

/** The whole answer as one JSON body. */
async function readJson(response: Response, options: AskOptions): Promise<AskOutcome> {
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    if (options.signal.aborted) return { type: 'stopped', partialAnswer: '' };
    return failed({ kind: 'unreadable', status: response.status, detail: `The answer is not JSON: ${(error as Error).message}` });
  }
  const parsed = readAgentQueryAnswer(body);
  if (!parsed.ok) {
    return failed({ kind: 'unreadable', status: response.status, detail: `The answer is not an agent answer: ${describeProblems(parsed.problems)}` });
  }
  if (parsed.value.answer) options.onText?.(parsed.value.answer);
  return { type: 'answered', answer: parsed.value.answer, response: parsed.value };
}
