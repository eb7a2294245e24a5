import type { CheckResult } from './check.js';
import type { DatasourceType } from './fields.js';

// The agent query answer is read by the widget on every question, so its
// reader is plain code (no schema library in the script-tag bundle) and
// forgiving: a source with one odd field keeps its other fields, and an
// answer keeps its sources when one of them is not an object.

/** One of the chunks an answer was grounded in (wire-format.md: every field may be missing). */
export interface Source {
  chunk_id?: string;
  datasource_id?: string;
  datasource_name?: string;
  datasource_type?: DatasourceType | (string & {});
  /** An address; for files, the stored file's address. */
  source_url?: string;
  mime_type?: string;
  page_number?: number;
  total_pages?: number;
  /** Left out when unset. */
  custom_id?: string;
  score?: number;
  [field: string]: unknown;
}

export interface Usage {
  completionTokens?: number;
  promptTokens?: number;
  totalTokens?: number;
  cost?: number;
  [field: string]: unknown;
}

/** The answer of an agent query: the JSON body, or the assembled `endpoint_response` of a stream. */
export interface AgentQueryAnswer {
  answer: string;
  /** `''` when the service sent none. */
  conversationId: string;
  /** `''` when the service sent none. */
  visitorId: string;
  /** Best first. */
  sources: Source[];
  messageId?: string;
  usage?: Usage;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

const SOURCE_TEXT_FIELDS = ['chunk_id', 'datasource_id', 'datasource_name', 'datasource_type', 'source_url', 'mime_type', 'custom_id'];
const SOURCE_NUMBER_FIELDS = ['page_number', 'total_pages', 'score'];
const USAGE_NUMBER_FIELDS = ['completionTokens', 'promptTokens', 'totalTokens', 'cost'];

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Keeps `record`'s fields, minus the listed ones that do not have their type. */
function typed<T>(record: Record<string, unknown>, texts: string[], numbers: string[]): T {
  const out: Record<string, unknown> = { ...record };
  for (const field of texts) if (out[field] !== undefined && typeof out[field] !== 'string') delete out[field];
  for (const field of numbers) if (out[field] !== undefined && !Number.isFinite(out[field])) delete out[field];
  return out as T;
}

/**
 * Reads an agent query answer. Only `answer` must be right (a string);
 * every other field that has the wrong type is dropped rather than failing
 * the whole answer.
 */
export function readAgentQueryAnswer(value: unknown): CheckResult<AgentQueryAnswer> {
  if (!isObject(value)) return { ok: false, problems: [{ field: '(body)', reason: 'must be a JSON object' }] };
  if (typeof value.answer !== 'string') return { ok: false, problems: [{ field: 'answer', reason: 'must be a string' }] };
  const answer: AgentQueryAnswer = {
    ...value,
    answer: value.answer,
    conversationId: typeof value.conversationId === 'string' ? value.conversationId : '',
    visitorId: typeof value.visitorId === 'string' ? value.visitorId : '',
    sources: Array.isArray(value.sources) ? value.sources.filter(isObject).map((s) => typed<Source>(s, SOURCE_TEXT_FIELDS, SOURCE_NUMBER_FIELDS)) : [],
  };
  if (typeof answer.messageId !== 'string') delete answer.messageId;
  if (isObject(value.usage)) answer.usage = typed<Usage>(value.usage, [], USAGE_NUMBER_FIELDS);
  else delete answer.usage;
  if (!isObject(value.metadata)) delete answer.metadata;
  return { ok: true, value: answer };
}
