import { errorLine } from '../protocol/index.js';
import { ByteRedactor } from './redact.js';

export interface RelayOptions {
  apiKey: string;
  /** Longest wait for the next piece. */
  idleTimeoutMs: number;
  /** Stops the request to the service (the visitor left, or it failed). */
  abortUpstream: (reason: string) => void;
  /** Told once how the relay ended: `'complete'`, `'visitor-left'`, or a failure. */
  onEnd: (outcome: RelayOutcome) => void;
}

export type RelayOutcome =
  | { kind: 'complete' }
  | { kind: 'visitor-left' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'stalled' }
  | { kind: 'ended-early' };

const encoder = new TextEncoder();
const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

/**
 * Passes the service's event stream to the visitor piece by piece as it arrives:
 * pull-based, so nothing is read ahead of the visitor, and nothing is held
 * back except a tail that could start the key. A stream that fails, stalls
 * or closes without `[DONE]` ends with `data: [ERROR]...` so the visitor's
 * page never hangs.
 */
export function relayBody(body: ReadableStream<Uint8Array>, options: RelayOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const redactor = new ByteRedactor(options.apiKey);
  const ending = new StreamEndWatcher();
  let finished = false;
  const finish = (outcome: RelayOutcome) => {
    if (finished) return;
    finished = true;
    options.onEnd(outcome);
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
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
          if (finished) return;
          if (result.done) {
            const rest = redactor.flush();
            if (rest.length) controller.enqueue(rest);
            if (!ending.sawEnd) {
              controller.enqueue(encoder.encode(errorLine('INCOMPLETE_STREAM')));
              finish({ kind: 'ended-early' });
            } else finish({ kind: 'complete' });
            controller.close();
            return;
          }
          const out = redactor.push(result.value);
          ending.push(out);
          if (out.length) controller.enqueue(out);
        } catch (error) {
          if (finished) return;
          options.abortUpstream(stalled ? 'stalled' : 'failed');
          reader.cancel().catch(() => {});
          finish(stalled ? { kind: 'stalled' } : { kind: 'failed', error });
          const rest = redactor.flush();
          if (rest.length) controller.enqueue(rest);
          // A partial line would swallow the error line: end it first.
          controller.enqueue(encoder.encode((ending.midLine ? '\n\n' : '') + errorLine(stalled ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_ERROR')));
          controller.close();
        } finally {
          clearTimeout(timer);
        }
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

/** Watches the bytes going by for the service's own end lines (`data: [DONE]`, `data: [ERROR]...`). */
class StreamEndWatcher {
  sawEnd = false;
  #line = '';
  #inLine = false;

  /** Whether the last bytes seen left a line open. */
  get midLine(): boolean {
    return this.#inLine;
  }

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (byte === NEWLINE || byte === CARRIAGE_RETURN) {
        if (this.#line === 'data: [DONE]' || this.#line.startsWith('data: [ERROR]') || this.#line === 'data:[DONE]' || this.#line.startsWith('data:[ERROR]')) this.sawEnd = true;
        this.#line = '';
        this.#inLine = false;
      } else {
        this.#inLine = true;
        // Only a line's start matters; the markers are ASCII.
        if (this.#line.length < 14) this.#line += String.fromCharCode(byte);
      }
    }
  }
}
