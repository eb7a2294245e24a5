import * as v from 'valibot';
import { MODEL_NAMES, isKnownModelName, type ModelName } from './models.js';

// Field rules shared by the records and the request bodies, with messages a
// caller can act on. A rule written as code (`custom`, `check`) carries its
// JSON Schema form in `v.metadata`, for the OpenAPI document (openapi.json).

export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** Deprecated in favour of `systemPrompt` and `userPrompt`. */
export const PROMPT_TYPES = ['raw', 'customer_support'] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];

export const DATASTORE_TYPES = ['qdrant'] as const;
export type DatastoreType = (typeof DATASTORE_TYPES)[number];

/** Datasource types a client may create. */
export const DATASOURCE_TYPES = ['file', 'web_page', 'web_site'] as const;
export type DatasourceType = (typeof DATASOURCE_TYPES)[number];

/**
 * Datasource states. The interface description shows only `unsynched`; the
 * others are the service's own (`pending` while queued, `running` while
 * ingesting, then `synched` or `error`).
 */
export const DATASOURCE_STATUSES = ['unsynched', 'pending', 'running', 'synched', 'error', 'usage_limit_reached'] as const;
export type DatasourceStatus = (typeof DATASOURCE_STATUSES)[number];

export const text = () => v.string('must be a string');

/** A string with something besides white space (`\\S` is the complement of what `trim` removes). */
export const nonEmptyText = () => v.pipe(v.string('must be a string'), v.regex(/\S/, 'must not be empty'));

export const numberBetween = (min: number, max: number) =>
  v.pipe(
    v.number('must be a number'),
    v.minValue(min, `must be between ${min} and ${max}`),
    v.maxValue(max, `must be between ${min} and ${max}`),
  );

export const wholeNumberFrom = (min: number) =>
  v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(min, `must be at least ${min}`));

export const oneOf = <const T extends readonly string[]>(options: T) => v.picklist(options, `must be one of: ${options.join(', ')}`);

/** A field kept for older callers: marked `deprecated` in openapi.json. */
export const deprecated = <S extends v.GenericSchema>(schema: S) => v.pipe(schema, v.metadata({ deprecated: true }));

export const textList = () => v.array(v.string('must be a string'), 'must be an array of strings');

/** `temperature`: 0.0 to 1.0 (section 8). */
export const temperature = () => numberBetween(0, 1);

/** `presencePenalty` and `frequencyPenalty`: -2.0 to 2.0 (section 8). */
export const penalty = () => numberBetween(-2, 2);

/** `topP`: a probability mass. */
export const topP = () => numberBetween(0, 1);

export const httpUrl = () =>
  v.pipe(
    v.string('must be a string'),
    v.check((s) => {
      try {
        const { protocol } = new URL(s);
        return protocol === 'http:' || protocol === 'https:';
      } catch {
        return false;
      }
    }, 'must be an http(s) address'),
    v.metadata({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' }),
  );

/**
 * `modelName`: any non-empty identifier by default, because the real
 * service's list changes; `strict` limits it to section 2's table.
 */
export const modelName = (strict: boolean): v.GenericSchema<unknown, ModelName> =>
  strict
    ? v.pipe(v.custom<ModelName>(isKnownModelName, 'must be one of the model identifiers of section 2 (MODEL_NAMES)'), v.metadata({ type: 'string', enum: MODEL_NAMES }))
    : v.pipe(v.custom<ModelName>((x) => typeof x === 'string' && x.length > 0, 'must be a non-empty string'), v.metadata({ type: 'string', minLength: 1 }));

const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * An object with these entries. Unlike valibot's bare `object`, an array is
 * refused: JSON `[...]` is never a body or a field object here.
 */
export const jsonObject = <const E extends v.ObjectEntries>(entries: E, message = 'must be an object') =>
  v.pipe(v.custom<Record<string, unknown>>(isPlainObject, message), v.object(entries, message));

/** `filters` of agent and datastore queries. */
export const filters = () =>
  jsonObject({
    custom_ids: v.optional(textList()),
    datasource_ids: v.optional(textList()),
  });

export const metadataObject = () => v.pipe(v.custom<Record<string, unknown>>(isPlainObject, 'must be an object'), v.record(v.string(), v.unknown()));
