// What every platform entry shares: the proxy made from the platform's environment at its first request.
import { checkProxyOptions, createProxy, errorResponse, proxyOptionsFromEnv, type Env, type ProxyHandler, type ProxyOptions, type ProxyRequestContext } from '../core/index.js';

export interface PlatformSetup {
  /** The platform's environment variables; read at the first request (some platforms have them only then). */
  env: () => Env | Promise<Env>;
  /** Options that replace the environment's (a `rateLimitStore`, a `log`, ...). */
  overrides?: Partial<ProxyOptions> | undefined;
  /** Connects `KAGENT_REDIS_URL` where the platform can open TCP connections; absent: the variable is refused. */
  connectRedis?: (url: string) => Promise<ProxyOptions['rateLimitStore']>;
  /** The platform's name, for messages. */
  platform: string;
}

/**
 * A proxy configured from the platform's environment at its first request.
 * A configuration problem is logged once and every request gets a generic
 * 500, so a misconfigured deployment fails visibly without saying why to visitors.
 */
export function proxyFromPlatform(setup: PlatformSetup): (request: Request, context?: ProxyRequestContext) => Promise<Response> {
  let ready: Promise<ProxyHandler | Error> | undefined;
  const start = async (): Promise<ProxyHandler | Error> => {
    try {
      const { redisUrl, ...fromEnv } = proxyOptionsFromEnv(await setup.env());
      const options: ProxyOptions = { ...fromEnv, ...setup.overrides };
      if (redisUrl && !setup.overrides?.rateLimitStore) {
        if (!setup.connectRedis) throw new Error(`KAGENT_REDIS_URL needs TCP connections, which ${setup.platform} does not offer here: pass a rateLimitStore (e.g. RedisRateLimitStore over Upstash's HTTP client) instead`);
        // Checked before connecting, so a missing variable is what the operator hears of first.
        checkProxyOptions(options);
        options.rateLimitStore = await setup.connectRedis(redisUrl);
      }
      return createProxy(options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.error(JSON.stringify({ level: 'error', message: `kagent proxy on ${setup.platform} is not configured: ${message}` }));
      return new Error(message);
    }
  };
  return async (request, context) => {
    ready ??= start();
    const proxy = await ready;
    if (proxy instanceof Error) return errorResponse(500, 'The proxy is not configured. Its operator has been told why.');
    return proxy(request, context);
  };
}
