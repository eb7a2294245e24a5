// A local stand-in for Cloudflare Turnstile's siteverify endpoint: the real one
// (challenges.cloudflare.com) cannot be reached from the tests. It answers as
// Cloudflare documents for its test secret keys: one always passes, one always
// fails, one reports the token already spent. The hostname a pass reports is the
// test's to set (Cloudflare reports the page's).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TURNSTILE_PASS = '1x0000000000000000000000000000000AA';
export const TURNSTILE_FAIL = '2x0000000000000000000000000000000AA';
export const TURNSTILE_SPENT = '3x0000000000000000000000000000000AA';
/** The dummy token Cloudflare's test site keys produce. */
export const DUMMY_TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';

export interface TurnstileStandIn {
  url: string;
  /** Each verification asked for: the form fields. */
  calls: URLSearchParams[];
  /** The hostname a pass reports. */
  hostname: string;
  close(): Promise<void>;
}

export async function startTurnstileStandIn(hostname: string): Promise<TurnstileStandIn> {
  const calls: URLSearchParams[] = [];
  const standIn: TurnstileStandIn = { url: '', calls, hostname, close: async () => {} };
  const server = createServer(async (req, res) => {
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
    if (secret === TURNSTILE_PASS) return json({ success: true, 'error-codes': [], challenge_ts: new Date().toISOString(), hostname: standIn.hostname, action: '', cdata: '' });
    if (secret === TURNSTILE_FAIL) return json({ success: false, 'error-codes': ['invalid-input-response'] });
    if (secret === TURNSTILE_SPENT) return json({ success: false, 'error-codes': ['timeout-or-duplicate'] });
    return json({ success: false, 'error-codes': ['invalid-input-secret'] });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnstile/v0/siteverify`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return standIn;
}
