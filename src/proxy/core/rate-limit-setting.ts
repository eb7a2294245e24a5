// A module of its own, so that options.ts and the sessions' settings use it without importing each other.
/** At most `max` requests in each window of `windowSeconds`. */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}
