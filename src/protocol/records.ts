import * as v from 'valibot';
import {
  DATASOURCE_STATUSES,
  DATASOURCE_TYPES,
  DATASTORE_TYPES,
  PROMPT_TYPES,
  VISIBILITIES,
  deprecated,
  text,
} from './fields.js';
import type { DatasourceStatus, DatasourceType, DatastoreType, PromptType, Visibility } from './fields.js';
import type { ModelName } from './models.js';

// The records the service answers with. Schemas are loose: the real service
// adds fields over time, and a reader must keep, not reject, what it does not
// know. Enums are typed with their known values but read as any string, for
// the same reason.

const known = <T extends string>(values: readonly T[]) =>
  v.pipe(
    v.custom<T | (string & {})>((x) => typeof x === 'string', 'must be a string'),
    v.metadata({ type: 'string', description: `Known values: ${values.join(', ')}; others may occur.` }),
  );
const number = () => v.number('must be a number');

/** An agent ("AI Employee", section 2). */
export const AgentRecord = v.looseObject({
  id: text(),
  name: text(),
  description: v.optional(v.nullable(text())),
  modelName: v.optional(v.nullable(v.pipe(v.custom<ModelName>((x) => typeof x === 'string', 'must be a string'), v.metadata({ type: 'string' })))),
  temperature: v.optional(v.nullable(number())),
  visibility: v.optional(known<Visibility>(VISIBILITIES)),
  systemPrompt: v.optional(v.nullable(text())),
  userPrompt: v.optional(v.nullable(text())),
  /** Deprecated. */
  promptType: v.optional(deprecated(v.nullable(known<PromptType>(PROMPT_TYPES)))),
  /** Deprecated. */
  promptTemplate: v.optional(deprecated(v.nullable(text()))),
});
export type Agent = v.InferOutput<typeof AgentRecord>;

export const DatastoreRecord = v.looseObject({
  id: text(),
  name: text(),
  description: v.optional(v.nullable(text())),
  type: v.optional(known<DatastoreType>(DATASTORE_TYPES)),
  visibility: v.optional(known<Visibility>(VISIBILITIES)),
});
export type Datastore = v.InferOutput<typeof DatastoreRecord>;

/** `config` of a datasource: where a web datasource reads from. */
export const DatasourceConfig = v.looseObject({
  source_url: v.optional(text()),
  /** `web_site` only. */
  sitemap: v.optional(text()),
});
export type DatasourceConfig = v.InferOutput<typeof DatasourceConfig>;

export const DatasourceRecord = v.looseObject({
  id: text(),
  type: v.optional(known<DatasourceType>(DATASOURCE_TYPES)),
  name: v.optional(text()),
  status: v.optional(known<DatasourceStatus>(DATASOURCE_STATUSES)),
  groupId: v.optional(v.nullable(text())),
  /** Dates: the description says YYYY-MM-DD; full ISO times occur too. */
  updatedAt: v.optional(v.nullable(text())),
  createdAt: v.optional(v.nullable(text())),
  lastSynch: v.optional(v.nullable(text())),
  config: v.optional(v.nullable(DatasourceConfig)),
});
export type Datasource = v.InferOutput<typeof DatasourceRecord>;

/** One result of a datastore query (section 4.4, and wire-format.md for `custom_id`, `offset`). */
export const DatastoreFragmentRecord = v.looseObject({
  text: text(),
  score: number(),
  source: v.optional(v.nullable(text())),
  datasource_id: v.optional(text()),
  datasource_name: v.optional(text()),
  custom_id: v.optional(v.nullable(text())),
  offset: v.optional(number()),
});
export type DatastoreFragment = v.InferOutput<typeof DatastoreFragmentRecord>;

/** `{ids}`: the answer of the deprecated upsert. */
export const UpsertAnswerRecord = v.looseObject({ ids: v.array(text()) });
export type UpsertAnswer = v.InferOutput<typeof UpsertAnswerRecord>;

/** `{id}`: the answer of the deprecated document update. */
export const UpdateDocumentAnswerRecord = v.looseObject({ id: text() });
export type UpdateDocumentAnswer = v.InferOutput<typeof UpdateDocumentAnswerRecord>;

/** One conversation of `GET /v1/agents/{id}/conversations`. */
export const ConversationRecord = v.looseObject({
  id: text(),
  createdAt: v.optional(text()),
  updatedAt: v.optional(text()),
});
export type Conversation = v.InferOutput<typeof ConversationRecord>;

/** One chunk an agent's answer was grounded in (the `Source` the widget reads; every field may be missing). */
export const SourceRecord = v.looseObject({
  chunk_id: v.optional(text()),
  datasource_id: v.optional(text()),
  datasource_name: v.optional(text()),
  datasource_type: v.optional(known<DatasourceType>(DATASOURCE_TYPES)),
  /** An address; for files, the stored file's address. */
  source_url: v.optional(text()),
  mime_type: v.optional(text()),
  page_number: v.optional(number()),
  total_pages: v.optional(number()),
  custom_id: v.optional(text()),
  score: v.optional(number()),
});

/**
 * The agent query answer (4.1), as a schema for the OpenAPI document and
 * servers' tests. Readers use `readAgentQueryAnswer`, which keeps an answer
 * whose other fields are off and needs no schema library.
 */
export const AgentQueryAnswerRecord = v.looseObject({
  answer: text(),
  conversationId: text(),
  visitorId: text(),
  /** Best first. */
  sources: v.array(SourceRecord),
  messageId: v.optional(text()),
  usage: v.optional(
    v.looseObject({
      completionTokens: v.optional(number()),
      promptTokens: v.optional(number()),
      totalTokens: v.optional(number()),
      cost: v.optional(number()),
    }),
  ),
  metadata: v.optional(v.record(v.string(), v.unknown())),
});

/** A list (section 7): `data`, and `meta` saying where it sits in the whole. */
export const listOf = <S extends v.GenericSchema>(record: S) =>
  v.looseObject({
    data: v.array(record),
    meta: v.looseObject({ page: number(), limit: number(), total: number() }),
  });
