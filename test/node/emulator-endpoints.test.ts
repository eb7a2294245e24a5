// Every endpoint of the emulator over real HTTP, with the typed client where it has the call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KagentError } from '../../src/client/index.js';
import { fileOf, settled, startTestEmulator, type TestEmulator } from '../fixtures/emulator/harness.js';

let emulator: TestEmulator;
before(async () => {
  emulator = await startTestEmulator();
});
after(() => emulator.close());

async function created(response: Response): Promise<Record<string, any>> {
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()) as Record<string, any>;
}

async function newDatastore(name = 'Handbook'): Promise<string> {
  return (await created(await emulator.api('POST', '/v1/datastores', { name }))).id;
}

describe('agents', () => {
  test('are created, read, listed, updated and deleted, unversioned and under /v1', async () => {
    const datastoreId = await newDatastore();
    const agent = await created(await emulator.api('POST', '/agents', { name: 'Support', datastoreIds: [datastoreId], temperature: 0.2 }));
    assert.equal(agent.name, 'Support');
    assert.equal(agent.visibility, 'private');
    assert.deepEqual(agent.datastoreIds, [datastoreId]);
    assert.equal(typeof agent.modelName, 'string');

    const read = await (await emulator.api('GET', `/v1/agents/${agent.id}`)).json();
    assert.deepEqual(read, agent);

    const list = await emulator.client.agents.list();
    assert.ok(list.data.some((a) => a.id === agent.id));
    assert.equal(list.meta.total, list.data.length);
    assert.equal(list.meta.page, 1);

    const updated = await emulator.client.agents.update(agent.id, { name: 'Helpdesk', visibility: 'public', modelName: 'claude_opus_4_5' });
    assert.equal(updated.name, 'Helpdesk');
    assert.equal(updated.visibility, 'public');
    assert.equal(updated.modelName, 'claude_opus_4_5');
    assert.equal(updated.temperature, 0.2, 'fields not sent stay as they were');

    const deleted = await emulator.client.agents.delete(agent.id);
    assert.equal(deleted.id, agent.id);
    assert.equal((await emulator.api('GET', `/agents/${agent.id}`)).status, 404);
  });

  test('lists page by page with page and limit', async () => {
    for (let i = 0; i < 3; i++) await created(await emulator.api('POST', '/agents', { name: `Paged ${i}` }));
    const first = (await (await emulator.api('GET', '/v1/agents?limit=2&page=1')).json()) as any;
    const second = (await (await emulator.api('GET', '/v1/agents?limit=2&page=2')).json()) as any;
    assert.equal(first.data.length, 2);
    assert.deepEqual(first.meta, { page: 1, limit: 2, total: first.meta.total });
    assert.ok(first.meta.total >= 4);
    assert.notEqual(first.data[0].id, second.data[0].id);
    const bad = await emulator.api('GET', '/v1/agents?limit=zero');
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as any).error.message, /limit must be a whole number/);
  });

  test('refuse an unknown model name and a bad temperature, naming the fields', async () => {
    const response = await emulator.api('POST', '/agents', { name: 'X', modelName: 'gpt-banana', temperature: 1.5 });
    assert.equal(response.status, 400);
    const body = (await response.json()) as any;
    assert.equal(body.error.code, 'INVALID_REQUEST');
    assert.match(body.error.message, /modelName must be one of the model identifiers/);
    assert.match(body.error.message, /temperature must be between 0 and 1/);
    const missing = await emulator.api('POST', '/agents', {});
    assert.match(((await missing.json()) as any).error.message, /name is required/);
  });

  test('delete needs an empty JSON object as its body', async () => {
    const agent = await created(await emulator.api('POST', '/agents', { name: 'Short-lived' }));
    const response = await emulator.api('DELETE', `/agents/${agent.id}`, { force: true });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as any).error.message, /must be an empty JSON object/);
  });
});

