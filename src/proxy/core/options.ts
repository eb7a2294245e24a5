import { AGENT_QUERY_FIELDS, DatastoreQueryBody, checkAgentQuery, checkDatastoreQuery, describeProblems } from '../../protocol/index.js';
import { createLogger, type ProxyLogger, type Log } from './log.js';
import { DEFAULT_MEMORY_STORE_MAX_KEYS, MemoryRateLimitStore } from '../stores/memory.js';
import type { RateLimitStore } from '../stores/store.js';
import type { RateLimit } from './rate-limit-setting.js';
import { MAKE_A_SECRET, MIN_SECRET_BITS, secretBits, type SessionSettings } from './sessions/index.js';

export type { RateLimit };

/** What the operator sets. Only `apiKey`, `upstreamUrl` and `agentIds` are required. */
export interface ProxyOptions {
  /** The service's API key. Sent upstream only, never to a visitor or a log. */
  apiKey: string;
  /** The service's base address, e.g. `https://api.example.com` (a path prefix is kept). */
  upstreamUrl: string;
  /** Agents a visitor may query. */
  agentIds: readonly string[];
  /** Datastores a visitor may query directly. Off (empty) unless set. */
  datastoreIds?: readonly string[];
  /** Web origins (scheme, host, port) whose pages may call the proxy, or `'*'` for any. Default: none. */
  allowedOrigins?: readonly string[] | '*';
  /** Let requests without an `Origin` header through (server-side callers). Default: false. */
  allowRequestsWithoutOrigin?: boolean;
  /** Where the proxy is mounted, e.g. `/api/kagent`; stripped before the routes are matched. Default: none. */
  basePath?: string;
  /** Query body fields a visitor may also set (`temperature`, `filters`, ...), checked like the service checks them. */
  allowFields?: readonly string[];
  /** Values that always replace the visitor's (`modelName`, `systemPrompt`, ...). */
  pin?: Readonly<Record<string, unknown>>;
  /** Largest request body read, in bytes. Default: 16 KiB. */
  maxBodyBytes?: number;
  /** Longest `query`, in characters. Default: 4,000. */
  maxQueryLength?: number;
  /** Longest `conversationId` and `visitorId`. Default: 128. */
  maxIdLength?: number;
  /** Largest `topK` of a datastore query. Default: 20. */
  maxTopK?: number;
  /** How long to wait for the service's answer to start, and for each next piece of a stream. Default: 30 s. */
  upstreamTimeoutMs?: number;
  /** Longest a streamed answer is relayed, from its first byte; then it ends with `[ERROR]STREAM_TOO_LONG`. Default: 5 minutes. */
  maxStreamMs?: number;
  /** Most bytes of a streamed answer relayed; then it ends with `[ERROR]STREAM_TOO_LARGE`. Default: 8 MiB. */
  maxStreamBytes?: number;
  /** Requests per client address. Default: 20 per minute. `false`: off. */
  perAddressLimit?: RateLimit | false;
  /** Requests per `visitorId`. Default: 10 per minute. `false`: off. */
  perVisitorLimit?: RateLimit | false;
  /** Requests forwarded per UTC day, for all visitors together. Default: off. */
  dailyBudget?: number | false;
  /** Where counts are kept. Default: in this process's memory. */
  rateLimitStore?: RateLimitStore;
  /** Most counts the default memory store holds (up to about 340 bytes each); when full it refuses new sessions rather than forget a count. Default: 100,000. */
  memoryStoreMaxKeys?: number;
  /** How many proxies in front of this one append to `X-Forwarded-For`. Default: 0 (the header is ignored). */
  trustedProxyHops?: number;
  /** Where log lines go. Default: one JSON line per entry on the console. `false`: nowhere. */
  log?: ProxyLogger | false;
  /** The fetch used to call the service (and Turnstile's check). Default: the global one. */
  fetch?: typeof fetch;
  /**
   * Turns visitor sessions on: an agent or datastore query then needs a token
   * that its page earned by solving a proof-of-work challenge (docs/proxy.md,
   * Visitor sessions). At least 32 characters, random. Default: off.
   */
  sessionSecret?: string;
  /** The secret before the current one, while rotating: tokens and challenges it signed stay accepted until they expire. */
  previousSessionSecret?: string;
  /** How long a session's token is accepted, in minutes. Default: 30. */
  sessionMinutes?: number;
  /** Questions per session. Default: 5 per 5 minutes. `false`: off. */
  perSessionLimit?: RateLimit | false;
  /** Sessions started per client address. Default: 6 per hour. `false`: off. */
  sessionsPerAddress?: RateLimit | false;
  /** A session's average cost to earn, in millions of PBKDF2-SHA-256 iterations (6 is about 1.2 s of one core natively, less in Chromium's WebCrypto). Rises up to 8-fold under load. Default: 6. */
  sessionDifficulty?: number;
  /** With sessions on, also require a Cloudflare Turnstile token to start one, verified with this secret key. Needs `turnstileSiteKey`. Default: off. */
  turnstileSecret?: string;
  /** The Turnstile widget's public site key, which the challenge route gives the page so it can show the check. Required with `turnstileSecret`. */
  turnstileSiteKey?: string;
  /** Where Turnstile tokens are verified. Default: Cloudflare's siteverify address. For a stand-in in tests. */
  turnstileVerifyUrl?: string;
}

