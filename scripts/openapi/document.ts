// Builds the service interface as an OpenAPI 3.1 document from the protocol's
// valibot schemas and the table of operations. `npm run build` writes it to
// openapi.json (shipped as `kagent-chat/openapi.json`); a test rebuilds it and
// compares, so the file never drifts from the schemas.
import { toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { DONE_EVENT, EVENT_STREAM_HEADERS, UPLOAD_MIME_TYPES, answerEvent, endpointResponseEvent } from '../../src/protocol/index.js';
import { OPERATIONS, SCHEMAS, type OperationRow } from './operations.js';

type Json = Record<string, unknown>;
type Item = { kind: string; type: string; [key: string]: unknown };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A rule written as code (a `custom` schema, a `check` action) has no JSON
 * Schema form of its own: the protocol gives it in a `v.metadata` beside it.
 * Refuses a schema where one is missing, rather than documenting less than
 * the service checks.
 */
export function assertRulesHaveForms(schema: Item, where: string): void {
  let root = schema;
  if (Array.isArray(schema.pipe)) {
    const items = flatten(schema.pipe as Item[]);
    // Conversion starts at the last schema of a pipe (jsonObject's array guard comes before its object).
    const start = items.findLastIndex((item) => item.kind === 'schema');
    const tail = items.slice(start);
    root = tail[0]!;
    const coded = root.type === 'custom' || tail.some((item) => item.kind !== 'schema' && item.type === 'check');
    if (coded && !tail.some((item) => item.type === 'metadata')) throw new Error(`${where}: a rule written as code has no JSON Schema form; add v.metadata({...}) beside it`);
  } else if (schema.type === 'custom') {
    throw new Error(`${where}: a custom schema has no JSON Schema form; pipe it with v.metadata({...})`);
  }
  const children: [string, Item][] = [];
  if (root.entries) for (const [key, entry] of Object.entries(root.entries as Record<string, Item>)) children.push([`${where}.${key}`, entry]);
  for (const key of ['item', 'wrapped', 'key', 'value', 'rest'] as const) if (root[key]) children.push([`${where}.${key}`, root[key] as Item]);
  if (Array.isArray(root.options)) for (const [i, option] of (root.options as unknown[]).entries()) if (typeof option === 'object') children.push([`${where}|${i}`, option as Item]);
  for (const [path, child] of children) assertRulesHaveForms(child, path);
}

function flatten(pipe: Item[]): Item[] {
  return pipe.flatMap((item) => (Array.isArray(item.pipe) ? flatten(item.pipe as Item[]) : [item]));
}

const conversion: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'output',
  // Their form comes from the metadata beside them (checked by assertRulesHaveForms).
  overrideSchema: ({ valibotSchema, jsonSchema }) => (valibotSchema.type === 'custom' ? jsonSchema : undefined),
  overrideAction: ({ valibotAction, jsonSchema }) => (valibotAction.type === 'check' ? jsonSchema : undefined),
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
};

/** Drops the empty `required: []` the converter writes for objects with only optional fields. */
function tidy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(tidy) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'required' && Array.isArray(inner) && inner.length === 0) continue;
    out[key] = tidy(inner);
  }
  return out as T;
}

function convert(schemas: Record<string, v.GenericSchema>): Record<string, JsonSchema> {
  for (const [name, schema] of Object.entries(schemas)) assertRulesHaveForms(schema as unknown as Item, name);
  return tidy(toJsonSchemaDefs(schemas, conversion));
}

