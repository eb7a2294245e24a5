import type { WebLimits } from './ingest/index.js';
import type { IngestLimits } from './ingest-queue.js';
import type { Plan } from './store/records.js';

/** How an emulator behaves. Every field has a default; see docs/emulator.md. */
export interface EmulatorOptions {
  /** Folder to keep everything in across restarts; without it, memory only. */
  dataDir?: string;
  /** Folder whose files are ingested into the demo datastore at start (only files not ingested yet). */
  seed?: string;
  /** Requests per minute per key, by the plan of the key's organization. Defaults: free 60, pro 300, enterprise 1000. */
  rateLimits?: Partial<Record<Plan, number>>;
  /** Agent queries an organization may make in all; unset means no limit. */
  usageLimit?: number;
  /** Report the usage limit as the later service does: a 200 stream carrying `data: [ERROR]USAGE_LIMIT` instead of a 402. */
  usageLimitInStream?: boolean;
  /** An OpenAI-compatible server (`http://127.0.0.1:11434` or `.../v1/chat/completions`) that writes the answers. */
  llmUrl?: string;
  /** The model name sent to `llmUrl`; defaults to the agent's `modelName`. */
  llmModel?: string;
  /** Bearer key for `llmUrl`, if it needs one. */
  llmApiKey?: string;
  /** Milliseconds between the pieces of a streamed answer (default 25); 0 sends them back to back. */
  pace?: number;
  /** Plan of the demo organization (default `pro`). */
  demoPlan?: Plan;
  /** Use this as the demo organization's API key instead of a random one. */
  demoApiKey?: string;
  /** Sources of an answer are fragments scored above this (default 0.7, as the service does). */
  sourceThreshold?: number;
  /**
   * With no source above `sourceThreshold`, a passage scored at least this is still quoted, as
   * "The closest I found" and cited as the one source; below it the answer is "I don't know"
   * (default 0.5: on SciFact and StackFAQ, under 5% of the questions that can be answered fall below it).
   */
  closestThreshold?: number;
  /**
   * Below this, the best passage says the datastore holds nothing that answers the question, and
   * the answer is "I don't know" whatever the passages' scores (default 0.35: how likely, 0..1,
   * from the share of the question the passage and the datastore hold and how far its document
   * leads; on SciFact and StackFAQ about 5% of the questions that can be answered fall below it).
   */
  answerableThreshold?: number;
  /** Largest accepted upload, in bytes (default 50 MB). */
  maxUploadBytes?: number;
  /**
   * Bounds on ingesting one datasource: read time (default 60 s), reader memory (1024 MB),
   * text (10 million characters), pages (5,000) and fragments (20,000) per file or page.
   */
  ingestLimits?: Partial<IngestLimits>;
  /** Bounds of `web_site` crawls and `web_page` fetches. */
  webLimits?: Partial<WebLimits>;
  /**
   * Web datasources may not read loopback, private, link-local or cloud metadata addresses
   * (checked after resolving, on every redirect). `true` allows them all; a list allows only
   * those addresses or subnets, e.g. `['10.1.2.0/24']` for an intranet site.
   */
  allowPrivateAddresses?: boolean | string[];
  /** Base address used in `source_url` of uploaded files; defaults to the address the request came to. */
  publicUrl?: string;
  /** Journal bytes after which the data folder's snapshot is rewritten (default 32 MB). */
  snapshotAfterBytes?: number;
  /** Where the emulator reports ingestion failures and LLM errors (default: nowhere). */
  log?: (message: string) => void;
}

export const DEFAULT_RATE_LIMITS: Record<Plan, number> = { free: 60, pro: 300, enterprise: 1000 };
export const DEFAULT_PACE_MS = 25;
export const DEFAULT_SOURCE_THRESHOLD = 0.7;
export const DEFAULT_CLOSEST_THRESHOLD = 0.5;
export const DEFAULT_ANSWERABLE_THRESHOLD = 0.35;
export const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
