import * as v from 'valibot';
import { checkWith, type CheckResult } from './check.js';
import {
  DATASTORE_TYPES,
  PROMPT_TYPES,
  deprecated,
  VISIBILITIES,
  filters,
  httpUrl,
  jsonObject,
  metadataObject,
  modelName,
  nonEmptyText,
  oneOf,
  penalty,
  temperature,
  text,
  textList,
  topP,
  wholeNumberFrom,
} from './fields.js';

// Every request body of section 4, with the value ranges of section 8. A
// body's fields that the interface does not define are dropped from the
// checked value, as the service ignores them.

export interface CheckOptions {
  /** Limit `modelName` to section 2's table. The emulator does; code that talks to the real service should not. */
  strictModelNames?: boolean;
}

const objectMessage = 'must be a JSON object';

const agentQuery = (strict: boolean) =>
  jsonObject(
    {
      /** The visitor's question. */
      query: nonEmptyText(),
      /** Omitted: the service starts a new conversation. */
      conversationId: v.optional(text()),
      /** Omitted: the service creates one. */
      visitorId: v.optional(text()),
      temperature: v.optional(temperature()),
      /** `true` answers with an event stream instead of JSON. */
      streaming: v.optional(v.boolean('must be true or false')),
      modelName: v.optional(modelName(strict)),
      maxCompletionTokens: v.optional(wholeNumberFrom(1)),
      /** Earlier name of `maxCompletionTokens`. */
      maxTokens: v.optional(wholeNumberFrom(1)),
      presencePenalty: v.optional(penalty()),
      frequencyPenalty: v.optional(penalty()),
      topP: v.optional(topP()),
      filters: v.optional(filters()),
      systemPrompt: v.optional(text()),
      userPrompt: v.optional(text()),
      /** Deprecated: use `systemPrompt` and `userPrompt`. */
      promptType: v.optional(deprecated(oneOf(PROMPT_TYPES))),
      /** Deprecated: use `systemPrompt` and `userPrompt`. */
      promptTemplate: v.optional(deprecated(text())),
    },
    objectMessage,
  );

/** `POST /agents/{id}/query` and `POST /v1/agents/{id}/query` (4.1, 4.9). */
export const AgentQueryBody = agentQuery(false);
export const StrictAgentQueryBody = agentQuery(true);
export type AgentQueryBody = v.InferOutput<typeof AgentQueryBody>;

/** The fields of an agent query body, for allowlists. */
export const AGENT_QUERY_FIELDS = Object.keys(AgentQueryBody.pipe[1].entries) as (keyof AgentQueryBody)[];

const agentUpdate = (strict: boolean) =>
  jsonObject(
    {
      name: v.optional(text()),
      description: v.optional(text()),
      temperature: v.optional(temperature()),
      systemPrompt: v.optional(text()),
      userPrompt: v.optional(text()),
      modelName: v.optional(modelName(strict)),
      visibility: v.optional(oneOf(VISIBILITIES)),
      /** Deprecated. */
      promptType: v.optional(deprecated(oneOf(PROMPT_TYPES))),
      /** Deprecated. */
      promptTemplate: v.optional(deprecated(text())),
    },
    objectMessage,
  );

/** `PATCH /agents/{id}` (4.2). */
export const AgentUpdateBody = agentUpdate(false);
export const StrictAgentUpdateBody = agentUpdate(true);
export type AgentUpdateBody = v.InferOutput<typeof AgentUpdateBody>;

// Creating agents and datastores is not in the interface description (4.10);
// these bodies are the emulator's design, shaped like the updates.

const agentCreate = (strict: boolean) =>
  jsonObject(
    {
      ...agentUpdate(strict).pipe[1].entries,
      name: nonEmptyText(),
      /** The datastores the agent answers from. */
      datastoreIds: v.optional(textList()),
    },
    objectMessage,
  );

/** `POST /agents` (not in the interface description): the update's fields, `name` required. */
export const AgentCreateBody = agentCreate(false);
export const StrictAgentCreateBody = agentCreate(true);
export type AgentCreateBody = v.InferOutput<typeof AgentCreateBody>;

