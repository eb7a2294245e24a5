import type { RateLimit, ResolvedOptions } from './options.js';

export type LimitCheck =
  | { kind: 'limited'; limit: 'address' | 'visitor' | 'daily-budget'; message: string; retryAfterSeconds: number }
  | { kind: 'unavailable'; error: unknown };

const FORGETTABLE = { whenFull: 'forget' } as const;
/** The day's budget goes on being counted when the store is full: a new day must not refuse every question. */
const UNDER_WAY = { whenFull: 'reserve' } as const;

type Options = Pick<ResolvedOptions, 'store' | 'perAddressLimit' | 'perVisitorLimit' | 'dailyBudget'>;

type Counted = { address?: string; visitorId?: string | undefined; budget?: boolean };

/**
 * Counts the request against the limits that apply to what is given, in
 * order, and resolves with the first one exceeded (`undefined`: go ahead).
 * The daily budget is counted last, so requests refused for other reasons
 * don't use it. When no limit applies, `undefined` at once rather than a
 * promise: awaiting nothing would still cost every request a turn.
 */
export function checkRateLimits(options: Options, on: Counted, now = Date.now()): Promise<LimitCheck | undefined> | undefined {
  const applies = (on.address !== undefined && options.perAddressLimit) || (on.visitorId !== undefined && options.perVisitorLimit) || (on.budget && options.dailyBudget);
  return applies ? countLimits(options, on, now) : undefined;
}

async function countLimits(options: Options, on: Counted, now: number): Promise<LimitCheck | undefined> {
  try {
    if (on.address !== undefined && options.perAddressLimit) {
      const hit = await countWindow(options, `address:${on.address}`, options.perAddressLimit);
      if (hit) return { kind: 'limited', limit: 'address', message: `Too many questions from your network. Please wait ${seconds(hit)} and try again.`, retryAfterSeconds: hit };
    }
    if (on.visitorId !== undefined && options.perVisitorLimit) {
      const hit = await countWindow(options, `visitor:${on.visitorId}`, options.perVisitorLimit);
      if (hit) return { kind: 'limited', limit: 'visitor', message: `Too many questions. Please wait ${seconds(hit)} and try again.`, retryAfterSeconds: hit };
    }
    if (on.budget && options.dailyBudget) {
      const day = new Date(now).toISOString().slice(0, 10);
      const midnight = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
      const { count, resetInMs } = await options.store.hit(`budget:${day}`, midnight - now, UNDER_WAY);
      if (count > options.dailyBudget) {
        const wait = Math.max(1, Math.ceil(resetInMs / 1000));
        return { kind: 'limited', limit: 'daily-budget', message: "Today's questions have all been used. Please come back tomorrow.", retryAfterSeconds: wait };
      }
    }
    return undefined;
  } catch (error) {
    return { kind: 'unavailable', error };
  }
}

/**
 * Seconds to wait when the window is over its limit, else 0. Forgettable: a full memory store drops
 * these first, since forgetting one lets its address or visitorId ask again, while refusing would let an
 * attacker with many addresses shut every visitor out; the daily budget still caps what it costs.
 */
async function countWindow(options: Options, key: string, limit: RateLimit): Promise<number> {
  const { count, resetInMs } = await options.store.hit(key, limit.windowSeconds * 1000, FORGETTABLE);
  return count > limit.max ? Math.max(1, Math.ceil(resetInMs / 1000)) : 0;
}

function seconds(n: number): string {
  return n === 1 ? '1 second' : `${n} seconds`;
}