/** Raised at start-up when the options cannot work; the message names what is wrong. */
export class ProxyConfigError extends Error {
  override name = 'ProxyConfigError';
}

export type RouteKind = 'agent' | 'datastore';

export interface ResolvedOptions {
  apiKey: string;
  upstreamUrl: URL;
  agentIds: ReadonlySet<string>;
  datastoreIds: ReadonlySet<string>;
  allowedOrigins: ReadonlySet<string> | '*';
  allowRequestsWithoutOrigin: boolean;
  basePath: string[];
  /** Visitor-settable extra fields, per route kind. */
  allowFields: Record<RouteKind, readonly string[]>;
  /** Pinned values, per route kind. */
  pin: Record<RouteKind, Readonly<Record<string, unknown>>>;
  maxBodyBytes: number;
  maxQueryLength: number;
  maxIdLength: number;
  maxTopK: number;
  upstreamTimeoutMs: number;
  maxStreamMs: number;
  maxStreamBytes: number;
  perAddressLimit: RateLimit | false;
  perVisitorLimit: RateLimit | false;
  dailyBudget: number | false;
  store: RateLimitStore;
  memoryStoreMaxKeys: number;
  trustedProxyHops: number;
  log: Log;
  fetch: typeof fetch;
  /** Visitor sessions, when a secret is set. */
  sessions: SessionSettings | undefined;
  /** The Turnstile check, when sessions are on and its secret is set: `siteKey` for the page, the rest for the proxy. */
  turnstile: { secret: string; siteKey: string; verifyUrl: string } | undefined;
}

export const DEFAULTS = {
  maxBodyBytes: 16 * 1024,
  maxQueryLength: 4000,
  maxIdLength: 128,
  maxTopK: 20,
  upstreamTimeoutMs: 30_000,
  // A long agent answer with tool calls takes a minute or two; five is generous and still bounded.
  maxStreamMs: 5 * 60_000,
  // An answer with its sources is tens of KiB on the wire; 8 MiB is far beyond any real one.
  maxStreamBytes: 8 * 1024 * 1024,
  perAddressLimit: { max: 20, windowSeconds: 60 },
  perVisitorLimit: { max: 10, windowSeconds: 60 },
  sessionMinutes: 30,
  perSessionLimit: { max: 5, windowSeconds: 300 },
  sessionsPerAddress: { max: 6, windowSeconds: 3600 },
  sessionDifficulty: 6,
} as const;

/** Cloudflare's verification endpoint for Turnstile tokens. */
export const TURNSTILE_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

// Fields every query route already handles itself; the operator cannot re-allow or pin `query`.
const BASE_FIELDS: Record<RouteKind, readonly string[]> = {
  agent: ['query', 'conversationId', 'visitorId', 'streaming'],
  datastore: ['query', 'topK'],
};
const DATASTORE_QUERY_FIELDS = Object.keys(DatastoreQueryBody.pipe[1].entries);
const ROUTE_FIELDS: Record<RouteKind, readonly string[]> = {
  agent: AGENT_QUERY_FIELDS,
  datastore: DATASTORE_QUERY_FIELDS,
};

