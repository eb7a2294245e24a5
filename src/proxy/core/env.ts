import type { ProxyOptions, RateLimit } from './options.js';
import { ProxyConfigError } from './options.js';

/** Environment variables, as every platform hands them over. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads environment variables, collecting what cannot be read: every
 * variable of every entry goes through one of these, trimmed and checked the same way.
 */
function envReader(env: Env) {
  const problems: string[] = [];
  const get = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const list = (name: string) => get(name)?.split(',').map((s) => s.trim()).filter(Boolean);
  const whole = (name: string, min = 1) => {
    const value = get(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value) || Number(value) < min) {
      problems.push(`${name} must be a whole number of at least ${min} (got ${JSON.stringify(value)})`);
      return undefined;
    }
    return Number(value);
  };
  /** A number above 0, decimals allowed. */
  const decimal = (name: string) => {
    const value = get(name);
    if (value === undefined) return undefined;
    if (/^\d+(\.\d+)?$/.test(value) && Number(value) > 0) return Number(value);
    problems.push(`${name} must be a number above 0 (got ${JSON.stringify(value)})`);
    return undefined;
  };
  /** A whole number, or `off` for `false`. */
  const wholeOrOff = (name: string) => (/^off$/i.test(get(name) ?? '') ? false : whole(name));
  const seconds = (name: string) => {
    const value = whole(name);
    return value === undefined ? undefined : value * 1000;
  };
  const limit = (name: string): RateLimit | false | undefined => {
    const value = get(name);
    if (value === undefined) return undefined;
    const parsed = parseRateLimit(value);
    if (parsed === undefined) problems.push(`${name} must look like 20/minute, 100/hour, 5/30s or off (got ${JSON.stringify(value)})`);
    return parsed;
  };
  /** Throws `ProxyConfigError` naming every variable that could not be read. */
  const done = () => {
    if (problems.length > 0) throw new ProxyConfigError(`kagent proxy cannot start: ${problems.join('; ')}`);
  };
  return { get, list, whole, wholeOrOff, decimal, seconds, limit, problems, done };
}

/** The API key and the other secrets as the proxy reads them, for redacting them from a message before the options are read. */
export function secretsFromEnv(env: Env): string[] {
  const { get } = envReader(env);
  return ['KAGENT_API_KEY', 'KAGENT_SESSION_SECRET', 'KAGENT_SESSION_SECRET_PREVIOUS', 'KAGENT_TURNSTILE_SECRET'].map(get).filter((value): value is string => value !== undefined);
}

/**
 * The proxy's options from environment variables (names in docs/proxy.md).
 * Throws `ProxyConfigError` naming each variable that cannot be read;
 * missing required ones are reported by `createProxy`.
 */
export function proxyOptionsFromEnv(env: Env): ProxyOptions & { redisUrl?: string } {
  const { get, list, whole, wholeOrOff, decimal, seconds, limit, problems, done } = envReader(env);

  const options: ProxyOptions & { redisUrl?: string } = {
    apiKey: get('KAGENT_API_KEY') ?? '',
    upstreamUrl: get('KAGENT_UPSTREAM_URL') ?? '',
    agentIds: list('KAGENT_AGENT_IDS') ?? [],
  };
  const set = <K extends keyof ProxyOptions>(key: K, value: ProxyOptions[K] | undefined) => {
    if (value !== undefined) options[key] = value;
  };
  set('datastoreIds', list('KAGENT_DATASTORE_IDS'));
  const origins = list('KAGENT_ALLOWED_ORIGINS');
  set('allowedOrigins', origins?.includes('*') ? '*' : origins);
  const withoutOrigin = get('KAGENT_ALLOW_REQUESTS_WITHOUT_ORIGIN');
  if (withoutOrigin !== undefined) {
    if (!/^(true|false|1|0|yes|no)$/i.test(withoutOrigin)) problems.push('KAGENT_ALLOW_REQUESTS_WITHOUT_ORIGIN must be true or false');
    else options.allowRequestsWithoutOrigin = /^(true|1|yes)$/i.test(withoutOrigin);
  }
  set('basePath', get('KAGENT_BASE_PATH'));
  set('allowFields', list('KAGENT_ALLOW_FIELDS'));
  const pin = get('KAGENT_PIN');
  if (pin !== undefined) {
    try {
      const value: unknown = JSON.parse(pin);
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error();
      options.pin = value as Record<string, unknown>;
    } catch {
      problems.push('KAGENT_PIN must be a JSON object, e.g. {"modelName":"family_a_4_5_haiku","temperature":0.2}');
    }
  }
  set('maxBodyBytes', whole('KAGENT_MAX_BODY_BYTES'));
  set('maxQueryLength', whole('KAGENT_MAX_QUERY_LENGTH'));
  set('maxTopK', whole('KAGENT_MAX_TOP_K'));
  set('upstreamTimeoutMs', seconds('KAGENT_UPSTREAM_TIMEOUT_SECONDS'));
  set('maxStreamMs', seconds('KAGENT_MAX_STREAM_SECONDS'));
  set('maxStreamBytes', whole('KAGENT_MAX_STREAM_BYTES'));
  set('perAddressLimit', limit('KAGENT_RATE_LIMIT_PER_ADDRESS'));
  set('perVisitorLimit', limit('KAGENT_RATE_LIMIT_PER_VISITOR'));
  set('dailyBudget', wholeOrOff('KAGENT_DAILY_BUDGET'));
  set('memoryStoreMaxKeys', whole('KAGENT_MEMORY_STORE_MAX_KEYS'));
  const hops = get('KAGENT_TRUSTED_PROXY_HOPS');
  if (hops !== undefined) {
    if (!/^\d+$/.test(hops)) problems.push(`KAGENT_TRUSTED_PROXY_HOPS must be a whole number (got ${JSON.stringify(hops)})`);
    else options.trustedProxyHops = Number(hops);
  }
  // Visitor sessions (docs/proxy.md, Visitor sessions); a variable left unset leaves its option out.
  const sessions: Partial<ProxyOptions> = {
    sessionSecret: get('KAGENT_SESSION_SECRET'),
    previousSessionSecret: get('KAGENT_SESSION_SECRET_PREVIOUS'),
    sessionMinutes: whole('KAGENT_SESSION_MINUTES'),
    perSessionLimit: limit('KAGENT_RATE_LIMIT_PER_SESSION'),
    sessionsPerAddress: limit('KAGENT_SESSIONS_PER_ADDRESS'),
    sessionDifficulty: decimal('KAGENT_SESSION_DIFFICULTY'),
    turnstileSecret: get('KAGENT_TURNSTILE_SECRET'),
    turnstileSiteKey: get('KAGENT_TURNSTILE_SITE_KEY'),
    turnstileVerifyUrl: get('KAGENT_TURNSTILE_VERIFY_URL'),
  };
  for (const [key, value] of Object.entries(sessions)) if (value !== undefined) Object.assign(options, { [key]: value });
  const redisUrl = get('KAGENT_REDIS_URL');
  if (redisUrl !== undefined) options.redisUrl = redisUrl;

  done();
  return options;
}

