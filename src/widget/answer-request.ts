import { AgentStreamDecoder, describeProblems, readAgentQueryAnswer, type AgentQueryAnswer, type DoneEvent, type StreamErrorEvent, type StreamMessage } from '../protocol/index.js';
import { eventStreamParser } from './event-stream-parser.js';
import { failureFromNetworkError, failureFromResponse, failureFromStreamError, type ChatFailure } from './failures.js';

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
  /** Each piece of the answer as it arrives. */
  onText?: (fragment: string) => void;
}

export type AskOutcome =
  | { type: 'answered'; answer: string; response: AgentQueryAnswer | undefined }
  | { type: 'failed'; failure: ChatFailure; partialAnswer: string }
  | { type: 'stopped'; partialAnswer: string };

/** `POST {endpoint}/agents/{agentId}/query`. */
export function queryUrl(endpoint: string, agentId: string): string {
  return `${endpoint.replace(/\/+$/, '')}/agents/${encodeURIComponent(agentId)}/query`;
}

const EVENT_STREAM = /^text\/event-stream\b/i;
const isEventStream = (response: Response) => EVENT_STREAM.test(response.headers.get('content-type') ?? '');

/**
 * Asks the agent once. One POST is made, whatever happens: no retry on an
 * error, a closed stream, a 429 or a hidden tab; the visitor decides whether
 * to ask again. (The one re-ask, for ids the proxy refuses, is the first
 * part's: see `askOnceLoaded`.)
 */
export function askAgent(options: AskOptions): Promise<AskOutcome> {
  return options.streaming ? askStreaming(options) : askForJson(options);
}

function requestBody(options: AskOptions, streaming: boolean): string {
  const body: Record<string, unknown> = { ...options.queryOptions, query: options.query, streaming };
  if (options.conversationId) body.conversationId = options.conversationId;
  if (options.visitorId) body.visitorId = options.visitorId;
  return JSON.stringify(body);
}

async function askStreaming(options: AskOptions): Promise<AskOutcome> {
  const decoder = new AgentStreamDecoder();
  const stopped = (): AskOutcome => ({ type: 'stopped', partialAnswer: decoder.answer });
  if (options.signal.aborted) return stopped();
  let response: Response;
  try {
    response = await fetch(queryUrl(options.endpoint, options.agentId), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: requestBody(options, true),
      signal: options.signal,
    });
  } catch (error) {
    return options.signal.aborted ? stopped() : { type: 'failed', failure: failureFromNetworkError(error), partialAnswer: '' };
  }
  if (!response.ok) return { type: 'failed', failure: await failureFromResponse(response), partialAnswer: '' };
  if (!response.body || !isEventStream(response)) {
    await response.body?.cancel().catch(() => {});
    return { type: 'failed', failure: { kind: 'unreadable', status: response.status, detail: `Expected an event stream, got ${response.headers.get('content-type') ?? 'no content type'}` }, partialAnswer: '' };
  }
  const messages: StreamMessage[] = [];
  const feed = eventStreamParser((message) => messages.push(message));
  const text = new TextDecoder();
  const reader = response.body.getReader();
  try {
    let sliceStart = performance.now();
    for (;;) {
      let chunk: Uint8Array | undefined;
      try {
        chunk = (await reader.read()).value;
      } catch {
        // The connection broke mid-answer, or the visitor stopped it.
        break;
      }
      // A burst of buffered data is parsed a piece at a time, a task apart, so the page keeps painting.
      for (let offset = 0; offset < (chunk?.length ?? 1); offset += PIECE_BYTES) {
        if (offset > 0 || performance.now() - sliceStart >= READ_SLICE_MS) {
          await nextTask();
          if (options.signal.aborted) return stopped();
          sliceStart = performance.now();
        }
        // At the close, two line ends dispatch an event the server ended without its blank line (the service's `[ERROR]` line can end so).
        feed(chunk ? text.decode(chunk.subarray(offset, offset + PIECE_BYTES), { stream: true }) : `${text.decode()}\n\n`);
        for (const message of messages.splice(0)) {
          const event = decoder.push(message);
          if (event?.type === 'answer') {
            if (event.text) options.onText?.(event.text);
          } else if (event) return outcomeOf(event);
        }
      }
      if (!chunk) break;
    }
  } finally {
    // Stops the download once the answer is done (or failed, or stopped).
    reader.cancel().catch(() => {});
  }
  if (options.signal.aborted) return stopped();
  // The stream closed (or broke) without [DONE].
  return outcomeOf(decoder.end()!);
}

function outcomeOf(event: DoneEvent | StreamErrorEvent): AskOutcome {
  return event.type === 'done'
    ? { type: 'answered', answer: event.answer, response: event.response }
    : { type: 'failed', failure: failureFromStreamError(event), partialAnswer: event.partialAnswer };
}

/** Longest stretch, in ms, that reading a stream may hold the main thread before letting the page paint. */
const READ_SLICE_MS = 10;
/** Bytes handed to the event parser at a time when a burst arrives in one large chunk. */
const PIECE_BYTES = 4096;

/** Waits one task (not a clamped timer), so the page can paint in between. */
const nextTask = () =>
  new Promise<void>((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });

async function askForJson(options: AskOptions): Promise<AskOutcome> {
  let response: Response;
  try {
    response = await fetch(queryUrl(options.endpoint, options.agentId), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: requestBody(options, false),
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal.aborted) return { type: 'stopped', partialAnswer: '' };
    return { type: 'failed', failure: failureFromNetworkError(error), partialAnswer: '' };
  }
  if (!response.ok) return { type: 'failed', failure: await failureFromResponse(response), partialAnswer: '' };
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    if (options.signal.aborted) return { type: 'stopped', partialAnswer: '' };
    return { type: 'failed', failure: { kind: 'unreadable', status: response.status, detail: `The answer is not JSON: ${(error as Error).message}` }, partialAnswer: '' };
  }
  const parsed = readAgentQueryAnswer(body);
  if (!parsed.ok) {
    return { type: 'failed', failure: { kind: 'unreadable', status: response.status, detail: `The answer is not an agent answer: ${describeProblems(parsed.problems)}` }, partialAnswer: '' };
  }
  if (parsed.value.answer) options.onText?.(parsed.value.answer);
  return { type: 'answered', answer: parsed.value.answer, response: parsed.value };
}
