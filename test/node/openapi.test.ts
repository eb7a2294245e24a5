// openapi.json (kagent-chat/openapi.json): a valid OpenAPI 3.1 document, the
// one the protocol's schemas make, with every endpoint of the interface
// description; what it allows the protocol's checks accept; and the contract
// check that the emulator tests run every answer through catches answers off it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import fc from 'fast-check';
import * as v from 'valibot';
import { assertRulesHaveForms, buildOpenApiDocument } from '../../scripts/openapi/document.js';
import { SCHEMAS } from '../../scripts/openapi/operations.js';
import { DONE_EVENT, answerEvent, endpointResponseEvent } from '../../src/protocol/index.js';
import { startTestEmulator } from '../fixtures/emulator/harness.js';
import { valueOf } from '../support/openapi-arbitraries.js';
import { checkedHandler, openApiDocument, validatorAt } from '../support/openapi-contract.js';

const committed = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');

describe('openapi.json', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(committed));
    assert.equal(validator.version, '3.1');
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  });

  test('is what the protocol schemas make: run `npm run openapi` after changing them', () => {
    assert.deepEqual(JSON.parse(committed), buildOpenApiDocument());
  });

  test('every reference resolves and every schema compiles as JSON Schema 2020-12', () => {
    const refs = new Set<string>();
    JSON.stringify(openApiDocument, (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string') refs.add(value);
      return value;
    });
    for (const ref of refs) {
      const [, group, name] = /^#\/components\/(schemas|responses)\/(.+)$/.exec(ref) ?? [];
      assert.ok(group && (openApiDocument.components as Record<string, Record<string, unknown>>)[group]![name!], `${ref} resolves`);
    }
    for (const name of Object.keys(openApiDocument.components.schemas)) assert.equal(typeof validatorAt(`/components/schemas/${name}`), 'function');
  });

  test('has every endpoint of the interface description (4.1 to 4.9), under the key, with the error shape', () => {
    const endpoints = [
      'post /agents/{id}/query',
      'patch /agents/{id}',
      'delete /agents/{id}',
      'post /datastores/{id}/query',
      'patch /datastores/{id}',
      'delete /datastores/{id}',
      'post /datasources',
      'delete /datasources/{id}',
      'post /datastores/upsert/{datastoreId}',
      'post /datastores/update/{datastoreId}',
      'post /external/datastores/file-upload/{datastoreId}',
      'get /agents',
      'post /datastores/{id}/upsert',
      'get /agents/{id}/conversations',
    ];
    for (const endpoint of endpoints) {
      const [method, path] = endpoint.split(' ') as [string, string];
      const operation = openApiDocument.paths[path]?.[method] as unknown as { responses: Record<string, { $ref?: string }>; security?: unknown[]; description: string } | undefined;
      assert.ok(operation, `${endpoint} is in the document`);
      assert.match(operation.description, /Interface description, section 4\./);
      assert.equal(operation.security, undefined, `${endpoint} needs the key`);
      assert.equal(operation.responses['401']?.$ref, '#/components/responses/Unauthorized');
    }
    const streamed = openApiDocument.paths['/agents/{id}/query']!.post!.responses['200']!.content!;
    assert.deepEqual(Object.keys(streamed), ['application/json', 'text/event-stream']);
    assert.deepEqual(Object.keys((openApiDocument.components.schemas.Error as { properties: object }).properties), ['error']);
    const upload = (openApiDocument.paths['/datasources']!.post as unknown as { requestBody: { content: Record<string, unknown> } }).requestBody.content;
    assert.deepEqual(Object.keys(upload), ['multipart/form-data', 'application/json']);
  });

  test('refuses to document a rule written as code without its JSON Schema form', () => {
    const bare = v.object({ id: v.custom<string>((x) => typeof x === 'string') });
    assert.throws(() => assertRulesHaveForms(bare as never, 'Bare'), /Bare\.id: a custom schema has no JSON Schema form/);
    const checked = v.object({ id: v.pipe(v.string(), v.check((s) => s.length > 2)) });
    assert.throws(() => assertRulesHaveForms(checked as never, 'Checked'), /Checked\.id: a rule written as code/);
  });

  test("every body the document allows, the protocol's check accepts", () => {
    const requests = Object.keys(SCHEMAS).filter((name) => /Request$|Fields$/.test(name)) as (keyof typeof SCHEMAS)[];
    assert.ok(requests.length >= 12);
    for (const name of requests) {
      const allowed = validatorAt(`/components/schemas/${name}`);
      fc.assert(
        fc.property(
          valueOf({ $ref: `#/components/schemas/${name}` }).filter((body) => allowed(body)),
          (body) => {
            const result = v.safeParse(SCHEMAS[name], body);
            assert.ok(result.success, `${name} ${JSON.stringify(body)}: ${result.issues?.map((issue) => `${v.getDotPath(issue)} ${issue.message}`).join('; ')}`);
          },
        ),
        { numRuns: 60, seed: 25 },
      );
    }
  });
});

