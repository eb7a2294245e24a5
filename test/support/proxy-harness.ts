// Starts a recording upstream and a proxy in front of it (over real HTTP, via
// the Node entry), and checks every response and log line for the API key.
import assert from 'node:assert/strict';
import type { ProxyLogEntry, ProxyOptions } from '../../src/proxy/index.js';
import { serveProxy, type ServeProxyOptions } from '../../src/proxy/node/index.js';
import { startRecordingUpstream, type RecordingUpstream } from './proxy-upstream.js';

/** A key with characters that URI-encoding changes, so both of its forms can be looked for. */
export const TEST_KEY = 'sk_live+Zq8v/3LkP0aW9xYr2Tn5';
export const KEY_FORMS = [TEST_KEY, encodeURIComponent(TEST_KEY), TEST_KEY.slice(0, 16)];
export const SITE = 'https://www.example.com';
export const AGENT = 'agent_1';

export interface ProxyHarness {
  upstream: RecordingUpstream;
  /** The proxy's address, without a trailing slash. */
  url: string;
  logs: ProxyLogEntry[];
  /** POSTs JSON (with the allowed Origin unless overridden), reads the whole answer, checks it for the key. */
  send(path: string, init?: RequestInit & { json?: unknown }): Promise<{ response: Response; text: string }>;
  close(): Promise<void>;
}

/** Fails when any form of the key is in `text`. */
export function assertNoKey(text: string, where: string): void {
  for (const form of KEY_FORMS) assert.ok(!text.includes(form), `the API key leaked in ${where}: ${text.slice(0, 500)}`);
}

/** Checks a response's status line and headers for the key. */
export function assertNoKeyInHead(response: Response): void {
  assertNoKey(`${response.status} ${response.statusText}`, 'the status line');
  for (const [name, value] of response.headers) assertNoKey(`${name}: ${value}`, 'a response header');
}

/** `serveOptions`: the Node entry's connection limits, for the tests of those. */
export async function startProxyHarness(options: Partial<ProxyOptions> = {}, serveOptions: ServeProxyOptions = {}): Promise<ProxyHarness> {
  const upstream = await startRecordingUpstream();
  const logs: ProxyLogEntry[] = [];
  // As kagent-proxy serves it: made from options, so served from the core and calling the service
  // through undici without Web objects (a test may give a fetch instead).
  const proxy: ProxyOptions = {
    apiKey: TEST_KEY,
    upstreamUrl: upstream.url,
    agentIds: [AGENT, 'agent_2'],
    allowedOrigins: [SITE],
    log: (entry) => logs.push(entry),
    ...options,
  };
  const running = await serveProxy(proxy, { ...serveOptions, port: 0, log: (entry) => logs.push(entry) });
  const url = running.url.replace(/\/$/, '');
  return {
    upstream,
    url,
    logs,
    async send(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (!headers.has('origin')) headers.set('origin', SITE);
      if (json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      const response = await fetch(url + path, {
        method: 'POST',
        ...rest,
        headers,
        ...(json !== undefined ? { body: typeof json === 'string' ? json : JSON.stringify(json) } : {}),
      });
      assertNoKeyInHead(response);
      const text = await response.text();
      assertNoKey(text, `the body of ${init.method ?? 'POST'} ${path}`);
      return { response, text };
    },
    async close() {
      await running.close();
      await upstream.close();
      for (const entry of logs) assertNoKey(JSON.stringify(entry), 'a log line');
    },
  };
}

/**
 * Sends a request exactly as written (path not normalised, any Host), which
 * fetch would not do. Checks the answer for the key like `send`.
 */
export async function rawRequest(baseUrl: string, { method = 'POST', path, headers = {}, body, chunked = false }: { method?: string; path: string; headers?: Record<string, string>; body?: string; chunked?: boolean }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const { request } = await import('node:http');
  const target = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, method, path, headers: { origin: SITE, 'content-type': 'application/json', ...(body === undefined ? {} : chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) }), ...headers }, timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        assertNoKey(`${res.statusCode} ${res.statusMessage} ${JSON.stringify(res.headers)} ${text}`, `the answer to ${method} ${path}`);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('raw request timed out')));
    req.end(body);
  });
}