/**
 * Checks the options without making anything from them (no store, no
 * connection): for an entry that must know they work before it connects to
 * anything. Throws `ProxyConfigError` naming every missing or wrong option.
 */
export function checkProxyOptions(options: ProxyOptions): void {
  checkOptions(options);
}

/** Checks the options and fills in defaults, with the store, log and fetch they name. Throws as `checkProxyOptions`. */
export function resolveOptions(options: ProxyOptions): ResolvedOptions {
  const { fetchFn, ...checked } = checkOptions(options);
  const { memoryStoreMaxKeys } = checked;
  if (options.rateLimitStore && options.memoryStoreMaxKeys !== undefined) throw new ProxyConfigError('kagent proxy cannot start: memoryStoreMaxKeys (KAGENT_MEMORY_STORE_MAX_KEYS) sets the memory store, but another rateLimitStore (or KAGENT_REDIS_URL) is given');
  const store = options.rateLimitStore ?? new MemoryRateLimitStore({ maxKeys: memoryStoreMaxKeys });
  if (checked.sessions && typeof store.release !== 'function') throw new ProxyConfigError('kagent proxy cannot start: visitor sessions need a rateLimitStore with release() (MemoryRateLimitStore and RedisRateLimitStore have it)');
  const secrets = [options.apiKey, options.sessionSecret ?? '', options.previousSessionSecret ?? '', options.turnstileSecret ?? ''];
  return {
    ...checked,
    store,
    log: createLogger(options.log === undefined ? undefined : options.log, secrets),
    // Called through a wrapper: some runtimes refuse a fetch called with another `this`.
    fetch: (input, init) => fetchFn(input, init),
  };
}

