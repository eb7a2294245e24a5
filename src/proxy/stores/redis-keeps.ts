// Whether a Redis keeps the proxy's counts: one that evicts keys, keeps nothing on
// disk, or has lost them (restarted empty, flushed) lets spent budgets, used
// challenge solutions and mint limits start over. Told in the log with the fix.
import type { StoreLog } from './store.js';

/** A key with no expiry, set once: gone means Redis lost what it held. */
const MARKER_KEY = 'store-marker';
const MARKER_SCRIPT = `
local kept = redis.call('GET', KEYS[1])
if not kept then redis.call('SET', KEYS[1], ARGV[1]) end
return kept
`;

/** The redis.conf lines that keep the counts, as a warning names them. */
export const REDIS_KEEPS_FIX = 'maxmemory-policy noeviction, appendonly yes, appendfsync everysec';

export interface RedisKeepsCheck {
  /** Where what is found is told. */
  report(log: StoreLog): void;
  /** Checks the settings (at start and reconnect) and the marker; never rejects. */
  check(when: 'start' | 'reconnect' | 'again'): Promise<void>;
}

interface Access {
  /** Runs a script on one key of the store's. */
  run(script: string, key: string, args: string[]): Promise<unknown>;
  configGet: ((parameter: string) => Promise<string | undefined>) | undefined;
}

export function checkRedisKeeps({ run, configGet }: Access): RedisKeepsCheck {
  let log: StoreLog = () => {};
  /** The marker this store saw or set: another one, or none, later means Redis lost it. */
  let marker: string | undefined;

  async function checkSettings(when: 'start' | 'reconnect'): Promise<void> {
    if (!configGet) {
      if (when === 'start') log('info', `could not check that Redis never evicts keys and keeps them on disk: this Redis client gives the store no CONFIG GET. Make sure of both in your Redis provider's settings (${REDIS_KEEPS_FIX}); a loss of the store's marker key is still told`);
      return;
    }
    let settings: (string | undefined)[];
    try {
      settings = await Promise.all(['maxmemory-policy', 'save', 'appendonly'].map(configGet));
    } catch (error) {
      log('info', `could not check that Redis never evicts keys and keeps them on disk: CONFIG GET was refused (${(error as Error).message}), as managed Redis often does. Make sure of both in your Redis provider's settings (${REDIS_KEEPS_FIX}); a loss of the store's marker key is still told`);
      return;
    }
    const [policy, save, appendonly] = settings;
    if (policy !== undefined && policy !== 'noeviction') {
      log('warn', `Redis evicts keys when its memory is full (maxmemory-policy ${policy}): it can drop a daily budget, a used challenge solution or a session's count, which then start over. Fix: "maxmemory-policy noeviction" in redis.conf, or CONFIG SET maxmemory-policy noeviction then CONFIG REWRITE`, { maxmemoryPolicy: policy });
    }
    if (save === '' && appendonly === 'no') {
      log('warn', `Redis keeps nothing on disk (save "", appendonly no): a restart empties it, so daily budgets, session counts and mint limits start over and used challenge solutions are accepted again. Fix: "appendonly yes" and "appendfsync everysec" in redis.conf, or CONFIG SET appendonly yes then CONFIG REWRITE`, { save, appendonly });
    }
  }

  async function checkMarker(when: 'start' | 'reconnect' | 'again'): Promise<void> {
    const mine = `${new Date().toISOString()} ${crypto.randomUUID().slice(0, 8)}`;
    let kept: unknown;
    try {
      kept = await run(MARKER_SCRIPT, MARKER_KEY, [mine]);
    } catch (error) {
      log('warn', `could not check that Redis still holds the proxy's counts: ${(error as Error).message}`);
      return;
    }
    const found = typeof kept === 'string' ? kept : undefined;
    const before = marker;
    marker = found ?? mine;
    if (before !== undefined && found !== before) {
      log('warn', `Redis lost the proxy's counts: the marker key set ${since(before)} is gone (Redis restarted without persistence, was flushed, or evicted keys). Daily budgets, session counts and mint limits started over, and used challenge solutions are accepted again until they expire. Fix: "appendonly yes" and "maxmemory-policy noeviction" in redis.conf`);
    } else if (when !== 'again') {
      log('info', found === undefined ? "Redis held no marker key of the proxy's: its first start on this Redis, or Redis lost its data before (marker set now)" : `Redis holds the proxy's counts, kept since ${since(found)}`);
    }
  }

  return {
    report(to) {
      log = to;
    },
    async check(when) {
      if (when !== 'again') await checkSettings(when);
      await checkMarker(when);
    },
  };
}

/** The time a marker was set, as its value begins. */
function since(marker: string): string {
  return marker.split(' ')[0]!;
}
