// Vercel Functions (Node or Edge runtime): `export const POST = handler; export const OPTIONS = handler;`.
import type { ProxyOptions } from '../core/index.js';
import { proxyFromPlatform } from './platform.js';

/**
 * A Web-standard handler for a Vercel Function. The visitor's address comes
 * from `X-Real-IP`, which Vercel's edge network sets (and overwrites) itself.
 * Mount it at a catch-all route and set `basePath` (or `KAGENT_BASE_PATH`) to that route's prefix.
 */
export function createVercelHandler(overrides?: Partial<ProxyOptions>): (request: Request) => Promise<Response> {
  const handler = proxyFromPlatform({ platform: 'Vercel', overrides, env: () => process.env });
  return (request) => handler(request, { clientAddress: request.headers.get('x-real-ip') ?? undefined, waitUntil: vercelWaitUntil() });
}

/** Where Vercel gives a request's `waitUntil` (what `@vercel/functions` reads): insights' records are written through it. */
const VERCEL_REQUEST_CONTEXT = Symbol.for('@vercel/request-context');

/** The current request's `waitUntil` on Vercel, if it gives one. */
function vercelWaitUntil(): ((work: Promise<unknown>) => void) | undefined {
  const context = (globalThis as { [VERCEL_REQUEST_CONTEXT]?: { get?(): { waitUntil?(work: Promise<unknown>): void } | undefined } })[VERCEL_REQUEST_CONTEXT]?.get?.();
  return context?.waitUntil && ((work) => context.waitUntil!(work));
}
