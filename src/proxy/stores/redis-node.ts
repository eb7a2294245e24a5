// Node (and Deno, Bun) only: opens a TCP connection to Redis with node-redis.
// `@redis/client` is an optional peer of kagent-chat: it is loaded here, only
// when a Redis store is asked for, so a site without one never installs it.
import { RedisRateLimitStore } from './redis.js';

/** Where connection problems are told (the proxy's log). */
type RedisLog = (level: 'error', message: string, fields: { error: string }) => void;

/**
 * Connects to Redis at `url` (`redis://host:port/db`, `rediss://` for TLS)
 * and returns a store on it. Rejects when Redis cannot be reached.
 */
export async function connectRedisRateLimitStore(url: string, { prefix, log }: { prefix?: string; log?: RedisLog } = {}): Promise<RedisRateLimitStore> {
  const { createClient } = await loadRedisClient();
  let connected = false;
  const client = createClient({
    url,
    // Fail a count at once while disconnected rather than queue it behind a dead connection.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 3000,
      // At start-up, give up soon so the operator hears of it; once running, keep trying.
      reconnectStrategy: (retries, cause) => (connected ? Math.min(100 * 2 ** retries, 2000) : retries >= 2 ? cause : 200),
    },
  });
  let lastError = '';
  client.on('error', (error: Error) => {
    // node-redis repeats the same error on every reconnect attempt: say it once.
    if (error.message === lastError) return;
    lastError = error.message;
    log?.('error', 'Redis connection problem', { error: error.message });
  });
  client.on('ready', () => {
    lastError = '';
  });
  try {
    await client.connect();
    connected = true;
  } catch (error) {
    client.destroy();
    throw new Error(`Cannot reach Redis at ${safeAddress(url)}: ${(error as Error).message}`);
  }
  return new RedisRateLimitStore({
    eval: (script, keys, args) => client.eval(script, { keys, arguments: args }),
    ...(prefix === undefined ? {} : { prefix }),
    configGet: async (name) => (await client.configGet(name))[name],
    // 'ready' comes again after each reconnect (the first came before the store was made).
    onReconnect: (listener) => client.on('ready', listener),
    close: async () => {
      if (client.isOpen) await client.close();
    },
  });
}

/** The missing optional peer, told as the operator can act on it. */
export class RedisClientMissingError extends Error {
  constructor() {
    super('A Redis store needs the package @redis/client, which is not installed. Install it beside kagent-chat: npm install @redis/client');
    this.name = 'RedisClientMissingError';
  }
}

async function loadRedisClient(): Promise<typeof import('@redis/client')> {
  try {
    return await import('@redis/client');
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new RedisClientMissingError();
    throw error;
  }
}

/** The address without its password, for messages. */
export function safeAddress(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured address';
  }
}