/** The body of every delete (4.3, 4.6, 4.4a): an empty JSON object. */
export const EmptyBody = v.strictObject({}, 'must be an empty JSON object');
export type EmptyBody = v.InferOutput<typeof EmptyBody>;

/** `POST /datastores/{id}/query` (4.4). */
export const DatastoreQueryBody = jsonObject(
  {
    query: nonEmptyText(),
    /** How many fragments to return. */
    topK: v.optional(wholeNumberFrom(1)),
    filters: v.optional(filters()),
  },
  objectMessage,
);
export type DatastoreQueryBody = v.InferOutput<typeof DatastoreQueryBody>;

/** `PATCH /datastores/{id}` (4.5). */
export const DatastoreUpdateBody = jsonObject(
  {
    name: v.optional(text()),
    description: v.optional(text()),
    type: v.optional(oneOf(DATASTORE_TYPES)),
  },
  objectMessage,
);
export type DatastoreUpdateBody = v.InferOutput<typeof DatastoreUpdateBody>;

/** `POST /datastores` (not in the interface description): the update's fields and `visibility`, `name` required. */
export const DatastoreCreateBody = jsonObject(
  {
    ...DatastoreUpdateBody.pipe[1].entries,
    name: nonEmptyText(),
    visibility: v.optional(oneOf(VISIBILITIES)),
  },
  objectMessage,
);
export type DatastoreCreateBody = v.InferOutput<typeof DatastoreCreateBody>;

/** `POST /datasources`, JSON form: a web page or a web site (4.7). */
export const WebDatasourceBody = v.pipe(
  jsonObject(
    {
      datastoreId: nonEmptyText(),
      type: oneOf(['web_page', 'web_site'] as const),
      name: v.optional(text()),
      config: jsonObject(
        {
          /** The page (`web_page`), or where discovery starts (`web_site`). */
          source_url: httpUrl(),
          /** `web_site` only: a sitemap to read instead of discovering links. */
          sitemap: v.optional(httpUrl()),
        },
        'must be an object',
      ),
    },
    objectMessage,
  ),
  v.forward(
    v.check((b) => b.config.sitemap === undefined || b.type === 'web_site', 'is only for type web_site'),
    ['config', 'sitemap'],
  ),
  v.metadata({ if: { properties: { type: { const: 'web_page' } } }, then: { properties: { config: { not: { required: ['sitemap'] } } } } }),
);
export type WebDatasourceBody = v.InferOutput<typeof WebDatasourceBody>;

/**
 * `POST /datasources`, multipart form: the text fields beside `file` (4.7).
 * The file's type is checked with `uploadMimeTypeOf`.
 */
export const FileDatasourceFields = jsonObject(
  {
    type: v.optional(v.literal('file', 'must be file')),
    datastoreId: nonEmptyText(),
    fileName: v.optional(text()),
    custom_id: v.optional(text()),
  },
  objectMessage,
);
export type FileDatasourceFields = v.InferOutput<typeof FileDatasourceFields>;

/** Deprecated `POST /external/datastores/file-upload/{datastoreId}`: the text fields beside `file` (4.8). */
export const FileUploadFields = jsonObject(
  {
    fileName: v.optional(text()),
    /** The caller's own id for the file. */
    custom_id: v.optional(text()),
  },
  objectMessage,
);
export type FileUploadFields = v.InferOutput<typeof FileUploadFields>;

/** Deprecated `POST /datastores/upsert/{datastoreId}` (4.8). */
export const UpsertDocumentsBody = jsonObject(
  {
    documents: v.pipe(
      v.array(
        jsonObject(
          {
            text: nonEmptyText(),
            name: v.optional(text()),
            /** For example `source`, `author`, `date`. */
            metadata: v.optional(metadataObject()),
          },
          'must be an object',
        ),
        'must be an array',
      ),
      v.minLength(1, 'must hold at least one document'),
    ),
  },
  objectMessage,
);
export type UpsertDocumentsBody = v.InferOutput<typeof UpsertDocumentsBody>;