describe('datastores and datasources', () => {
  test('are created, read, listed, updated and deleted with their datasources', async () => {
    const datastore = await created(await emulator.api('POST', '/datastores', { name: 'Manuals', description: 'All manuals' }));
    assert.equal(datastore.type, 'qdrant');
    assert.equal(datastore.visibility, 'private');
    assert.deepEqual(await (await emulator.api('GET', `/datastores/${datastore.id}`)).json(), datastore);

    const updated = await emulator.client.datastores.update(datastore.id, { name: 'Manuals 2', description: 'Newer' });
    assert.equal(updated.name, 'Manuals 2');
    const visible = (await (await emulator.api('PATCH', `/v1/datastores/${datastore.id}`, { visibility: 'public' })).json()) as any;
    assert.equal(visible.visibility, 'public');

    const list = (await (await emulator.api('GET', '/v1/datastores')).json()) as any;
    assert.ok(list.data.some((d: any) => d.id === datastore.id));

    const source = await emulator.client.datasources.uploadFile({ datastoreId: datastore.id, file: fileOf('Pumps need oil every month.', 'pumps.txt', 'text/plain') });
    assert.equal(source.status, 'unsynched');
    assert.equal(source.type, 'file');
    assert.equal(source.name, 'pumps.txt');
    assert.match(source.createdAt!, /^\d{4}-\d{2}-\d{2}$/);
    const done = await settled(emulator, source.id);
    assert.equal(done.status, 'synched');
    assert.match(String(done.lastSynch), /^\d{4}-\d{2}-\d{2}$/);

    const sources = (await (await emulator.api('GET', `/v1/datastores/${datastore.id}/datasources`)).json()) as any;
    assert.deepEqual(sources.data.map((d: any) => d.id), [source.id]);
    assert.deepEqual(sources.meta, { page: 1, limit: 20, total: 1 });

    const deleted = await emulator.client.datastores.delete(datastore.id);
    assert.equal(deleted.id, datastore.id);
    assert.equal((await emulator.api('GET', `/datasources/${source.id}`)).status, 404, 'its datasources go with it');
  });

  test('a datasource is deleted with its fragments', async () => {
    const datastoreId = await newDatastore();
    const source = await emulator.client.datasources.uploadFile({ datastoreId, file: fileOf('Valves close clockwise.', 'valves.txt', 'text/plain') });
    await settled(emulator, source.id);
    assert.equal((await emulator.client.datastores.query(datastoreId, { query: 'valves clockwise' })).length, 1);
    const deleted = await emulator.client.datasources.delete(source.id);
    assert.equal(deleted.id, source.id);
    assert.deepEqual(await emulator.client.datastores.query(datastoreId, { query: 'valves clockwise' }), []);
  });

  test('an upload of another type is a 400 listing the accepted types', async () => {
    const datastoreId = await newDatastore();
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastoreId);
    form.set('file', fileOf('<html></html>', 'page.html', 'text/html'));
    const response = await emulator.api('POST', '/datasources', form);
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as any).error.message, /file has type text\/html .*accepted types: text\/csv/);
  });

  test('a web datasource body is checked: bad address, sitemap on a web_page', async () => {
    const datastoreId = await newDatastore();
    const response = await emulator.api('POST', '/datasources', { datastoreId, type: 'web_page', config: { source_url: 'ftp://x', sitemap: 'https://x/sitemap.xml' } });
    assert.equal(response.status, 400);
    const message = ((await response.json()) as any).error.message;
    assert.match(message, /config\.source_url must be an http\(s\) address/);
  });

  test('a datasource for a missing datastore is a 404', async () => {
    const response = await emulator.api('POST', '/datasources', { datastoreId: 'nope', type: 'web_page', config: { source_url: 'https://example.com/' } });
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as any).error.code, 'NOT_FOUND');
  });
});

