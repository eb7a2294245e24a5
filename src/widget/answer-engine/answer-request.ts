import { fetchEventSource } from '@microsoft/fetch-event-source';
import { AgentStreamDecoder, describeProblems, readAgentQueryAnswer, type AgentQueryAnswer, type AgentStreamEvent } from '../../protocol/index.js';
import type { ChatFailure } from '../element/failure-kinds.js';
import { failureFromNetworkError, failureFromResponse, failureFromStreamError } from './failures.js';

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
  // Our own controller, so the stream can be closed once [DONE] arrives.
  const reading = new AbortController();
  const stopByVisitor = () => reading.abort();
  options.signal.addEventListener('abort', stopByVisitor, { once: true });
  let opened = false;
  let outcome: AskOutcome | undefined;
  /** A failed response, found in `onopen`. */
  let refused: ChatFailure | undefined;

  const settle = (event: AgentStreamEvent | undefined) => {
    if (!event) return;
    if (event.type === 'answer') {
      if (event.text) options.onText?.(event.text);
      return;
    }
    outcome =
      event.type === 'done'
        ? { type: 'answered', answer: event.answer, response: event.response }
        : { type: 'failed', failure: failureFromStreamError(event), partialAnswer: event.partialAnswer };
    reading.abort();
  };

  try {
    if (options.signal.aborted) return { type: 'stopped', partialAnswer: '' };
    await fetchEventSource(queryUrl(options.endpoint, options.agentId), {
      method: 'POST',
      // A plain object: fetch-event-source silently drops a Headers instance.
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: requestBody(options, true),
      signal: reading.signal,
      // Otherwise hiding the tab aborts the request and showing it again re-sends the question.
      openWhenHidden: true,
      fetch: fetchEndingLastEvent,
      async onopen(response) {
        if (!response.ok) refused = await failureFromResponse(response);
        else if (!isEventStream(response)) {
          await response.body?.cancel().catch(() => {});
          refused = { kind: 'unreadable', status: response.status, detail: `Expected an event stream, got ${response.headers.get('content-type') ?? 'no content type'}` };
        }
        // Throwing (to onerror, which throws it on) ends fetch-event-source without a retry.
        if (refused) throw new Error(refused.kind);
        opened = true;
      },
      onmessage(message) {
        settle(decoder.push(message));
      },
      onerror(error) {
        // Throwing stops fetch-event-source; returning would make it POST the question again.
        throw error;
      },
    });
  } catch (error) {
    if (refused) return { type: 'failed', failure: refused, partialAnswer: '' };
    if (outcome) return outcome;
    if (options.signal.aborted) return { type: 'stopped', partialAnswer: decoder.answer };
    if (!opened) return { type: 'failed', failure: failureFromNetworkError(error), partialAnswer: '' };
    // The connection broke mid-answer.
    settle(decoder.end());
  } finally {
    options.signal.removeEventListener('abort', stopByVisitor);
  }
  if (outcome) return outcome;
  if (options.signal.aborted) return { type: 'stopped', partialAnswer: decoder.answer };
  // The stream closed without [DONE]: the decoder's INCOMPLETE_STREAM error is the outcome (settle sets it).
  settle(decoder.end());
  return outcome!;
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

/**
 * fetch for fetch-event-source, with two fixes on the way to its parser:
 * - an event the server closes the connection on without the blank line after
 *   it (the service's `[ERROR]` line can end so) would be dropped; two line
 *   ends at the close dispatch it, as `src/protocol` does;
 * - a burst of buffered data would be parsed in one long task; it is passed
 *   on in pieces, a task at a time, so the page keeps painting.
 */
async function fetchEndingLastEvent(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (!response.ok || !response.body || !isEventStream(response)) return response;
  let sliceStart = performance.now();
  const passOn = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      for (let offset = 0; offset < chunk.length; offset += PIECE_BYTES) {
        if (offset > 0 || performance.now() - sliceStart >= READ_SLICE_MS) {
          await nextTask();
          sliceStart = performance.now();
        }
        controller.enqueue(chunk.subarray(offset, offset + PIECE_BYTES));
      }
    },
    flush(controller) {
      controller.enqueue(new Uint8Array([10, 10]));
    },
  });
  return new Response(response.body.pipeThrough(passOn), { status: response.status, statusText: response.statusText, headers: response.headers });
}

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
