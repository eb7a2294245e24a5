import { errorLine } from '../../protocol/index.js';
import { ByteRedactor } from './redact.js';
import { StreamLines } from './stream-lines.js';

export interface RelayOptions {
  apiKey: string;
  /** Longest wait for the next piece. */
  idleTimeoutMs: number;
  /** Longest the whole stream is relayed, from the moment it starts. */
  maxDurationMs: number;
  /** Most bytes passed to the visitor (the closing error line aside). */
  maxBytes: number;
  /** Stops the request to the service (the visitor left, or it failed). */
  abortUpstream: (reason: string) => void;
  /** Told once how the relay ended: `'complete'`, `'visitor-left'`, or a failure. */
  onEnd: (outcome: RelayOutcome) => void;
  /**
   * Told once the service's end line (`[DONE]` or `[ERROR]`) is on its way to the visitor: the answer is over for
   * the visitor, who may ask again before the service has closed its connection (`onEnd` comes after that).
   */
  onAnswered?: () => void;
  /** Told each piece as it goes to the visitor, and how the relay ended (insights' recorder). */
  watch?: AnswerWatch | undefined;
}

/** Watches an answer without holding anything back: it sees each piece after the visitor's stream has it. */
export interface AnswerWatch {
  /** A piece of a streamed answer; `keepFrom`, the stream's byte from which its end is needed (`StreamLines`). */
  piece(bytes: Uint8Array, keepFrom: number): void;
  end(outcome: RelayOutcome): void;
  /** A whole (JSON) answer's text, as the proxy read it and the visitor gets it. */
  text(text: string): void;
}

export type RelayOutcome =
  | { kind: 'complete' }
  | { kind: 'visitor-left' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'stalled' }
  | { kind: 'ended-early' }
  | { kind: 'too-long' }
  | { kind: 'too-large' };

/** The `[ERROR]` code each way of ending early closes the visitor's stream with. */
const ERROR_CODES = {
  failed: 'UPSTREAM_ERROR',
  stalled: 'UPSTREAM_TIMEOUT',
  'ended-early': 'INCOMPLETE_STREAM',
  'too-long': 'STREAM_TOO_LONG',
  'too-large': 'STREAM_TOO_LARGE',
} as const;

const encoder = new TextEncoder();

/**
 * Passes the service's event stream to the visitor piece by piece as it arrives:
 * pull-based, so nothing is read ahead of the visitor, and nothing is held
 * back except a tail that could start the key. A stream that fails, stalls,
 * closes without `[DONE]`, runs past `maxDurationMs` or grows past `maxBytes`
 * ends with `data: [ERROR]...` so the visitor's page never hangs, and the
 * service's request is cancelled.
 */
export function relayBody(body: ReadableStream<Uint8Array>, options: RelayOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const redactor = new ByteRedactor(options.apiKey);
  const ending = new StreamLines();
  let finished = false;
  let answered = false;
  let sent = 0;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const finish = (outcome: RelayOutcome) => {
    if (finished) return;
    finished = true;
    clearTimeout(deadline);
    options.onEnd(outcome);
    options.watch?.end(outcome);
  };
  /** Ends the visitor's stream early: cancels the service's request and closes with the error line (none after `[DONE]`). */
  const stop = (controller: ReadableStreamDefaultController<Uint8Array>, outcome: Exclude<RelayOutcome, { kind: 'complete' | 'visitor-left' }>, rest = redactor.flush()) => {
    if (finished) return;
    const complete = ending.sawEnd;
    finish(complete ? { kind: 'complete' } : outcome);
    options.abortUpstream(outcome.kind);
    reader.cancel().catch(() => {});
    if (rest.length) controller.enqueue(rest);
    // A partial line would swallow the error line: end it first.
    if (!complete) controller.enqueue(encoder.encode((ending.midLine ? '\n\n' : '') + errorLine(ERROR_CODES[outcome.kind])));
    controller.close();
  };

  /** Relays the service's next piece; false when the visitor got nothing of it (all held back). */
  const relayNext = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stalled = false;
    try {
      const result = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            stalled = true;
            reject(new Error('stalled'));
          }, options.idleTimeoutMs);
        }),
      ]);
      if (finished) return true;
      if (result.done) {
        const rest = redactor.flush();
        if (rest.length) {
          ending.push(rest);
          options.watch?.piece(rest, ending.keepFrom);
        }
        if (!ending.sawEnd) {
          stop(controller, { kind: 'ended-early' }, rest);
          return true;
        }
        if (rest.length) controller.enqueue(rest);
        finish({ kind: 'complete' });
        controller.close();
        return true;
      }
      const out = redactor.push(result.value);
      if (sent + out.length > options.maxBytes) {
        stop(controller, { kind: 'too-large' }, new Uint8Array(0));
        return true;
      }
      sent += out.length;
      ending.push(out);
      if (out.length) {
        controller.enqueue(out);
        options.watch?.piece(out, ending.keepFrom);
      }
      if (ending.sawEnd && !answered) {
        answered = true;
        options.onAnswered?.();
      }
      return out.length > 0;
    } catch (error) {
      if (!finished) stop(controller, stalled ? { kind: 'stalled' } : { kind: 'failed', error });
      return true;
    } finally {
      clearTimeout(timer);
    }
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Runs whether or not the visitor is reading: a stream is bounded in time either way.
        deadline = setTimeout(() => stop(controller, { kind: 'too-long' }), options.maxDurationMs);
      },
      async pull(controller) {
        // A piece held back whole (it could start the key) gives the visitor nothing yet: read on, or their read would wait.
        while (!(await relayNext(controller)));
      },
      async cancel() {
        // A reader may stop at [DONE] without waiting for the connection to close: that answer was complete.
        finish(ending.sawEnd ? { kind: 'complete' } : { kind: 'visitor-left' });
        options.abortUpstream('visitor-left');
        await reader.cancel().catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