/** Deprecated `POST /datastores/update/{datastoreId}` (4.8). */
export const UpdateDocumentBody = jsonObject(
  {
    /** The datasource to update. */
    id: nonEmptyText(),
    text: nonEmptyText(),
    name: v.optional(text()),
    metadata: v.optional(v.nullable(metadataObject())),
  },
  objectMessage,
);
export type UpdateDocumentBody = v.InferOutput<typeof UpdateDocumentBody>;

/** `POST /v1/datastores/{datastoreId}/upsert` (4.9). */
export const V1UpsertBody = jsonObject(
  {
    documents: v.pipe(
      v.array(
        jsonObject(
          {
            /** Present: replaces the document with this id. */
            id: v.optional(nonEmptyText()),
            text: nonEmptyText(),
            metadata: v.optional(metadataObject()),
          },
          'must be an object',
        ),
        'must be an array',
      ),
      v.minLength(1, 'must hold at least one document'),
    ),
  },
  objectMessage,
);
export type V1UpsertBody = v.InferOutput<typeof V1UpsertBody>;

/** The query string of a list (section 7's `meta`), as parsed values: the page (from 1) and how many per page. */
export const ListQuery = jsonObject({
  page: v.optional(wholeNumberFrom(1)),
  limit: v.optional(wholeNumberFrom(1)),
});
export type ListQuery = v.InferOutput<typeof ListQuery>;

/** The query string of `GET /v1/agents/{agentId}/conversations` (4.9), as parsed values. */
export const ConversationsQuery = jsonObject({
  limit: v.optional(wholeNumberFrom(1)),
  /** Only conversations after this date (ISO 8601). */
  after: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.check((s) => !Number.isNaN(Date.parse(s)), 'must be a date (ISO 8601)'),
      v.metadata({ format: 'date-time' }),
    ),
  ),
});
export type ConversationsQuery = v.InferOutput<typeof ConversationsQuery>;

// One check per body, each returning every invalid field with its reason.

export const checkAgentQuery = (input: unknown, options: CheckOptions = {}): CheckResult<AgentQueryBody> =>
  checkWith(options.strictModelNames ? StrictAgentQueryBody : AgentQueryBody, input);
export const checkAgentUpdate = (input: unknown, options: CheckOptions = {}): CheckResult<AgentUpdateBody> =>
  checkWith(options.strictModelNames ? StrictAgentUpdateBody : AgentUpdateBody, input);
export const checkAgentCreate = (input: unknown, options: CheckOptions = {}): CheckResult<AgentCreateBody> =>
  checkWith(options.strictModelNames ? StrictAgentCreateBody : AgentCreateBody, input);
export const checkDatastoreCreate = (input: unknown): CheckResult<DatastoreCreateBody> => checkWith(DatastoreCreateBody, input);
export const checkEmptyBody = (input: unknown): CheckResult<EmptyBody> => checkWith(EmptyBody, input);
export const checkDatastoreQuery = (input: unknown): CheckResult<DatastoreQueryBody> => checkWith(DatastoreQueryBody, input);
export const checkDatastoreUpdate = (input: unknown): CheckResult<DatastoreUpdateBody> => checkWith(DatastoreUpdateBody, input);
export const checkWebDatasource = (input: unknown): CheckResult<WebDatasourceBody> => checkWith(WebDatasourceBody, input);
export const checkFileDatasourceFields = (input: unknown): CheckResult<FileDatasourceFields> => checkWith(FileDatasourceFields, input);
export const checkFileUploadFields = (input: unknown): CheckResult<FileUploadFields> => checkWith(FileUploadFields, input);
export const checkUpsertDocuments = (input: unknown): CheckResult<UpsertDocumentsBody> => checkWith(UpsertDocumentsBody, input);
export const checkUpdateDocument = (input: unknown): CheckResult<UpdateDocumentBody> => checkWith(UpdateDocumentBody, input);
export const checkV1Upsert = (input: unknown): CheckResult<V1UpsertBody> => checkWith(V1UpsertBody, input);
export const checkConversationsQuery = (input: unknown): CheckResult<ConversationsQuery> => checkWith(ConversationsQuery, input);