/** The Node server's listening address and connection limits (its `ServeProxyOptions`), as read from the environment. */
export interface ServerSettings {
  port: number;
  host: string;
  headerTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxConnections?: number;
  maxConnectionsPerAddress?: number | false;
  backlog?: number;
}

/**
 * The Node server's settings from the environment: `PORT`, `HOST`, and the
 * connection limits (`KAGENT_HEADER_TIMEOUT_SECONDS`, `KAGENT_IDLE_TIMEOUT_SECONDS`,
 * `KAGENT_MAX_CONNECTIONS`, `KAGENT_MAX_CONNECTIONS_PER_ADDRESS`, `KAGENT_LISTEN_BACKLOG`).
 * Behind trusted proxies (`KAGENT_TRUSTED_PROXY_HOPS` above 0) every connection
 * comes from them, so the per-address cap is off unless set.
 */
export function serveOptionsFromEnv(env: Env): ServerSettings {
  const { get, whole, wholeOrOff, seconds, problems, done } = envReader(env);
  const options: ServerSettings = { port: 8788, host: get('HOST') ?? '127.0.0.1' };
  const port = whole('PORT', 0);
  if (port !== undefined) {
    if (port > 65535) problems.push(`PORT must be a port number (got ${JSON.stringify(get('PORT'))})`);
    else options.port = port;
  }
  const set = <K extends keyof ServerSettings>(key: K, value: ServerSettings[K] | undefined) => {
    if (value !== undefined) options[key] = value;
  };
  set('headerTimeoutMs', seconds('KAGENT_HEADER_TIMEOUT_SECONDS'));
  set('idleTimeoutMs', seconds('KAGENT_IDLE_TIMEOUT_SECONDS'));
  set('maxConnections', whole('KAGENT_MAX_CONNECTIONS'));
  set('backlog', whole('KAGENT_LISTEN_BACKLOG'));
  set('maxConnectionsPerAddress', wholeOrOff('KAGENT_MAX_CONNECTIONS_PER_ADDRESS'));
  if (get('KAGENT_MAX_CONNECTIONS_PER_ADDRESS') === undefined && /^[1-9]\d*$/.test(get('KAGENT_TRUSTED_PROXY_HOPS') ?? '')) options.maxConnectionsPerAddress = false;
  done();
  return options;
}

/** `KAGENT_WORKERS`: how many processes serve the proxy on Node. Default 1 (no primary, no workers). */
export function workersFromEnv(env: Env): number {
  const value = envReader(env).get('KAGENT_WORKERS');
  if (value === undefined) return 1;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) {
    throw new ProxyConfigError(`kagent proxy cannot start: KAGENT_WORKERS must be a whole number from 1 to 256 (got ${JSON.stringify(value)})`);
  }
  return Number(value);
}

const UNITS: Record<string, number> = { s: 1, sec: 1, second: 1, seconds: 1, m: 60, min: 60, minute: 60, minutes: 60, h: 3600, hour: 3600, hours: 3600, d: 86400, day: 86400, days: 86400 };

/** `20/minute`, `100/hour`, `5/30s`, `off`. `undefined` when unreadable. */
export function parseRateLimit(text: string): RateLimit | false | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'off' || value === 'false' || value === '0') return false;
  const match = /^(\d+)\s*\/\s*(\d+)?\s*([a-z]+)$/.exec(value);
  if (!match) return undefined;
  const max = Number(match[1]);
  const unit = UNITS[match[3]!];
  const count = match[2] === undefined ? 1 : Number(match[2]);
  if (!unit || max < 1 || count < 1) return undefined;
  return { max, windowSeconds: count * unit };
}
