// Findings of a fuzz run over the interface: what the emulator answers to a
// caller-chosen document id with a data folder, and to bodies that are not a
// JSON object (or no body where one is required). Each is refused (or done) with the service's error shape,
// never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestEmulator, tempDataDir, type TestEmulator } from '../fixtures/emulator/harness.js';

/** Asserts the documented error shape, `{error: {code, message}}`, with this status. */
async function assertError(response: Response, status: number, message: RegExp): Promise<void> {
  const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
  assert.equal(response.status, status, JSON.stringify(body));
  assert.equal(typeof body.error?.code, 'string');
  assert.match(String(body.error?.message), message);
}

describe('documents with caller-chosen ids, in a data folder', () => {
  const data = tempDataDir();
  let emulator: TestEmulator;
  before(async () => {
    emulator = await startTestEmulator({ dataDir: data.dir });
  });
  after(async () => {
    await emulator?.close();
    data.cleanup();
  });

  for (const id of ['doc.1', '../escape', 'a/b c', 'é'.repeat(300)]) {
    test(`a document upserted as ${JSON.stringify(id.length > 20 ? `${id.slice(0, 8)}… (${id.length} characters)` : id)} is deleted, and then its datastore, without a 500`, async () => {
      const datastore = await emulator.client.datastores.create({ name: 'Caller ids' });
      const upsert = await emulator.api('POST', `/v1/datastores/${datastore.id}/upsert`, { documents: [{ id, text: 'The ferry leaves the north pier at nine.' }] });
      assert.equal(upsert.status, 200, await upsert.clone().text());
      assert.deepEqual(((await upsert.json()) as { ids: string[] }).ids, [id]);
      const deleted = await emulator.api('DELETE', `/datasources/${encodeURIComponent(id)}`);
      assert.equal(deleted.status, 200, await deleted.clone().text());
      assert.equal((await emulator.api('GET', `/datasources/${encodeURIComponent(id)}`)).status, 404);

      await emulator.api('POST', `/v1/datastores/${datastore.id}/upsert`, { documents: [{ id, text: 'Again: the ferry leaves at nine.' }] });
      const gone = await emulator.api('DELETE', `/datastores/${datastore.id}`);
      assert.equal(gone.status, 200, await gone.clone().text());
      assert.equal((await emulator.api('GET', `/datasources/${encodeURIComponent(id)}`)).status, 404);
    });
  }
});

describe('bodies that are not a JSON object', () => {
  let emulator: TestEmulator;
  before(async () => {
    emulator = await startTestEmulator();
  });
  after(() => emulator?.close());

  // Bytes, not a string: fetch sends a string as text/plain when no type is given.
  const send = (method: string, path: string, body: string, type?: string) =>
    fetch(emulator.url + path, { method, headers: { Authorization: `Bearer ${emulator.demo.apiKey}`, ...(type ? { 'Content-Type': type } : {}) }, body: new TextEncoder().encode(body) });

  test('a DELETE body of [] is refused, not read as the empty object, and deletes nothing', async () => {
    const datastore = await emulator.client.datastores.create({ name: 'Kept' });
    await assertError(await send('DELETE', `/datastores/${datastore.id}`, '[]', 'application/json'), 400, /must be a JSON object, not an array/);
    assert.equal((await emulator.api('GET', `/datastores/${datastore.id}`)).status, 200);
  });

  for (const [body, what] of [
    ['null', 'null'],
    ['"a question"', 'a string'],
    ['42', 'a number'],
    ['[{"name": "x"}]', 'an array'],
  ] as const) {
    test(`a POST body of ${body} is refused as ${what}`, async () => {
      await assertError(await send('POST', '/datastores', body, 'application/json'), 400, new RegExp(`must be a JSON object, not ${what}`));
    });
  }

  test('a body sent as another type than JSON is refused, even when it holds JSON', async () => {
    for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      await assertError(await send('POST', '/datastores', '{"name": "Typed"}', type), 400, /must be JSON \(Content-Type: application\/json\)/);
    }
    const listed = (await (await emulator.api('GET', '/datastores')).json()) as { name: string }[] | { data?: { name: string }[] };
    assert.ok(!JSON.stringify(listed).includes('"Typed"'), 'nothing was created');
  });

  test('JSON with its type (with a charset, or a +json type) or with none is read', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json', undefined]) {
      const response = await send('POST', '/datastores', JSON.stringify({ name: `Typed ${type}` }), type);
      assert.equal(response.status, 201, `${type}: ${await response.text()}`);
    }
  });

  test('an empty or blank body is refused where openapi.json requires a body, and changes nothing; a delete may leave its body out', async () => {
    const agent = await emulator.client.agents.create({ name: 'Unchanged', datastoreIds: [] });
    const datastore = await emulator.client.datastores.create({ name: 'Unchanged' });
    for (const [path, body, type] of [
      [`/agents/${agent.id}`, '', 'application/json'],
      [`/agents/${agent.id}`, ' \n', 'application/json'],
      [`/datastores/${datastore.id}`, '', 'application/json'],
      [`/datastores/${datastore.id}`, '', 'text/plain'],
      [`/datastores/${datastore.id}`, '', undefined],
    ] as const) {
      await assertError(await send('PATCH', path, body, type), 400, /body is empty/);
    }
    assert.equal((await emulator.client.agents.get(agent.id)).name, 'Unchanged');
    assert.equal((await emulator.client.datastores.get(datastore.id)).name, 'Unchanged');
    for (const path of [`/agents/${agent.id}`, `/datastores/${datastore.id}`]) {
      const deleted = await send('DELETE', path, '');
      assert.equal(deleted.status, 200, await deleted.text());
    }
  });

  test('a body that is not JSON at all is refused with the error shape', async () => {
    await assertError(await send('POST', '/datastores', '{"name": ', 'application/json'), 400, /not valid JSON/);
  });
});
