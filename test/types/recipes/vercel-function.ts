import { Redis } from '@upstash/redis';
import { RedisRateLimitStore } from 'kagent-chat/proxy';
import { createVercelHandler } from 'kagent-chat/proxy/vercel';

// A Vercel Function has its variables in process.env from the start: the shared
// store is built once, with the module, and serves every request of the instance.
const redis = Redis.fromEnv();
const rateLimitStore = new RedisRateLimitStore({ eval: (script, keys, args) => redis.eval(script, keys, args) });
const handler = createVercelHandler({ basePath: '/api/kagent', rateLimitStore });

export const POST = handler;
export const OPTIONS = handler;
