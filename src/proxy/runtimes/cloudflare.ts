// Cloudflare Workers: `export default createWorker()`; variables and secrets come from the Worker's env.
import type { ProxyOptions } from '../core/index.js';
import { proxyFromPlatform } from './platform.js';

/** A Worker's `env`: variables and secrets are strings; other bindings are ignored. */
type WorkerEnv = Record<string, unknown>;

/** What a Worker is given beside its request: work handed to `waitUntil` runs on after the response is sent. */
export interface WorkerContext {
  waitUntil(work: Promise<unknown>): void;
}

/**
 * A Worker module that serves the proxy. The visitor's address comes from
 * `CF-Connecting-IP`, which Cloudflare sets itself on every request. Insights' records are written through the
 * context's `waitUntil`: Workers stop whatever else is still running once the response is sent.
 */
export function createWorker(overrides?: Partial<ProxyOptions>): { fetch(request: Request, env: WorkerEnv, context?: WorkerContext): Promise<Response> } {
  let env: WorkerEnv = {};
  const handler = proxyFromPlatform({
    platform: 'Cloudflare Workers',
    overrides,
    env: () => Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string')),
  });
  return {
    fetch(request, workerEnv, context) {
      env = workerEnv ?? {};
      return handler(request, { clientAddress: request.headers.get('cf-connecting-ip') ?? undefined, waitUntil: context && ((work) => context.waitUntil(work)) });
    },
  };
}

export default createWorker();