/** The options checked, with defaults, before anything is made from them. */
function checkOptions(options: ProxyOptions): Omit<ResolvedOptions, 'store' | 'log' | 'fetch'> & { fetchFn: typeof fetch } {
  const problems: string[] = [];
  const o = (options ?? {}) as Partial<ProxyOptions>;

  if (typeof o.apiKey !== 'string' || o.apiKey.trim() === '') problems.push('apiKey (KAGENT_API_KEY) is missing');
  // Checked here so a bad key can never end up quoted in a header error later. The key itself is never echoed.
  else if (!/^[\x21-\x7e]+$/.test(o.apiKey)) problems.push('apiKey (KAGENT_API_KEY) must be printable ASCII without spaces');

  let upstreamUrl: URL | undefined;
  if (typeof o.upstreamUrl !== 'string' || o.upstreamUrl.trim() === '') problems.push('upstreamUrl (KAGENT_UPSTREAM_URL) is missing');
  else {
    try {
      upstreamUrl = new URL(o.upstreamUrl);
      if (upstreamUrl.protocol !== 'https:' && upstreamUrl.protocol !== 'http:') problems.push('upstreamUrl (KAGENT_UPSTREAM_URL) must be an http(s) address');
      if (upstreamUrl.username || upstreamUrl.password) problems.push('upstreamUrl (KAGENT_UPSTREAM_URL) must not carry a user name or password');
      if (upstreamUrl.search || upstreamUrl.hash) problems.push('upstreamUrl (KAGENT_UPSTREAM_URL) must not carry a query or fragment');
    } catch {
      problems.push(`upstreamUrl (KAGENT_UPSTREAM_URL) is not an address: ${JSON.stringify(o.upstreamUrl)}`);
    }
  }

  const agentIds = idList(o.agentIds, 'agentIds (KAGENT_AGENT_IDS)', problems);
  if (agentIds.size === 0 && !problems.some((p) => p.startsWith('agentIds'))) problems.push('agentIds (KAGENT_AGENT_IDS) needs at least one agent id');
  const datastoreIds = idList(o.datastoreIds ?? [], 'datastoreIds (KAGENT_DATASTORE_IDS)', problems);

  const allowedOrigins = originList(o.allowedOrigins ?? [], problems);

  const basePath = (o.basePath ?? '').split('/').filter(Boolean).map((s) => s.toLowerCase());

  const allowFields: Record<RouteKind, string[]> = { agent: [], datastore: [] };
  for (const field of o.allowFields ?? []) {
    if (field === 'query') continue;
    const kinds = kindsWithField(field);
    if (kinds.length === 0) problems.push(`allowFields: ${JSON.stringify(field)} is not a query body field (agent: ${AGENT_QUERY_FIELDS.join(', ')}; datastore: ${DATASTORE_QUERY_FIELDS.join(', ')})`);
    for (const kind of kinds) if (!BASE_FIELDS[kind].includes(field)) allowFields[kind].push(field);
  }

  const pin: Record<RouteKind, Record<string, unknown>> = { agent: {}, datastore: {} };
  for (const [field, value] of Object.entries(o.pin ?? {})) {
    if (field === 'query') problems.push('pin: query cannot be pinned');
    else if (kindsWithField(field).length === 0) problems.push(`pin: ${JSON.stringify(field)} is not a query body field`);
    else for (const kind of kindsWithField(field)) pin[kind][field] = value;
  }
  // Pinned values are checked once here, as the service would check them.
  const agentPin = checkAgentQuery({ query: 'x', ...pin.agent });
  if (!agentPin.ok) problems.push(`pin: ${describeProblems(agentPin.problems)}`);
  const datastorePin = checkDatastoreQuery({ query: 'x', ...pin.datastore });
  if (datastoreIds.size > 0 && !datastorePin.ok) problems.push(`pin: ${describeProblems(datastorePin.problems)}`);

  const maxBodyBytes = positiveInteger(o.maxBodyBytes, DEFAULTS.maxBodyBytes, 'maxBodyBytes', problems);
  const maxQueryLength = positiveInteger(o.maxQueryLength, DEFAULTS.maxQueryLength, 'maxQueryLength', problems);
  const maxIdLength = positiveInteger(o.maxIdLength, DEFAULTS.maxIdLength, 'maxIdLength', problems);
  const maxTopK = positiveInteger(o.maxTopK, DEFAULTS.maxTopK, 'maxTopK', problems);
  const upstreamTimeoutMs = positiveInteger(o.upstreamTimeoutMs, DEFAULTS.upstreamTimeoutMs, 'upstreamTimeoutMs', problems);
  const maxStreamMs = positiveInteger(o.maxStreamMs, DEFAULTS.maxStreamMs, 'maxStreamMs', problems);
  const maxStreamBytes = positiveInteger(o.maxStreamBytes, DEFAULTS.maxStreamBytes, 'maxStreamBytes', problems);
  const perAddressLimit = rateLimit(o.perAddressLimit, DEFAULTS.perAddressLimit, 'perAddressLimit', problems);
  const perVisitorLimit = rateLimit(o.perVisitorLimit, DEFAULTS.perVisitorLimit, 'perVisitorLimit', problems);
  const dailyBudget = o.dailyBudget === undefined || o.dailyBudget === false ? false : positiveInteger(o.dailyBudget, 1, 'dailyBudget', problems);
  const memoryStoreMaxKeys = positiveInteger(o.memoryStoreMaxKeys, DEFAULT_MEMORY_STORE_MAX_KEYS, 'memoryStoreMaxKeys (KAGENT_MEMORY_STORE_MAX_KEYS)', problems);
  const trustedProxyHops = o.trustedProxyHops === undefined ? 0 : o.trustedProxyHops === 0 ? 0 : positiveInteger(o.trustedProxyHops, 0, 'trustedProxyHops', problems);

  const sessions = sessionSettings(o, problems);
  let turnstile: ResolvedOptions['turnstile'];
  if (o.turnstileSecret !== undefined) {
    const siteKey = turnstileSiteKey(o.turnstileSiteKey, o.turnstileSecret, problems);
    if (typeof o.turnstileSecret !== 'string' || o.turnstileSecret.trim() === '') problems.push('turnstileSecret (KAGENT_TURNSTILE_SECRET) must not be empty');
    else if (!sessions) problems.push('turnstileSecret (KAGENT_TURNSTILE_SECRET) needs visitor sessions on: set sessionSecret (KAGENT_SESSION_SECRET) too');
    else if (siteKey) turnstile = { secret: o.turnstileSecret, siteKey, verifyUrl: httpUrl(o.turnstileVerifyUrl ?? TURNSTILE_VERIFY_URL, 'turnstileVerifyUrl', problems) };
  } else if (o.turnstileSiteKey !== undefined) {
    problems.push('turnstileSiteKey (KAGENT_TURNSTILE_SITE_KEY) needs turnstileSecret (KAGENT_TURNSTILE_SECRET): without it no Turnstile pass is checked');
  }

  const fetchFn = o.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') problems.push('fetch: this runtime has no global fetch; pass one');

  if (problems.length > 0 || !upstreamUrl || typeof o.apiKey !== 'string') {
    throw new ProxyConfigError(`kagent proxy cannot start: ${problems.join('; ')}`);
  }

  return {
    apiKey: o.apiKey,
    upstreamUrl,
    agentIds,
    datastoreIds,
    allowedOrigins,
    allowRequestsWithoutOrigin: o.allowRequestsWithoutOrigin === true,
    basePath,
    allowFields,
    pin,
    maxBodyBytes,
    maxQueryLength,
    maxIdLength,
    maxTopK,
    upstreamTimeoutMs,
    maxStreamMs,
    maxStreamBytes,
    perAddressLimit,
    perVisitorLimit,
    dailyBudget,
    memoryStoreMaxKeys,
    trustedProxyHops,
    fetchFn,
    sessions,
    turnstile,
  };
}

