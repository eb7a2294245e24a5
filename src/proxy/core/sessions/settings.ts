// The sessions' settings, as options.ts resolves them from the operator's: a module of their own, so that options.ts
// and the sessions each import them without importing each other.
import type { RateLimit } from '../rate-limit-setting.js';

export interface SessionSettings {
  /** The current secret and, during a rotation, the previous one (its tokens and challenges stay accepted until they expire). */
  secrets: readonly string[];
  /** What the proxy serves (its service and agents), mixed into its keys: a token or challenge of another proxy that shares the secret is not valid here. */
  audience: string;
  /** How long a token is accepted. */
  tokenSeconds: number;
  /** Millions of PBKDF2-SHA-256 iterations a session costs on average (before the load factor). */
  difficulty: number;
  perSessionLimit: RateLimit | false;
  sessionsPerAddress: RateLimit | false;
}