/** One message of the answer stream, as an SSE parser hands it over (section 6, and wire-format of the real service). */
const STREAM_EVENT: Json = {
  description:
    'One server-sent event of a streamed answer. `answer` and `endpoint_response` data are URI-encoded (`encodeURIComponent`), so a line break never splits a `data:` line; `[DONE]` and `[ERROR]` lines are not encoded and end the stream under any event name.',
  anyOf: [
    { title: 'answer', type: 'object', required: ['event', 'data'], properties: { event: { const: 'answer' }, data: { type: 'string', description: 'A piece of the answer, URI-encoded. Decoded and concatenated in order they give the answer.' } } },
    {
      title: 'endpoint_response',
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'endpoint_response' },
        data: { type: 'string', description: 'A piece of the whole JSON answer (`AgentQueryAnswer`: sources, conversationId, visitorId), URI-encoded. Join every piece, decode, then parse.' },
      },
    },
    { title: 'tool_call', type: 'object', required: ['event', 'data'], properties: { event: { const: 'tool_call' }, data: { type: 'string', description: 'A tool call as URI-encoded JSON (`type`, `name`, `arguments`). Clients may pass it over.' } } },
    { title: 'done', type: 'object', required: ['data'], properties: { event: { const: '' }, data: { const: '[DONE]', description: 'The answer is complete.' } } },
    { title: 'error', type: 'object', required: ['data'], properties: { event: { const: '' }, data: { type: 'string', pattern: '^\\[ERROR\\]', description: 'An error after the stream opened: `[ERROR]` then a code (`USAGE_LIMIT`, `NOT_FOUND`) or a message. The answer so far is incomplete.' } } },
  ],
};

const STREAM_EXAMPLE =
  answerEvent('Refunds take ') +
  answerEvent('5 working days.') +
  endpointResponseEvent(JSON.stringify({ answer: 'Refunds take 5 working days.', conversationId: 'c1', visitorId: 'v1', sources: [{ datasource_id: 'ds1', datasource_name: 'refunds.md', score: 0.82 }] })) +
  DONE_EVENT;

const errorResponse = (description: string, headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref('Error') } },
});

const RESPONSES: Record<string, Json> = {
  BadRequest: errorResponse('Invalid parameters or body: the message names every field to fix (section 7).'),
  Unauthorized: errorResponse('Missing, invalid or revoked API key.'),
  UsageLimit: errorResponse('A streamed query when the usage limit is reached: the stream does not open (code `USAGE_LIMIT`).'),
  Forbidden: errorResponse("A valid key without the permission: another organization's resource, a role or a plan tier."),
  NotFound: errorResponse('No such resource (or endpoint).'),
  PayloadTooLarge: errorResponse('The body is larger than the limit (JSON 5 MB in the emulator; uploads their own limit).'),
  RateLimited: errorResponse('Rate limit exceeded (section 8: 60 requests a minute on Free, 300 on Pro).', {
    'Retry-After': { description: 'Seconds to wait before the next request.', schema: { type: 'integer', minimum: 0 } },
  }),
  ServerError: errorResponse('Server-side error.'),
  BadGateway: errorResponse('The language model that writes the answers failed (emulator with `llmUrl`).'),
  Unavailable: errorResponse('The server is shutting down.'),
};

const STATUS_RESPONSE: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 402: 'UsageLimit', 403: 'Forbidden', 404: 'NotFound', 413: 'PayloadTooLarge', 429: 'RateLimited', 500: 'ServerError', 502: 'BadGateway', 503: 'Unavailable' };

function statusesOf(row: OperationRow): number[] {
  const hasInput = Boolean(row.json || row.form || row.query);
  if (row.ok.document) return [500, 503];
  const statuses = row.open ? [404] : [400, 401, 403, 404, 429];
  if (row.json || row.form) statuses.push(413);
  if (!hasInput && !row.open) statuses.splice(statuses.indexOf(400), 1);
  statuses.push(...(row.more ?? []), 500, 503);
  return statuses.sort((a, b) => a - b);
}

