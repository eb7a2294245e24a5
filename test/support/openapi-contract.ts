// Checks answers against openapi.json (kagent-chat/openapi.json): the status is
// one the operation lists, the content type one it gives for that status, and
// a JSON body matches its schema; an event stream's messages match
// `AgentStreamEvent` and its assembled `endpoint_response` the answer's schema.
// The emulator harness runs every answer of the test suite through it.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { createParser } from 'eventsource-parser';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
  'x-itemSchema'?: Json;
}
interface ResponseObject {
  $ref?: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
}

export const openApiDocument = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; responses: Record<string, ResponseObject> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(openApiDocument, 'openapi.json');
const compiled = new Map<string, ValidateFunction>();

/** A validator for the schema at `pointer` (a JSON pointer into the document). */
export function validatorAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Templates with more literal segments first, as the emulator routes `/datastores/upsert/{id}` before `/datastores/{id}/query`. */
const templates = Object.keys(openApiDocument.paths)
  .map((template) => ({ template, parts: template.split('/').filter(Boolean) }))
  .sort((a, b) => literals(b.parts) - literals(a.parts));

function literals(parts: string[]): number {
  return parts.filter((part) => !part.startsWith('{')).length;
}

/** The path template a request path answers to, with or without `/v1`. */
export function templateOf(pathname: string): string | undefined {
  let segments: string[];
  try {
    segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  if (segments[0] === 'v1') segments = segments.slice(1);
  return templates.find(({ parts }) => parts.length === segments.length && parts.every((part, i) => part.startsWith('{') || part === segments[i]))?.template;
}

const essence = (contentType: string | null) => (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();

function problemsOf(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { dataVar: 'body' });
}

/** What is wrong with a JSON body against the schema at `pointer`, if anything. */
function jsonProblem(text: string, pointer: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `the body is not JSON: ${text.slice(0, 120)}`;
  }
  const validate = validatorAt(pointer);
  return validate(body) ? undefined : `${problemsOf(validate)}: ${text.slice(0, 300)}`;
}

/** Where an answer to `method path` with `status` is described: a pointer to its response object, or why none fits. */
export function responseFor(method: string, pathname: string, status: number): { pointer: string; response: ResponseObject } | { problem: string } {
  const template = templateOf(pathname);
  const errorPointer = '/components/schemas/Error';
  if (!template) {
    return status === 404 ? { pointer: '', response: { content: { 'application/json': { schema: { $ref: `#${errorPointer}` } } } } } : { problem: `${status} for a path the document does not have` };
  }
  const operation = openApiDocument.paths[template]![method.toLowerCase()];
  if (!operation) {
    return status === 405 ? { pointer: '', response: { content: { 'application/json': { schema: { $ref: `#${errorPointer}` } } } } } : { problem: `${status} for a method the document does not list on ${template}` };
  }
  let pointer = `/paths/${escape(template)}/${method.toLowerCase()}/responses/${status}`;
  let response = operation.responses[String(status)];
  if (!response) return { problem: `status ${status} is not among ${operation.operationId}'s responses (${Object.keys(operation.responses).join(', ')})` };
  if (response.$ref) {
    pointer = response.$ref.slice(1);
    response = openApiDocument.components.responses[response.$ref.split('/').pop()!]!;
  }
  return { pointer, response };
}

/** Parts of an answer the checker reads. */
export interface Answer {
  status: number;
  contentType: string | null;
}

/**
 * Checks one answer. JSON and other bodies are checked in full through `text`;
 * an event stream is checked as it passes through `watchStream`, which
 * returns the stream to hand on. Problems go to `report`.
 */
export function checkAnswer(
  method: string,
  pathname: string,
  answer: Answer,
  report: (problem: string) => void,
): { json?: (text: string) => void; stream?: TransformStream<Uint8Array, Uint8Array> } {
  const where = `${method} ${pathname} -> ${answer.status}`;
  const found = responseFor(method, pathname, answer.status);
  if ('problem' in found) {
    report(`${where}: ${found.problem}`);
    return {};
  }
  const type = essence(answer.contentType);
  const media = found.response.content?.[type];
  if (!media) {
    report(`${where}: content type ${answer.contentType ?? '(none)'} is not among ${Object.keys(found.response.content ?? {}).join(', ') || 'none'}`);
    return {};
  }
  const pointer = found.pointer ? `${found.pointer}/content/${escape(type)}/schema` : '/components/schemas/Error';
  if (type === 'application/json' && media.schema) {
    return {
      json: (text) => {
        const problem = jsonProblem(text, pointer);
        if (problem) report(`${where}: ${problem}`);
      },
    };
  }
  if (type === 'text/event-stream') return { stream: streamChecker(where, found.pointer, media, report) };
  return {};
}

/** Reads an event stream as it passes: each message against its item schema, the assembled answer at the end. */
function streamChecker(where: string, responsePointer: string, media: MediaType, report: (problem: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const item = validatorAt(media['x-itemSchema']!.$ref!.toString().slice(1));
  const answerPointer = `${responsePointer}/content/application~1json/schema`;
  const pieces: string[] = [];
  let ended = false;
  const parser = createParser({
    onEvent: (message) => {
      const event = { ...(message.event !== undefined ? { event: message.event } : {}), data: message.data };
      if (!item(event)) report(`${where}: stream message ${JSON.stringify(event).slice(0, 200)}: ${problemsOf(item)}`);
      if (message.event === 'endpoint_response') pieces.push(message.data);
      if (message.data === '[DONE]' || message.data.startsWith('[ERROR]')) ended = true;
    },
  });
  const decoder = new TextDecoder();
  return new TransformStream({
    transform(chunk, controller) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      controller.enqueue(chunk);
    },
    flush() {
      parser.feed(`${decoder.decode()}\n\n`);
      if (!ended) report(`${where}: the stream closed without [DONE] or [ERROR]`);
      if (pieces.length > 0) {
        const problem = jsonProblem(decodeURIComponent(pieces.join('')), answerPointer);
        if (problem) report(`${where}: the assembled endpoint_response: ${problem}`);
      }
    },
  });
}

/** Wraps a Web-standard handler so that each answer is checked; problems go to `report`. */
export function checkedHandler(handler: (request: Request) => Promise<Response>, report: (problem: string) => void): (request: Request) => Promise<Response> {
  return async (request) => {
    const { method } = request;
    const { pathname } = new URL(request.url);
    const response = await handler(request);
    const check = checkAnswer(method, pathname, { status: response.status, contentType: response.headers.get('Content-Type') }, report);
    if (check.json) check.json(await response.clone().text());
    if (check.stream && response.body) {
      return new Response(response.body.pipeThrough(check.stream), { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    return response;
  };
}
