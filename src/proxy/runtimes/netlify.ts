// Netlify Edge Functions: `export default createNetlifyHandler(); export const config = { path: '/api/kagent/*' };`.
import type { ProxyOptions } from '../core/index.js';
import { proxyFromPlatform } from './platform.js';

/** What Netlify passes beside the request. */
interface NetlifyContext {
  ip?: string;
  /** Work to finish after the response is sent (insights' records). */
  waitUntil?(work: Promise<unknown>): void;
}

declare const Netlify: { env: { toObject(): Record<string, string> } } | undefined;

/**
 * A Netlify Edge Function serving the proxy. The visitor's address is the
 * one Netlify gives in `context.ip`. Set `basePath` (or `KAGENT_BASE_PATH`)
 * to the function's path prefix.
 */
export function createNetlifyHandler(overrides?: Partial<ProxyOptions>): (request: Request, context?: NetlifyContext) => Promise<Response> {
  const handler = proxyFromPlatform({
    platform: 'Netlify',
    overrides,
    env: () => (typeof Netlify !== 'undefined' ? Netlify.env.toObject() : {}),
  });
  return (request, context) => handler(request, { clientAddress: context?.ip, waitUntil: context?.waitUntil && ((work) => context.waitUntil!(work)) });
}
