import { describeProblems, readAgentQueryAnswer, readAgentStream, type AgentStreamEvent, type DoneEvent } from '../protocol/index.js';
import { KagentError } from './errors.js';

/**
 * A streamed agent answer: iterate it for typed events (`answer` pieces, then
 * `done` or `error`). The request is sent once, when iteration starts, and is
 * never re-sent. `abort()` (or the `signal` given to the client call) stops
 * it: the iteration then simply ends.
 *
 * A failure before the stream opens (400, 402, 404, 429, ...) is thrown as a
 * `KagentError`; a failure after it opened arrives as an `error` event.
 */
export class AgentAnswerStream implements AsyncIterable<AgentStreamEvent> {
  readonly #controller = new AbortController();
  readonly #open: (signal: AbortSignal) => Promise<Response>;
  #started = false;

  constructor(open: (signal: AbortSignal) => Promise<Response>, signal?: AbortSignal) {
    this.#open = open;
    if (signal?.aborted) this.#controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => this.#controller.abort(signal.reason), { once: true });
  }

  /** Stops the answer: cancels the request or the download. */
  abort(reason?: unknown): void {
    this.#controller.abort(reason);
  }

  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<AgentStreamEvent, void, undefined> {
    // One stream, one request: a second iteration would mean asking the question twice.
    if (this.#started) throw new TypeError('An answer stream can be read only once.');
    this.#started = true;
    const signal = this.#controller.signal;
    try {
      if (signal.aborted) return;
      const response = await this.#open(signal);
      const type = response.headers.get('Content-Type') ?? '';
      if (type.startsWith('text/event-stream') && response.body) {
        // One read may decode several events: none goes out after abort() (leaving the loop cancels the download).
        for await (const event of readAgentStream(response.body)) {
          if (signal.aborted) return;
          yield event;
        }
        return;
      }
      if (type.includes('json')) {
        // A server that answers with JSON despite `streaming: true`: the same answer, as events.
        const done = await answerAsDoneEvent(response);
        if (done.answer) yield { type: 'answer', text: done.answer };
        yield done;
        return;
      }
      await response.body?.cancel();
      throw new KagentError({ status: response.status, code: 'INVALID_RESPONSE', message: `Expected an event stream, got ${type || 'no content type'}.` });
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
  }

  /** Reads the whole stream. Resolves with the `done` event; rejects with a `KagentError` for an `error` event. */
  async final(): Promise<DoneEvent> {
    for await (const event of this) {
      if (event.type === 'done') return event;
      if (event.type === 'error') {
        throw new KagentError({ status: 200, code: event.code ?? 'STREAM_ERROR', message: event.message });
      }
    }
    throw new KagentError({ status: 0, code: 'ABORTED', message: 'The answer stream was aborted.' });
  }
}

async function answerAsDoneEvent(response: Response): Promise<DoneEvent> {
  const result = readAgentQueryAnswer(await response.json().catch(() => undefined));
  if (!result.ok) throw new KagentError({ status: response.status, code: 'INVALID_RESPONSE', message: `The answer is not an agent query answer: ${describeProblems(result.problems)}` });
  return { type: 'done', answer: result.value.answer, response: result.value };
}