/** What a proxy serves, as its session keys mix it in: its agents and datastores, in any order they were listed. */
export function sessionAudience(agentIds: readonly string[] | string | undefined, datastoreIds?: readonly string[] | string): string {
  const list = (ids: readonly string[] | string | undefined) => (typeof ids === 'string' ? ids.split(',') : [...(ids ?? [])]).map((id) => id.trim()).filter(Boolean).sort();
  return JSON.stringify([list(agentIds), list(datastoreIds)]);
}

/** Session settings when a secret is set; problems with them go to `problems`. */
function sessionSettings(o: Partial<ProxyOptions>, problems: string[]): SessionSettings | undefined {
  const secret = o.sessionSecret;
  if (secret === undefined) {
    if (o.previousSessionSecret !== undefined) problems.push('previousSessionSecret (KAGENT_SESSION_SECRET_PREVIOUS) needs sessionSecret (KAGENT_SESSION_SECRET)');
    return undefined;
  }
  const secrets: string[] = [];
  for (const [value, name] of [[secret, 'sessionSecret (KAGENT_SESSION_SECRET)'], [o.previousSessionSecret, 'previousSessionSecret (KAGENT_SESSION_SECRET_PREVIOUS)']] as const) {
    if (value === undefined) continue;
    // The secret itself is never echoed.
    if (typeof value !== 'string' || value.length < 32) problems.push(`${name} must be at least 32 characters: ${MAKE_A_SECRET}`);
    else if (secretBits(value) < MIN_SECRET_BITS) problems.push(`${name} is too easy to guess (a word, a pattern or a repeat: about ${Math.floor(secretBits(value))} bits, ${MIN_SECRET_BITS} needed), and a guessed secret lets anyone forge sessions: ${MAKE_A_SECRET}`);
    else if (value === o.apiKey) problems.push(`${name} must not be the API key`);
    else secrets.push(value);
  }
  return {
    secrets,
    audience: sessionAudience(o.agentIds, o.datastoreIds),
    tokenSeconds: positiveInteger(o.sessionMinutes, DEFAULTS.sessionMinutes, 'sessionMinutes', problems) * 60,
    difficulty: positiveNumber(o.sessionDifficulty, DEFAULTS.sessionDifficulty, 'sessionDifficulty', problems),
    perSessionLimit: rateLimit(o.perSessionLimit, DEFAULTS.perSessionLimit, 'perSessionLimit', problems),
    sessionsPerAddress: rateLimit(o.sessionsPerAddress, DEFAULTS.sessionsPerAddress, 'sessionsPerAddress', problems),
  };
}