describe('datastore query', () => {
  test('returns the topK best fragments, best first, scored 0..1, with their datasource', async () => {
    const datastoreId = await newDatastore();
    const { ids } = await emulator.client.documents.upsert(datastoreId, {
      documents: [
        { text: 'To reset your password, open Settings and choose Reset password.', name: 'Account help', metadata: { source: 'https://example.com/account' } },
        { text: 'Invoices are sent on the first day of each month.', name: 'Billing' },
        { text: 'Your password must be twelve characters long.', name: 'Security rules' },
      ],
    });
    assert.equal(ids.length, 3);
    const results = await emulator.client.datastores.query(datastoreId, { query: 'How do I reset my password?', topK: 2 });
    assert.equal(results.length, 2);
    assert.equal(results[0]!.datasource_name, 'Account help');
    assert.equal(results[0]!.datasource_id, ids[0]);
    assert.equal(results[0]!.source, 'https://example.com/account');
    assert.equal(results[0]!.offset, 0);
    assert.ok(results[0]!.score > results[1]!.score);
    for (const result of results) assert.ok(result.score > 0 && result.score <= 1, `score ${result.score} in 0..1`);
    assert.equal(results[1]!.datasource_name, 'Security rules');
  });

  test('honours filters.datasource_ids and filters.custom_ids', async () => {
    const datastoreId = await newDatastore();
    const a = await emulator.client.datasources.uploadFile({ datastoreId, custom_id: 'team-a', file: fileOf('The coffee machine is on floor two.', 'a.txt', 'text/plain') });
    const b = await emulator.client.datasources.uploadFile({ datastoreId, custom_id: 'team-b', file: fileOf('The coffee machine is on floor five.', 'b.txt', 'text/plain') });
    await settled(emulator, a.id);
    await settled(emulator, b.id);
    assert.equal((await emulator.client.datastores.query(datastoreId, { query: 'coffee machine' })).length, 2);
    const byId = await emulator.client.datastores.query(datastoreId, { query: 'coffee machine', filters: { datasource_ids: [b.id] } });
    assert.deepEqual(byId.map((r) => r.datasource_id), [b.id]);
    const byCustom = await emulator.client.datastores.query(datastoreId, { query: 'coffee machine', filters: { custom_ids: ['team-a'] } });
    assert.deepEqual(byCustom.map((r) => [r.datasource_id, r.custom_id]), [[a.id, 'team-a']]);
    const none = await emulator.client.datastores.query(datastoreId, { query: 'coffee machine', filters: { custom_ids: ['team-a'], datasource_ids: [b.id] } });
    assert.deepEqual(none, []);
    const kept = (await (await emulator.api('GET', `/datasources/${a.id}`)).json()) as any;
    assert.equal(kept.custom_id, 'team-a');
  });

  test('refuses a bad topK naming the field', async () => {
    const datastoreId = await newDatastore();
    const response = await emulator.api('POST', `/datastores/${datastoreId}/query`, { query: 'x', topK: 0 });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as any).error.message, /topK must be at least 1/);
  });
});

describe('document endpoints', () => {
  test('the deprecated update replaces a document and the v1 upsert replaces by id', async () => {
    const datastoreId = await newDatastore();
    const { ids } = await emulator.client.documents.upsert(datastoreId, { documents: [{ text: 'The shop opens at nine.', name: 'Hours' }] });
    const id = ids[0]!;
    assert.deepEqual(await emulator.client.documents.update(datastoreId, { id, text: 'The shop opens at ten on Sundays.' }), { id });
    const results = await emulator.client.datastores.query(datastoreId, { query: 'shop opens Sundays' });
    assert.equal(results[0]!.text, 'The shop opens at ten on Sundays.');

    const upserted = (await emulator.client.datastores.upsert(datastoreId, { documents: [{ id, text: 'The shop is closed in August.' }, { text: 'Parking is free.' }] })) as { ids: string[] };
    assert.equal(upserted.ids[0], id);
    assert.equal(upserted.ids.length, 2);
    const sources = (await (await emulator.api('GET', `/datastores/${datastoreId}/datasources`)).json()) as any;
    assert.equal(sources.meta.total, 2);
    assert.equal((await emulator.client.datastores.query(datastoreId, { query: 'Sundays' })).length, 0, 'the old text is gone');
  });

  test('the deprecated file upload creates a datasource and keeps its custom id', async () => {
    const datastoreId = await newDatastore();
    const answer = (await emulator.client.documents.uploadFile(datastoreId, { file: fileOf('Lockers are in the basement.', 'lockers.md', 'text/markdown'), custom_id: 'kb-7' })) as any;
    assert.equal(answer.type, 'file');
    assert.equal(answer.custom_id, 'kb-7');
    await settled(emulator, answer.id);
    const [hit] = await emulator.client.datastores.query(datastoreId, { query: 'lockers basement' });
    assert.equal(hit!.custom_id, 'kb-7');
  });

  test('update of a document not in the datastore is a 404', async () => {
    const datastoreId = await newDatastore();
    const response = await emulator.api('POST', `/datastores/update/${datastoreId}`, { id: 'missing', text: 'x' });
    assert.equal(response.status, 404);
  });
});

