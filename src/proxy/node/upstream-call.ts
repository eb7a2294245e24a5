// Node: the proxy's calls to the service on undici's connection pool (the
// HTTP/1.1 client inside Node's own fetch), through its lowest-level
// interface: no Web Request or Response, no node:http ClientRequest, no
// stream per answer unless the answer is relayed. About 25 to 37 µs of CPU
// less per request than node:http's client, a quarter to a third of what the
// proxy cost before (docs/benchmarks.md, Proxy).
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { answerDecoder } from './decoder.js';
import type { UpstreamCall, UpstreamReply } from '../core/index.js';

export interface UpstreamCallOptions {
  /** Most connections open to one service at once; requests beyond wait for one. Default: no limit. */
  maxSockets?: number;
  /** How long an unused connection stays open, in ms. Default: 4000 (under Node's server default of 5 s). */
  keepAliveMs?: number;
}

/** Answer bytes held for a reader that has not asked for them yet; past this the service's connection is paused. */
const HELD_BYTES = 64 * 1024;

/**
 * Calls the service as `UpstreamCall` says: a POST, redirects never
 * followed (a 3xx comes back as is), the answer decoded as fetch decodes it
 * (gzip, deflate, br), `onCancel` stopping it before or during the answer.
 * Timeouts are the proxy's own (`upstreamTimeoutMs`, the relay's): undici's
 * are turned off, so that no other limit cuts an answer short.
 */
export function createUpstreamCall({ maxSockets = Infinity, keepAliveMs = 4000 }: UpstreamCallOptions = {}): UpstreamCall {
  const pool = new Agent({ keepAliveTimeout: keepAliveMs, connections: Number.isFinite(maxSockets) ? maxSockets : null, headersTimeout: 0, bodyTimeout: 0 });
  return (url, init) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new TypeError(`fetch failed: ${url.protocol} is not http: or https:`));
    const headers: Record<string, string> = {};
    for (const name in init.headers) headers[name.toLowerCase()] = init.headers[name]!;
    // Like fetch: ask for compressed answers, and decode them below.
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    return new Promise<UpstreamReply>((resolve, reject) => {
      const call = new Call(resolve, reject);
      init.onCancel(() => call.stop());
      pool.dispatch({ origin: url.origin, path: url.pathname + url.search, method: 'POST', headers, body: init.body }, call);
    });
  };
}

function abortError(): Error {
  return new DOMException('This operation was aborted', 'AbortError');
}

/** One request to the service: undici's handler for it, and its answer's body as it arrives. */
class Call implements Dispatcher.DispatchHandler {
  #resolve: (reply: UpstreamReply) => void;
  #reject: (error: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  /** Set once the proxy has stopped the request (before undici has said how, if so). */
  #stopped: Error | undefined;
  #answered = false;
  /** Where the answer's bytes go: `body` itself, or a decoder feeding it. */
  #decoder: (Readable & NodeJS.WritableStream) | undefined;
  readonly body = new AnswerBody((reason) => {
    this.#controller?.abort(reason);
    this.#decoder?.destroy();
  });

  constructor(resolve: (reply: UpstreamReply) => void, reject: (error: unknown) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
  }

