// Node (and Deno, Bun) only: opens a TCP connection to Redis with node-redis.
import { createClient } from '@redis/client';
import type { Log } from './log.js';
import { RedisRateLimitStore } from './redis-store.js';

/**
 * Connects to Redis at `url` (`redis://host:port/db`, `rediss://` for TLS)
 * and returns a store on it. Rejects when Redis cannot be reached.
 */
export async function connectRedisRateLimitStore(url: string, { prefix, log }: { prefix?: string; log?: Log } = {}): Promise<RedisRateLimitStore> {
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
    close: async () => {
      if (client.isOpen) await client.close();
    },
  });
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
