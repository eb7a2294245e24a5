/**
 * The Knowledge-Agent Service interface as code: records, request bodies and
 * their checks, model identifiers, error shapes and the stream decoder.
 * No DOM and no Node API: the widget, the proxy, the client and the emulator
 * all build on it.
 */
export * from './models.js';
export * from './uploads.js';
export {
  DATASOURCE_STATUSES,
  DATASOURCE_TYPES,
  DATASTORE_TYPES,
  PROMPT_TYPES,
  VISIBILITIES,
  jsonObject,
  oneOf,
  textList,
  type DatasourceStatus,
  type DatasourceType,
  type DatastoreType,
  type PromptType,
  type Visibility,
} from './fields.js';
export * from './check.js';
export * from './records.js';
export * from './answer.js';
export * from './requests.js';
export * from './query-ids.js';
export * from './errors.js';
export * from './stream.js';
export * from './event-stream.js';
export * from './stream-writer.js';
export * from './sessions/index.js';
export * from './features.js';