  stop(): void {
    this.#stopped ??= abortError();
    if (this.#controller) this.#controller.abort(this.#stopped);
    // Still waiting for a connection (one being opened, or all in use): the proxy does not wait for it to give up.
    // The request is stopped as soon as undici starts it (onRequestStart).
    else this.#reject(this.#stopped);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    this.body.source = controller;
    if (this.#stopped) controller.abort(this.#stopped);
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    // Informational answers (1xx) are not the answer.
    if (status < 200) return;
    this.#answered = true;
    // As `Headers.get`: every value of the name, joined.
    const header = (name: string): string | null => {
      const value = headers[name];
      return value === undefined ? null : typeof value === 'string' ? value : value.join(', ');
    };
    const hasBody = !(status === 204 || status === 205 || status === 304);
    if (hasBody) this.#decodeFrom(controller, header('content-encoding'));
    const body = this.body;
    this.#resolve({
      status,
      header,
      hasBody,
      readCapped: (maxBytes) => body.readCapped(maxBytes),
      stream: () => body.stream(),
    });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const decoder = this.#decoder;
    if (!decoder) this.body.push(chunk);
    // The decoder's input waits while its output is not read.
    else if (!decoder.write(chunk)) {
      controller.pause();
      decoder.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    if (this.#decoder) this.#decoder.end();
    else this.body.end();
  }

  onResponseError(_controller: unknown, error: Error): void {
    const failure = this.#stopped ?? error;
    if (!this.#answered) {
      // As fetch: an unreachable service is a TypeError; a stop rejects with the stop's error.
      this.#reject(this.#stopped ?? new TypeError('fetch failed', { cause: error }));
      return;
    }
    this.#decoder?.destroy();
    this.body.fail(failure);
  }

  /** The body decoded as fetch decodes it; a decoding error fails the body, and stops the request. */
  #decodeFrom(controller: Dispatcher.DispatchController, encoding: string | null): void {
    const decoder = answerDecoder(encoding);
    if (!decoder) return;
    this.#decoder = decoder;
    // The body pauses the decoder's output, not the connection: a small compressed chunk can expand a thousandfold.
    this.body.source = decoder;
    decoder.on('data', (chunk: Buffer) => this.body.push(chunk));
    decoder.on('end', () => this.body.end());
    decoder.on('error', (error) => {
      this.body.fail(error);
      controller.abort(error);
    });
  }
}

/** What can be paused while the body holds enough: the connection, or the decoder's output. */
interface Source {
  pause(): unknown;
  resume(): unknown;
}

/**
 * The answer's bytes between the connection and their one reader: read whole
 * (bounded) or as a stream. Bytes nobody asked for yet are held up to
 * `HELD_BYTES`, then the source is paused until they are taken.
 */
class AnswerBody {
  source: Source | undefined;
  #chunks: Buffer[] = [];
  #held = 0;
  #paused = false;
  #ended = false;
  #error: Error | undefined;
  /** The reader's callback, called on every change (bytes, end, failure). */
  #wake: (() => void) | undefined;
  #read = false;
  /** Stops the request, closing its connection. */
  #stopRequest: (reason: Error) => void;

  constructor(stopRequest: (reason: Error) => void) {
    this.#stopRequest = stopRequest;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#held += chunk.byteLength;
    if (this.#held > HELD_BYTES && !this.#paused) {
      this.#paused = true;
      this.source?.pause();
    }
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  fail(error: Error): void {
    if (this.#ended || this.#error) return;
    this.#error = error;
    this.#wake?.();
  }

  /** Every byte held, handed over; the source resumes if it was paused. */
  #take(): Buffer[] {
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#held = 0;
    if (this.#paused) {
      this.#paused = false;
      this.source?.resume();
    }
    return chunks;
  }

  /** Stops the request: its connection is closed, never reused with an answer half read. */
  #cancel(reason: Error = abortError()): void {
    this.#wake = undefined;
    if (this.#ended) return;
    this.#error ??= reason;
    this.#stopRequest(reason);
  }

  readCapped(maxBytes: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
    if (this.#read) return Promise.reject(new TypeError('the answer has already been read'));
    this.#read = true;
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      let size = 0;
      const joined = () => (parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
      const check = () => {
        for (const chunk of this.#take()) {
          if (size + chunk.byteLength > maxBytes) {
            parts.push(chunk.subarray(0, maxBytes - size));
            size = maxBytes;
            this.#cancel();
            resolve({ bytes: joined(), complete: false });
            return;
          }
          size += chunk.byteLength;
          parts.push(chunk);
        }
        if (this.#error) {
          this.#wake = undefined;
          reject(this.#error);
        } else if (this.#ended) {
          this.#wake = undefined;
          resolve({ bytes: parts.length ? joined() : new Uint8Array(0), complete: true });
        }
      };
      this.#wake = check;
      check();
    });
  }

  stream(): ReadableStream<Uint8Array> {
    if (this.#read) throw new TypeError('the answer has already been read');
    this.#read = true;
    return new ReadableStream<Uint8Array>(
      {
        // Called when the relay wants more: bytes are taken from the connection only as fast as the visitor reads them.
        pull: (controller) =>
          new Promise<void>((resolve) => {
            const deliver = () => {
              const chunks = this.#take();
              if (chunks.length) for (const chunk of chunks) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
              else if (this.#error) controller.error(this.#error);
              else if (this.#ended) controller.close();
              else return;
              this.#wake = undefined;
              resolve();
            };
            this.#wake = deliver;
            deliver();
          }),
        cancel: (reason) => this.#cancel(reason instanceof Error ? reason : undefined),
      },
      { highWaterMark: 0 },
    );
  }
}
