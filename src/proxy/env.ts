import type { ProxyOptions, RateLimit } from './options.js';
import { ProxyConfigError } from './options.js';

/** Environment variables, as every platform hands them over. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The proxy's options from environment variables (names in docs/proxy.md).
 * Throws `ProxyConfigError` naming each variable that cannot be read;
 * missing required ones are reported by `createProxy`.
 */
export function proxyOptionsFromEnv(env: Env): ProxyOptions & { redisUrl?: string } {
  const problems: string[] = [];
  const get = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const list = (name: string) => get(name)?.split(',').map((s) => s.trim()).filter(Boolean);
  const integer = (name: string) => {
    const value = get(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value) || Number(value) < 1) {
      problems.push(`${name} must be a whole number of at least 1 (got ${JSON.stringify(value)})`);
      return undefined;
    }
    return Number(value);
  };
  const limit = (name: string): RateLimit | false | undefined => {
    const value = get(name);
    if (value === undefined) return undefined;
    const parsed = parseRateLimit(value);
    if (parsed === undefined) problems.push(`${name} must look like 20/minute, 100/hour, 5/30s or off (got ${JSON.stringify(value)})`);
    return parsed;
  };

  const options: ProxyOptions & { redisUrl?: string } = {
    apiKey: env.KAGENT_API_KEY?.trim() ?? '',
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
  set('maxBodyBytes', integer('KAGENT_MAX_BODY_BYTES'));
  set('maxQueryLength', integer('KAGENT_MAX_QUERY_LENGTH'));
  set('maxTopK', integer('KAGENT_MAX_TOP_K'));
  const timeout = integer('KAGENT_UPSTREAM_TIMEOUT_SECONDS');
  if (timeout !== undefined) options.upstreamTimeoutMs = timeout * 1000;
  const streamSeconds = integer('KAGENT_MAX_STREAM_SECONDS');
  if (streamSeconds !== undefined) options.maxStreamMs = streamSeconds * 1000;
  set('maxStreamBytes', integer('KAGENT_MAX_STREAM_BYTES'));
  set('perAddressLimit', limit('KAGENT_RATE_LIMIT_PER_ADDRESS'));
  set('perVisitorLimit', limit('KAGENT_RATE_LIMIT_PER_VISITOR'));
  const budget = get('KAGENT_DAILY_BUDGET');
  if (budget !== undefined && /^off$/i.test(budget)) options.dailyBudget = false;
  else set('dailyBudget', integer('KAGENT_DAILY_BUDGET'));
  const hops = get('KAGENT_TRUSTED_PROXY_HOPS');
  if (hops !== undefined) {
    if (!/^\d+$/.test(hops)) problems.push(`KAGENT_TRUSTED_PROXY_HOPS must be a whole number (got ${JSON.stringify(hops)})`);
    else options.trustedProxyHops = Number(hops);
  }
  const redisUrl = get('KAGENT_REDIS_URL');
  if (redisUrl !== undefined) options.redisUrl = redisUrl;

  if (problems.length > 0) throw new ProxyConfigError(`kagent proxy cannot start: ${problems.join('; ')}`);
  return options;
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
