// A stand-in for the service, over real HTTP on 127.0.0.1, that records every
// request it sees (so tests can assert what reached it, or that nothing did)
// and answers as each test tells it: streams, errors, gzip, failures, stalls.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { DONE_EVENT, EVENT_STREAM_HEADERS, answerEvent, endpointResponseEvent } from '../../src/protocol/index.js';
import { SAMPLE_ANSWER, sampleStreamChunks } from './scripted-service.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The raw header names and values, in order, as they arrived. */
  rawHeaders: string[];
  body: string;
  /** The caller went away before the answer was complete. */
  closedEarly: boolean;
}

export type UpstreamBehaviour = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void | Promise<void>;

export interface RecordingUpstream {
  url: string;
  requests: RecordedRequest[];
  /** Answers every next request this way (default: `answer()`). */
  behave(behaviour: UpstreamBehaviour): void;
  /** Resolves once `predicate` holds, checked every 10 ms; rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const requests: RecordedRequest[] = [];
  let behaviour: UpstreamBehaviour = answer();
  const server = createServer(async (req, res) => {
    // Taken as the request arrives, before its body is read: a request a test left behind is answered
    // as that test said, never with the behaviour the next test has just set.
    const answerWith = behaviour;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(chunks).toString('utf8'),
      closedEarly: false,
    };
    requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.closedEarly = true;
    });
    try {
      await answerWith(req, res, recorded);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave(next) {
      behaviour = next;
    },
    async waitFor(predicate, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`upstream: condition not met within ${timeoutMs} ms`);
        await sleep(10);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service's normal answer: a stream when `streaming` is true, JSON otherwise. */
export function answer({ delayMs = 1 } = {}): UpstreamBehaviour {
  return async (_req, res, recorded) => {
    const streaming = safeJson(recorded.body)?.streaming === true;
    if (!streaming) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': 'session=upstream-secret', Server: 'upstream/1.0', 'X-Upstream-Internal': 'yes' });
      res.end(JSON.stringify(SAMPLE_ANSWER));
      return;
    }
    res.writeHead(200, { ...EVENT_STREAM_HEADERS, 'Set-Cookie': 'session=upstream-secret', Server: 'upstream/1.0' });
    for (const chunk of sampleStreamChunks()) {
      if (res.destroyed) return;
      res.write(chunk);
      await sleep(delayMs);
    }
    res.end();
  };
}

/** A fixed status and JSON body (or text, when `body` is a string). */
export function reply(status: number, body: unknown, headers: Record<string, string> = {}): UpstreamBehaviour {
  return (_req, res) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
    res.end(text);
  };
}

/** The JSON answer gzipped, with `Content-Encoding` and the compressed `Content-Length`. */
export function gzipAnswer(): UpstreamBehaviour {
  return (_req, res) => {
    const compressed = gzipSync(JSON.stringify(SAMPLE_ANSWER));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': String(compressed.length) });
    res.end(compressed);
  };
}

/** A stream that sends `text` and then drops the connection. */
export function failMidStream(text = answerEvent('Half an ans')): UpstreamBehaviour {
  return async (_req, res) => {
    res.writeHead(200, EVENT_STREAM_HEADERS);
    res.write(text);
    await sleep(20);
    res.socket?.destroy();
  };
}

/** A stream that sends `text`, ends cleanly, and never says `[DONE]`. */
export function endWithoutDone(text = answerEvent('Cut short')): UpstreamBehaviour {
  return (_req, res) => {
    res.writeHead(200, EVENT_STREAM_HEADERS);
    res.end(text);
  };
}

/** A stream that sends `text` and then stays silent, connection open. */
export function stallMidStream(text = answerEvent('Thinking')): UpstreamBehaviour {
  return (_req, res) => {
    res.writeHead(200, EVENT_STREAM_HEADERS);
    res.write(text);
  };
}

/** Waits `ms` before answering at all (or until the caller leaves). */
export function slowHeaders(ms: number, then: UpstreamBehaviour = answer()): UpstreamBehaviour {
  return async (req, res, recorded) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && !res.destroyed && !recorded.closedEarly) await sleep(10);
    if (!res.destroyed) await then(req, res, recorded);
  };
}

/** A stream that never ends: one answer event every `everyMs`, until the caller leaves (at most 30 s). */
export function endlessStream(everyMs = 50): UpstreamBehaviour {
  return async (_req, res) => {
    res.writeHead(200, EVENT_STREAM_HEADERS);
    const deadline = Date.now() + 30_000;
    while (!res.destroyed && Date.now() < deadline) {
      res.write(answerEvent('more '));
      await sleep(everyMs);
    }
    res.end();
  };
}

/** Sends the first event, then holds the rest until `release()`. */
export function heldStream(): { behaviour: UpstreamBehaviour; release: () => void; finished: () => boolean } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let finished = false;
  return {
    release: () => release(),
    finished: () => finished,
    behaviour: async (_req, res) => {
      res.writeHead(200, EVENT_STREAM_HEADERS);
      res.write(answerEvent('First words'));
      await released;
      res.write(answerEvent(' and the rest.') + endpointResponseEvent(JSON.stringify(SAMPLE_ANSWER)) + DONE_EVENT);
      res.end();
      finished = true;
    },
  };
}

/** A whole answer, `[DONE]` and all, from a service that then keeps its connection open until `close()`. */
export function answerLeftOpen(): { behaviour: UpstreamBehaviour; close: () => void } {
  let close!: () => void;
  const closed = new Promise<void>((resolve) => (close = resolve));
  return {
    close: () => close(),
    behaviour: async (_req, res) => {
      res.writeHead(200, EVENT_STREAM_HEADERS);
      res.write(answerEvent('All of it.') + endpointResponseEvent(JSON.stringify(SAMPLE_ANSWER)) + DONE_EVENT);
      await closed;
      res.end();
    },
  };
}

/** A careless service that echoes the caller's Authorization header back, in `where`. */
export function echoAuthorization(where: 'error' | 'json' | 'stream' | 'header'): UpstreamBehaviour {
  return (req, res) => {
    const auth = req.headers.authorization ?? '';
    const key = auth.replace(/^Bearer /, '');
    if (where === 'error') {
      res.writeHead(400, { 'Content-Type': 'application/json', 'X-Debug-Auth': auth });
      res.end(JSON.stringify({ error: { code: 'INVALID_REQUEST', message: `bad request with ${auth}` } }));
    } else if (where === 'json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Debug-Auth': auth });
      res.end(JSON.stringify({ ...SAMPLE_ANSWER, answer: `your key is ${key}` }));
    } else if (where === 'header') {
      res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': `Bearer realm="${key}"` });
      res.end(JSON.stringify({ error: `key ${key} was revoked` }));
    } else {
      res.writeHead(200, { ...EVENT_STREAM_HEADERS, 'X-Debug-Auth': auth });
      // Split across writes, so the key straddles network chunks.
      const wire = answerEvent(`key: `) + `event: answer\ndata: ${key}\n\n` + answerEvent(key) + DONE_EVENT;
      const cut = wire.indexOf(key) + 5;
      res.write(wire.slice(0, cut));
      setTimeout(() => res.end(wire.slice(cut)), 20);
    }
  };
}

/** A redirect to `location`. */
export function redirectTo(location: string): UpstreamBehaviour {
  return (_req, res) => {
    res.writeHead(307, { Location: location });
    res.end();
  };
}

function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
