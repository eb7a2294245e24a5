import { hashApiKey } from './ids.js';
import type { IngestQueue } from './ingest-queue.js';
import type { DatastoreIndexes } from './search/indexes.js';
import { HttpError } from './http/responses.js';
import {
  DEFAULT_MAX_UPLOAD_BYTES,
  DEFAULT_PACE_MS,
  DEFAULT_RATE_LIMITS,
  DEFAULT_SOURCE_THRESHOLD,
  DEFAULT_CLOSEST_THRESHOLD,
  DEFAULT_ANSWERABLE_THRESHOLD,
  type EmulatorOptions,
} from './options.js';
import { RateLimiter } from './rate-limit.js';
import type { ApiKeyRow, DatasourceRow, OrganizationRow, Plan } from './store/records.js';
import type { Store } from './store/store.js';

/** The options with their defaults filled in. */
export interface Settings {
  rateLimits: Record<Plan, number>;
  usageLimit: number;
  usageLimitInStream: boolean;
  llm: { url: string; model: string | undefined; apiKey: string | undefined } | undefined;
  pace: number;
  sourceThreshold: number;
  closestThreshold: number;
  answerableThreshold: number;
  maxUploadBytes: number;
  webLimits: EmulatorOptions['webLimits'];
  ingestLimits: EmulatorOptions['ingestLimits'];
  publicUrl: string | undefined;
  log: (message: string) => void;
}

export function settingsOf(options: EmulatorOptions): Settings {
  return {
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...options.rateLimits },
    usageLimit: options.usageLimit ?? Number.POSITIVE_INFINITY,
    usageLimitInStream: options.usageLimitInStream ?? false,
    llm: options.llmUrl ? { url: chatCompletionsUrl(options.llmUrl), model: options.llmModel, apiKey: options.llmApiKey } : undefined,
    pace: options.pace ?? DEFAULT_PACE_MS,
    sourceThreshold: options.sourceThreshold ?? DEFAULT_SOURCE_THRESHOLD,
    closestThreshold: Math.min(options.closestThreshold ?? DEFAULT_CLOSEST_THRESHOLD, options.sourceThreshold ?? DEFAULT_SOURCE_THRESHOLD),
    answerableThreshold: options.answerableThreshold ?? DEFAULT_ANSWERABLE_THRESHOLD,
    maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
    webLimits:
      options.allowPrivateAddresses === undefined ? options.webLimits : { ...options.webLimits, allowPrivateAddresses: options.allowPrivateAddresses },
    ingestLimits: options.ingestLimits,
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    log: options.log ?? (() => {}),
  };
}

/** `http://host:11434` and `http://host/v1` both mean `.../v1/chat/completions`. */
export function chatCompletionsUrl(base: string): string {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) return url.href;
  url.pathname = path.endsWith('/v1') ? `${path}/chat/completions` : `${path}/v1/chat/completions`;
  return url.href;
}

/** Who is asking: the key and its organization. */
export interface Caller {
  key: ApiKeyRow;
  organization: OrganizationRow;
}

/** What every handler works with. */
export interface EmulatorContext {
  store: Store;
  settings: Settings;
  limiter: RateLimiter;
  ingestion: IngestQueue;
  /** The search index of each datastore. */
  indexes: DatastoreIndexes;
}

/** What a handler gets for one request. */
export interface RequestContext extends EmulatorContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  caller: Caller;
}

/**
 * The caller of a request, from its bearer key. Missing, unknown and revoked
 * keys are 401; the message never repeats the key.
 */
export function authenticate(store: Store, request: Request): Caller {
  const header = request.headers.get('Authorization');
  if (!header) throw new HttpError(401, 'Missing API key: send the header Authorization: Bearer <API_KEY>.', { code: 'UNAUTHORIZED' });
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new HttpError(401, 'The Authorization header must be Bearer <API_KEY>.', { code: 'UNAUTHORIZED' });
  const key = store.keyByHash(hashApiKey(match[1]!));
  if (!key) throw new HttpError(401, 'Invalid API key.', { code: 'UNAUTHORIZED' });
  if (key.revokedAt) throw new HttpError(401, 'This API key has been revoked.', { code: 'UNAUTHORIZED' });
  const organization = store.organizations.get(key.organizationId);
  if (!organization) throw new HttpError(401, 'Invalid API key.', { code: 'UNAUTHORIZED' });
  return { key, organization };
}

/** Counts a request against the key's plan; 429 with `Retry-After` when over. */
export function checkRateLimit(context: EmulatorContext, caller: Caller): void {
  const limit = context.settings.rateLimits[caller.organization.plan];
  const retryAfter = context.limiter.hit(caller.key.id, limit);
  if (retryAfter !== undefined) {
    throw new HttpError(429, `Rate limit exceeded: ${limit} requests per minute on the ${caller.organization.plan} plan. Retry in ${retryAfter} s.`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

type Owned = { organizationId: string; visibility?: 'public' | 'private' };

/**
 * The row if the caller may use it: a missing one is 404, another
 * organization's is 403, except that anyone may read a public one.
 */
export function reachable<T extends Owned>(
  row: T | undefined,
  caller: Caller,
  what: string,
  id: string,
  access: 'read' | 'write',
  forbiddenCode = 'FORBIDDEN',
): T {
  if (!row) throw new HttpError(404, `No ${what} with id ${id}.`);
  if (row.organizationId === caller.organization.id) return row;
  if (access === 'read' && row.visibility === 'public') return row;
  throw new HttpError(403, `This ${what} belongs to another organization${row.visibility === 'public' ? ' and may only be read' : ''}.`, { code: forbiddenCode });
}

/** The address an uploaded file is served at (the `source_url` of its sources). */
export function fileUrlFor(context: RequestContext): (row: DatasourceRow) => string | undefined {
  const base = context.settings.publicUrl ?? context.url.origin;
  return (row) => {
    if (row.type !== 'file') return undefined;
    const name = encodeURIComponent(row.config.fileName ?? row.name);
    return `${base}/files/${row.id}/${name}`;
  };
}

export function nowIso(): string {
  return new Date().toISOString();
}