describe('the contract check', () => {
  const answer = (body: BodyInit, status = 200, type = 'application/json') => async () => new Response(body, { status, headers: { 'Content-Type': type } });
  async function problemsOf(method: string, path: string, handler: () => Promise<Response>): Promise<string[]> {
    const problems: string[] = [];
    const response = await checkedHandler(handler, (problem) => problems.push(problem))(new Request(`http://emulator.test${path}`, { method }));
    await response.text();
    return problems;
  }

  test('passes answers as the document gives them, under /v1 too', async () => {
    assert.deepEqual(await problemsOf('GET', '/v1/agents/a1', answer(JSON.stringify({ id: 'a1', name: 'Support', visibility: 'public' }))), []);
    assert.deepEqual(await problemsOf('DELETE', '/datasources/doc.1', answer(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'No datasource doc.1.' } }), 404)), []);
    assert.deepEqual(await problemsOf('GET', '/nowhere', answer(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'No endpoint.' } }), 404)), []);
    const stream = answerEvent('Hi') + endpointResponseEvent(JSON.stringify({ answer: 'Hi', conversationId: 'c', visitorId: 'v', sources: [] })) + DONE_EVENT;
    assert.deepEqual(await problemsOf('POST', '/agents/a1/query', answer(stream, 200, 'text/event-stream')), []);
  });

  test('names an answer with a missing field, an unlisted status, another content type or an error off the shape', async () => {
    assert.match((await problemsOf('GET', '/agents/a1', answer(JSON.stringify({ name: 'Support' }))))[0] ?? '', /must have required property 'id'/);
    assert.match((await problemsOf('GET', '/agents/a1', answer('{}', 418)))[0] ?? '', /status 418 is not among getAgent's responses/);
    assert.match((await problemsOf('GET', '/agents/a1', answer('<p>hi</p>', 200, 'text/html')))[0] ?? '', /content type text\/html/);
    assert.match((await problemsOf('PATCH', '/agents/a1', answer(JSON.stringify({ error: 'bad' }), 400)))[0] ?? '', /must be object/);
    assert.match((await problemsOf('GET', '/nowhere', answer('{}', 500)))[0] ?? '', /500 for a path the document does not have/);
  });

  test('names a stream that ends without [DONE] or whose endpoint_response is not an answer', async () => {
    assert.match((await problemsOf('POST', '/agents/a1/query', answer(answerEvent('Hi'), 200, 'text/event-stream')))[0] ?? '', /closed without \[DONE\]/);
    const odd = endpointResponseEvent(JSON.stringify({ answer: 'Hi' })) + DONE_EVENT;
    assert.match((await problemsOf('POST', '/agents/a1/query', answer(odd, 200, 'text/event-stream')))[0] ?? '', /endpoint_response.*conversationId/);
    assert.match((await problemsOf('POST', '/agents/a1/query', answer('event: surprise\ndata: x\n\n' + DONE_EVENT, 200, 'text/event-stream')))[0] ?? '', /stream message/);
  });

  test('sees every answer of an emulator the harness starts, and the emulator serves the document', async () => {
    const emulator = await startTestEmulator();
    try {
      const before = emulator.answersChecked();
      const served = await fetch(`${emulator.url}/openapi.json`);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('access-control-allow-origin'), '*');
      const document = (await served.json()) as { servers: { url: string }[]; paths: object };
      assert.deepEqual(document.servers.map((server) => server.url), [emulator.url, `${emulator.url}/v1`]);
      assert.deepEqual(document.paths, openApiDocument.paths);
      await emulator.client.agents.list();
      await emulator.api('GET', '/v1/agents', undefined, null);
      assert.equal(emulator.answersChecked() - before, 3);
      assert.deepEqual(emulator.contractProblems, []);
    } finally {
      await emulator.close();
    }
  });
});
