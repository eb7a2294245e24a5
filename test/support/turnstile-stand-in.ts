// A local stand-in for Cloudflare Turnstile's siteverify endpoint: the real one
// (challenges.cloudflare.com) cannot be reached from the tests. It answers as
// Cloudflare documents for its test secret keys: one always passes, one always
// fails, one reports the token already spent. The hostname a pass reports is the
// test's to set (Cloudflare reports the page's). Tests that run side by side (one
// server for every browser) each get an address of their own (`urlFor`), under which
// the hostname a pass reports and any outage are theirs alone: the endpoint down (a
// 503 page, as Cloudflare's edge serves one) or out of reach (the connection dropped
// unanswered), until the test lifts it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TURNSTILE_PASS = '1x0000000000000000000000000000000AA';
export const TURNSTILE_FAIL = '2x0000000000000000000000000000000AA';
export const TURNSTILE_SPENT = '3x0000000000000000000000000000000AA';
/** The dummy token Cloudflare's test site keys produce. */
export const DUMMY_TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';

/** How the endpoint fails during an outage: `down` answers 503 with an error page; `unreachable` drops the connection unanswered. */
export type TurnstileOutage = 'down' | 'unreachable';

export interface TurnstileStandIn {
  url: string;
  /** The endpoint's address for the test named `name` (a word): as `url`, but with `hostnames` and `outages` for that name. */
  urlFor(name: string): string;
  /** The hostname a pass reports at `urlFor(name)`, by name (`hostname` where a name has none). */
  hostnames: Map<string, string>;
  /** Outages under way at `urlFor(name)`, by name; deleting one lifts it. */
  outages: Map<string, TurnstileOutage>;
  /** Each verification asked for: the form fields. */
  calls: URLSearchParams[];
  /** The hostname a pass reports at `url`. */
  hostname: string;
  close(): Promise<void>;
}

export async function startTurnstileStandIn(hostname: string): Promise<TurnstileStandIn> {
  const calls: URLSearchParams[] = [];
  const standIn: TurnstileStandIn = { url: '', urlFor: () => '', hostnames: new Map(), outages: new Map(), calls, hostname, close: async () => {} };
  const server = createServer(async (req, res) => {
    const name = /^\/for\/([\w-]+)\//.exec(req.url ?? '')?.[1] ?? '';
    const outage = standIn.outages.get(name);
    if (outage === 'unreachable') return req.socket.destroy();
    if (outage === 'down') {
      res.writeHead(503, { 'Content-Type': 'text/html; charset=UTF-8', 'Retry-After': '30' });
      return res.end('<!DOCTYPE html><title>503 Service Temporarily Unavailable</title><h1>Service Temporarily Unavailable</h1>');
    }
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const form = new URLSearchParams(body);
    calls.push(form);
    const secret = form.get('secret');
    const json = (value: unknown) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method !== 'POST' || !form.get('response')) return json({ success: false, 'error-codes': ['missing-input-response'] });
    if (secret === TURNSTILE_PASS) return json({ success: true, 'error-codes': [], challenge_ts: new Date().toISOString(), hostname: standIn.hostnames.get(name) ?? standIn.hostname, action: '', cdata: '' });
    if (secret === TURNSTILE_FAIL) return json({ success: false, 'error-codes': ['invalid-input-response'] });
    if (secret === TURNSTILE_SPENT) return json({ success: false, 'error-codes': ['timeout-or-duplicate'] });
    return json({ success: false, 'error-codes': ['invalid-input-secret'] });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.url = `${origin}/turnstile/v0/siteverify`;
  standIn.urlFor = (name) => `${origin}/for/${name}/turnstile/v0/siteverify`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return standIn;
}