/** The widget's public site key (Cloudflare's dashboard, Turnstile): the page cannot show the check without it. */
function turnstileSiteKey(value: unknown, secret: unknown, problems: string[]): string | undefined {
  if (value === undefined) {
    problems.push("turnstileSiteKey (KAGENT_TURNSTILE_SITE_KEY) is missing: with turnstileSecret set, the page needs the Turnstile widget's public site key (Cloudflare dashboard, Turnstile) to show the check, or every session is refused");
    return undefined;
  }
  // Not quoted back: an operator who pasted the secret here must not see it in a log.
  if (value === secret) problems.push('turnstileSiteKey (KAGENT_TURNSTILE_SITE_KEY) is the secret key: give the site key, which is public');
  else if (typeof value !== 'string' || !/^[\w-]{1,100}$/.test(value)) problems.push("turnstileSiteKey (KAGENT_TURNSTILE_SITE_KEY) must be the widget's site key: letters, digits, - and _ (e.g. 0x4AAAAAAA...)");
  else return value;
  return undefined;
}

function httpUrl(value: unknown, name: string, problems: string[]): string {
  try {
    const url = new URL(String(value));
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
  } catch {
    // Reported below.
  }
  problems.push(`${name} must be an http(s) address`);
  return '';
}

function kindsWithField(field: string): RouteKind[] {
  return (Object.keys(ROUTE_FIELDS) as RouteKind[]).filter((kind) => ROUTE_FIELDS[kind].includes(field));
}

function idList(value: unknown, name: string, problems: string[]): Set<string> {
  if (!Array.isArray(value)) {
    problems.push(`${name} must be a list of ids`);
    return new Set();
  }
  const ids = new Set<string>();
  for (const id of value) {
    if (typeof id !== 'string' || id.trim() === '' || id !== id.trim() || /[\/\\\x00-\x1f\x7f]/.test(id)) {
      problems.push(`${name}: ${JSON.stringify(id)} is not a usable id`);
    } else ids.add(id);
  }
  return ids;
}

function originList(value: unknown, problems: string[]): Set<string> | '*' {
  if (value === '*') return '*';
  if (!Array.isArray(value)) {
    problems.push('allowedOrigins (KAGENT_ALLOWED_ORIGINS) must be a list of origins or "*"');
    return new Set();
  }
  if (value.includes('*')) return '*';
  const origins = new Set<string>();
  for (const entry of value) {
    // An origin is scheme, host and port only: a path or query means the operator meant something else.
    const text = typeof entry === 'string' ? entry.trim() : '';
    if (/^https?:\/\/[^/?#@\s]+\/?$/i.test(text)) {
      try {
        origins.add(new URL(text).origin);
        continue;
      } catch {
        // Reported below.
      }
    }
    problems.push(`allowedOrigins (KAGENT_ALLOWED_ORIGINS): ${JSON.stringify(entry)} is not an origin like https://www.example.com`);
  }
  return origins;
}

function positiveInteger(value: unknown, fallback: number, name: string, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    problems.push(`${name} must be a whole number of at least 1`);
    return fallback;
  }
  return value;
}

function positiveNumber(value: unknown, fallback: number, name: string, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    problems.push(`${name} must be a number above 0`);
    return fallback;
  }
  return value;
}

function rateLimit(value: unknown, fallback: RateLimit, name: string, problems: string[]): RateLimit | false {
  if (value === undefined) return fallback;
  if (value === false) return false;
  const limit = value as Partial<RateLimit>;
  if (!limit || typeof limit !== 'object') {
    problems.push(`${name} must be { max, windowSeconds } or false`);
    return fallback;
  }
  return {
    max: positiveInteger(limit.max, fallback.max, `${name}.max`, problems),
    windowSeconds: positiveInteger(limit.windowSeconds, fallback.windowSeconds, `${name}.windowSeconds`, problems),
  };
}
