import { readAgentQueryAnswer, type AgentQueryAnswer } from './answer.js';
import { describeProblems } from './check.js';

/** One server-sent event as an SSE parser hands it over. `event` is `''` or absent for unnamed events. */
export interface StreamMessage {
  event?: string | undefined;
  data: string;
}

/** A piece of the answer, decoded. Concatenating them in order gives the answer. */
export interface AnswerEvent {
  type: 'answer';
  text: string;
}

/** `[DONE]`: the answer is complete. */
export interface DoneEvent {
  type: 'done';
  /** The whole answer text. */
  answer: string;
  /** The assembled `endpoint_response` (sources, ids), or `undefined` when none came or it could not be read. */
  response: AgentQueryAnswer | undefined;
  /** Why `response` is missing when `endpoint_response` fragments came but did not parse. */
  responseProblem?: string;
}

/** `[ERROR]...` during the stream, or a stream that ended without `[DONE]`. */
export interface StreamErrorEvent {
  type: 'error';
  /** A code such as `USAGE_LIMIT`, `NOT_FOUND`, or `INCOMPLETE_STREAM`; `undefined` for free text. */
  code: string | undefined;
  message: string;
  /** The usage limit was reached (a 200 stream carrying `[ERROR]USAGE_LIMIT`). */
  usageLimit: boolean;
  /** The part of the answer that arrived before the error. */
  partialAnswer: string;
}

export type AgentStreamEvent = AnswerEvent | DoneEvent | StreamErrorEvent;

/** Code of the error reported when a stream closes before `[DONE]`. */
export const INCOMPLETE_STREAM = 'INCOMPLETE_STREAM';

const utf8 = new TextDecoder();

/**
 * Undoes `encodeURIComponent`, tolerantly: a fragment that was never encoded
 * (`100% sure`) or has a broken escape keeps its other text, and bytes that
 * are not UTF-8 become U+FFFD instead of failing the whole fragment.
 */
export function decodeFragment(fragment: string): string {
  if (!fragment.includes('%')) return fragment;
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      const bytes = new Uint8Array(run.length / 3);
      for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
      return utf8.decode(bytes);
    });
  }
}

const CODE = /^[A-Z][A-Z0-9_]*$/;

/**
 * Turns the server-sent events of a streamed agent answer into typed events,
 * reading them exactly as the service writes them (wire-format.md): encoded
 * `answer` fragments, `endpoint_response` fragments joined and parsed once the
 * stream is done, `[DONE]` under an empty event name, and a bare
 * `data: [ERROR]<code or text>`. Other events (`tool_call`) are passed over.
 *
 * Feed it with `push` as messages arrive and call `end` when the connection
 * closes; after a `done` or `error` event it ignores the rest.
 */
export class AgentStreamDecoder {
  #answer = '';
  #responseFragments: string[] = [];
  #finished = false;

  /** The answer text so far. */
  get answer(): string {
    return this.#answer;
  }

  /** Whether `done` or `error` has been emitted. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Decodes one message; returns the event it makes, if any. */
  push(message: StreamMessage): AgentStreamEvent | undefined {
    if (this.#finished) return undefined;
    const { data } = message;
    // Control lines are never encoded and are recognised under any event name,
    // as the service's own client does (encoded text can't look like them: `[` travels as %5B).
    if (data === '[DONE]') return this.#done();
    if (data.startsWith('[ERROR]')) return this.#error(data.slice('[ERROR]'.length).trim());
    switch (message.event) {
      case 'answer': {
        const text = decodeFragment(data);
        this.#answer += text;
        return { type: 'answer', text };
      }
      case 'endpoint_response':
        this.#responseFragments.push(data);
        return undefined;
      default:
        return undefined;
    }
  }

  /** The connection closed. Returns an `INCOMPLETE_STREAM` error unless the stream had finished. */
  end(): StreamErrorEvent | undefined {
    if (this.#finished) return undefined;
    this.#finished = true;
    return {
      type: 'error',
      code: INCOMPLETE_STREAM,
      message: 'The answer stream ended before it was complete.',
      usageLimit: false,
      partialAnswer: this.#answer,
    };
  }

  #done(): DoneEvent {
    this.#finished = true;
    const event: DoneEvent = { type: 'done', answer: this.#answer, response: undefined };
    if (this.#responseFragments.length === 0) return event;
    // Encoding is per character, so the joined fragments decode as one.
    const json = decodeFragment(this.#responseFragments.join(''));
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      event.responseProblem = `endpoint_response is not JSON: ${(error as Error).message}`;
      return event;
    }
    const result = readAgentQueryAnswer(parsed);
    if (result.ok) {
      event.response = result.value;
      if (!event.answer) event.answer = result.value.answer;
    } else {
      event.responseProblem = `endpoint_response is not an answer: ${describeProblems(result.problems)}`;
    }
    return event;
  }

  #error(detail: string): StreamErrorEvent {
    this.#finished = true;
    const code = CODE.test(detail) ? detail : undefined;
    return {
      type: 'error',
      code,
      message: detail || 'The service reported an error during the answer.',
      usageLimit: code === 'USAGE_LIMIT',
      partialAnswer: this.#answer,
    };
  }
}
