import { Redis } from '@upstash/redis/cloudflare';
import { RedisRateLimitStore } from 'kagent-chat/proxy';
import { createWorker, type WorkerContext } from 'kagent-chat/proxy/cloudflare';

interface Env {
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  [name: string]: unknown;
}

// A module Worker gets its `env` with each request, never at start: the proxy
// and its shared store are built on the first request and kept for the isolate's life.
let worker: ReturnType<typeof createWorker> | undefined;

export default {
  fetch(request: Request, env: Env, context: WorkerContext): Promise<Response> {
    if (!worker) {
      const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
      const rateLimitStore = new RedisRateLimitStore({ eval: (script, keys, args) => redis.eval(script, keys, args) });
      worker = createWorker({ rateLimitStore });
    }
    // The context's waitUntil lets insights write a question's record after its answer has gone.
    return worker.fetch(request, env, context);
  },
};