describe('keys, organizations and visibility', () => {
  test('a missing, unknown or revoked key is a 401 UNAUTHORIZED that never repeats the key', async () => {
    const none = await emulator.api('GET', '/v1/agents', undefined, null);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as any).error.code, 'UNAUTHORIZED');
    const unknown = await emulator.api('GET', '/v1/agents', undefined, 'not-a-real-key-12345');
    assert.equal(unknown.status, 401);
    assert.doesNotMatch(await unknown.text(), /not-a-real-key/);

    const created = await emulator.emulator.createKey({ label: 'ci' });
    assert.equal((await emulator.api('GET', '/v1/agents', undefined, created.key)).status, 200);
    await emulator.emulator.revokeKey(created.id);
    const revoked = await emulator.api('GET', '/v1/agents', undefined, created.key);
    assert.equal(revoked.status, 401);
    const body = await revoked.text();
    assert.match(body, /revoked/);
    assert.ok(!body.includes(created.key));
    assert.ok(!JSON.stringify(emulator.emulator.listKeys()).includes(created.key), 'a listed key never shows its value');
  });

  test("another organization's resource is 403, a missing one 404; public ones can be read and queried, not changed", async () => {
    const other = await emulator.emulator.createKey({ newOrganization: { plan: 'pro' } });
    const otherClient = emulator.clientFor(other.key);
    const datastoreId = await newDatastore('Private notes');
    const agent = await created(await emulator.api('POST', '/agents', { name: 'Private', datastoreIds: [datastoreId] }));

    const forbidden = await emulator.api('GET', `/agents/${agent.id}`, undefined, other.key);
    assert.equal(forbidden.status, 403);
    assert.equal(((await forbidden.json()) as any).error.code, 'FORBIDDEN');
    const query = await emulator.api('POST', `/agents/${agent.id}/query`, { query: 'hello' }, other.key);
    assert.equal(query.status, 403);
    assert.equal(((await query.json()) as any).error.code, 'UNAUTHORIZED', 'section 7: on agent query it is reported as unauthorized');
    assert.equal((await emulator.api('POST', `/datastores/${datastoreId}/query`, { query: 'x' }, other.key)).status, 403);
    assert.equal((await emulator.api('GET', '/agents/c-does-not-exist', undefined, other.key)).status, 404);
    const own = await otherClient.agents.list();
    assert.ok(!own.data.some((a) => a.id === agent.id), 'lists show only the own organization');

    await emulator.client.agents.update(agent.id, { visibility: 'public' });
    assert.equal((await emulator.api('GET', `/agents/${agent.id}`, undefined, other.key)).status, 200);
    const answer = await otherClient.agents.query(agent.id, { query: 'hello' });
    assert.equal(typeof answer.answer, 'string');
    await assert.rejects(otherClient.agents.update(agent.id, { name: 'Taken' }), (error: KagentError) => error.status === 403);
    await assert.rejects(otherClient.agents.delete(agent.id), (error: KagentError) => error.status === 403);
    await assert.rejects(otherClient.agents.query(agent.id, { query: 'hello', filters: { custom_ids: ['x'] } }), (error: KagentError) => error.status === 403);
  });
});

describe('routing', () => {
  test('an unknown path is 404 and a wrong method 405, both in the error shape', async () => {
    const missing = await emulator.api('GET', '/v1/nothing-here');
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as any).error.code, 'NOT_FOUND');
    const method = await emulator.api('PUT', `/agents/${emulator.demo.agentId}`, {});
    assert.equal(method.status, 405);
    assert.match(method.headers.get('Allow') ?? '', /PATCH/);
  });

  test('a stored file that is not there is 404 in the error shape, not 500', async () => {
    const response = await emulator.api('GET', '/files/no-such-datasource/notes.md', undefined, null);
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as any).error.code, 'NOT_FOUND');
  });

  test('a body that is not JSON is a 400', async () => {
    const response = await emulator.api('POST', '/v1/agents', '{"name": ');
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as any).error.message, /not valid JSON/);
  });
});