function operationOf(row: OperationRow, schemas: Record<string, JsonSchema>): Json {
  const parameters: Json[] = [];
  for (const [name, description] of Object.entries(row.params ?? {})) parameters.push({ name, in: 'path', required: true, description, schema: { type: 'string', minLength: 1 } });
  if (row.query) {
    const query = convert({ Query: row.query }).Query as { properties: Record<string, JsonSchema>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties)) parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
  }
  const content: Json = {};
  if (row.form) {
    const fields = schemas[row.form] as { properties: Json; required?: string[] };
    content['multipart/form-data'] = {
      schema: {
        type: 'object',
        required: ['file', ...(fields.required ?? [])],
        properties: { ...fields.properties, file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file: one of the eight types of `encoding` (by its part type, or its name ending when that is `application/octet-stream`).' } },
      },
      encoding: { file: { contentType: UPLOAD_MIME_TYPES.join(', ') } },
    };
  }
  if (row.json) content['application/json'] = { schema: ref(row.json) };
  const ok: Json = {};
  if (row.ok.json) ok['application/json'] = { schema: ref(row.ok.json) };
  if (row.ok.eventStream) ok['text/event-stream'] = { schema: { type: 'string' }, example: STREAM_EXAMPLE, 'x-itemSchema': ref('AgentStreamEvent') };
  // The stored bytes as uploaded, whatever they hold.
  if (row.ok.file) for (const type of UPLOAD_MIME_TYPES) ok[type] = {};
  if (row.ok.document) ok['application/json'] = { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } };
  const okDescription = row.ok.eventStream
    ? `The answer. With \`streaming: true\`, an event stream instead (\`${EVENT_STREAM_HEADERS['Content-Type']}\`, section 6): \`answer\` pieces, \`endpoint_response\` pieces, then \`[DONE]\`; see \`AgentStreamEvent\`.`
    : row.ok.status === 201
      ? 'Created.'
      : 'Done.';
  const responses: Json = { [row.ok.status]: { description: okDescription, content: ok } };
  for (const status of statusesOf(row)) responses[status] = { $ref: `#/components/responses/${STATUS_RESPONSE[status]}` };
  return {
    operationId: row.operationId,
    summary: row.summary,
    description: row.section
      ? `Interface description, section ${row.section}.`
      : "Not in the interface description (section 4.10): the emulator's design, which the typed client (`kagent-chat/client`) also calls.",
    tags: [row.tag],
    ...(row.deprecated ? { deprecated: true } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(row.json || row.form ? { requestBody: { required: row.json !== 'EmptyRequest', content } } : {}),
    responses,
    ...(row.open ? { security: [] } : {}),
    ...(row.section ? {} : { 'x-not-in-interface-description': true }),
  };
}

/** The whole document. */
export function buildOpenApiDocument(): Json {
  const schemas = convert(SCHEMAS);
  const paths: Record<string, Json> = {};
  for (const row of OPERATIONS) (paths[row.path] ??= {})[row.method] = operationOf(row, schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Knowledge-Agent Service',
      version: '1.0.0',
      summary: 'Agents answer questions grounded in datastores of files and web pages; datastores answer similarity queries.',
      description: [
        'The interface of the Knowledge-Agent Service as kagent-chat knows it, generated from the valibot schemas of `kagent-chat/protocol` (do not edit by hand).',
        '',
        'Every request carries `Authorization: Bearer <API key>`; keys are for servers only. Bodies are JSON, except uploads (`multipart/form-data`). Every path is answered both unversioned and under `/v1` (the two servers).',
        'Errors have one shape, `Error`: `{"error": {"code": "UNAUTHORIZED", "message": "..."}}`. A 429 carries `Retry-After`.',
        '`POST /agents/{id}/query` with `streaming: true` answers with server-sent events: see `AgentStreamEvent`.',
        'Operations marked `x-not-in-interface-description` are the emulator\'s (`kagent-emulator`) and the typed client\'s design where the description shows none (creating and listing agents and datastores, reading one record).',
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: '{baseUrl}', description: 'Unversioned paths.', variables: { baseUrl: { default: 'http://127.0.0.1:8787', description: "The service's base address (the emulator's default shown)." } } },
      { url: '{baseUrl}/v1', description: 'The same paths under /v1, recommended for production.', variables: { baseUrl: { default: 'http://127.0.0.1:8787' } } },
    ],
    security: [{ bearer: [] }],
    tags: [
      { name: 'Agents', description: 'AI Employees: answer questions from their datastores.' },
      { name: 'Datastores', description: 'Searchable collections of datasources.' },
      { name: 'Datasources', description: 'The files and web pages a datastore is made of.' },
      { name: 'Documents', description: 'Deprecated document endpoints (section 4.8).' },
      { name: 'Emulator', description: "The emulator's own: stored files and this document. No key." },
    ],
    paths,
    components: {
      schemas: { ...schemas, AgentStreamEvent: STREAM_EVENT },
      responses: RESPONSES,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key of the organization: `Authorization: Bearer <API key>`.' } },
    },
  };
}

/** The document as written to openapi.json. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
