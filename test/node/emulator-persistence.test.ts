// --data-dir: everything survives a restart, and a SIGKILL of a real emulator
// process in the middle of ingestion and of a burst of writes loses nothing
// that was acknowledged.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { createEmulator } from '../../emulator/src/index.js';
import { listen } from '../support/http.js';
import { eventually, fileOf, settled, startTestEmulator, tempDataDir } from '../fixtures/emulator/harness.js';
import { emulatorCommand } from '../support/bundled-commands.js';

const folders: { cleanup(): void }[] = [];
after(() => folders.forEach((folder) => folder.cleanup()));

function folder(): string {
  const made = tempDataDir();
  folders.push(made);
  return made.dir;
}

describe('restart', () => {
  test('agents, datastores, datasources, fragments, conversations and keys survive a restart', async () => {
    const dataDir = folder();
    const first = await startTestEmulator({ dataDir });
    const datastore = (await (await first.api('POST', '/v1/datastores', { name: 'Kept' })).json()) as { id: string };
    const agent = (await (await first.api('POST', '/v1/agents', { name: 'Keeper', datastoreIds: [datastore.id] })).json()) as { id: string };
    const upload = await first.client.datasources.uploadFile({ datastoreId: datastore.id, custom_id: 'c1', file: fileOf('The archive closes at five on Fridays.', 'archive.txt', 'text/plain') });
    await settled(first, upload.id);
    const answer = await first.client.agents.query(agent.id, { query: 'When does the archive close on Fridays?' });
    const kept = await first.emulator.createKey({ label: 'kept', newOrganization: { plan: 'free' } });
    const revoked = await first.emulator.createKey({ label: 'gone' });
    await first.emulator.revokeKey(revoked.key);
    await first.close();

    const second = await startTestEmulator({ dataDir });
    try {
      assert.deepEqual(second.demo, first.demo, 'the same demo organization, key, agent and datastore');
      assert.equal(((await (await second.api('GET', `/agents/${agent.id}`)).json()) as { name: string }).name, 'Keeper');
      const source = (await (await second.api('GET', `/datasources/${upload.id}`)).json()) as { status: string; custom_id: string };
      assert.equal(source.status, 'synched');
      assert.equal(source.custom_id, 'c1');
      const [hit] = await second.client.datastores.query(datastore.id, { query: 'archive Fridays' });
      assert.equal(hit?.datasource_id, upload.id);
      const conversations = await second.client.agents.conversations(agent.id);
      assert.deepEqual(conversations.data.map((c) => c.id), [answer.conversationId]);
      assert.equal((conversations.data[0] as unknown as { messages: unknown[] }).messages.length, 2);
      assert.equal((await second.api('GET', '/v1/agents', undefined, kept.key)).status, 200);
      assert.equal((await second.api('GET', '/v1/agents', undefined, revoked.key)).status, 401);
      const file = await fetch(answer.sources[0]!.source_url!.replace(first.url, second.url));
      assert.equal(await file.text(), 'The archive closes at five on Fridays.');
    } finally {
      await second.close();
    }
    assert.ok(!readFileSync(`${dataDir}/snapshot.json`, 'utf8').includes(kept.key), 'keys are stored hashed');
  });

  test('a torn last journal line (a write cut by a kill) is dropped and the rest is kept', async () => {
    const dataDir = folder();
    const first = createEmulator({ dataDir });
    const key = await first.createKey({ label: 'before the tear' });
    await first.close();
    // The journal as a kill in the middle of a write leaves it.
    appendFileSync(`${dataDir}/journal.jsonl`, '[{"put":"agent","row":{"id":"half');
    const second = createEmulator({ dataDir });
    try {
      assert.ok(second.listKeys().some((k) => k.id === key.id));
      await second.createKey({ label: 'after the tear' });
    } finally {
      await second.close();
    }
    const third = createEmulator({ dataDir });
    try {
      assert.deepEqual(
        third.listKeys().map((k) => k.label).filter((label) => label.includes('tear')).sort(),
        ['after the tear', 'before the tear'],
      );
    } finally {
      await third.close();
    }
  });

  test('a document an upsert left running (killed before its fragments were in) is ingested at the next start', async () => {
    const dataDir = folder();
    const first = createEmulator({ dataDir });
    const { datastoreId, organizationId } = first.demo;
    await first.close();
    // What the journal holds when a kill comes after the upsert committed its row, before its slices.
    const now = new Date().toISOString();
    const row = {
      id: 'doc-cut-off',
      organizationId,
      datastoreId,
      type: 'text',
      name: 'Tides',
      status: 'running',
      errorMessage: null,
      groupId: null,
      custom_id: null,
      config: {},
      text: 'The tide tables are posted at the harbour office every Monday.',
      createdAt: now,
      updatedAt: now,
      lastSynch: now,
    };
    appendFileSync(`${dataDir}/journal.jsonl`, `${JSON.stringify([{ put: 'datasource', row }])}\n`);
    const second = await startTestEmulator({ dataDir });
    try {
      const source = await settled(second, 'doc-cut-off');
      assert.equal(source.status, 'synched');
      const [hit] = await second.client.datastores.query(datastoreId, { query: 'tide tables harbour office' });
      assert.equal(hit?.datasource_id, 'doc-cut-off');
    } finally {
      await second.close();
    }
  });

  test('a second emulator on the same folder is refused while the first runs', async () => {
    const dataDir = folder();
    const first = createEmulator({ dataDir });
    try {
      assert.throws(() => createEmulator({ dataDir }), /in use by another emulator/);
    } finally {
      await first.close();
    }
  });
});

/** Starts `kagent-emulator --json` as its own process and reads the line it prints. */
async function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string; apiKey: string; datastoreId: string }> {
  const child = spawn(process.execPath, [await emulatorCommand(), '--port', '0', '--json', '--pace', '0', '--allow-address', '127.0.0.1', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    new Promise<string>((resolve) => lines.once('line', resolve)),
    new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)))),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('emulator did not start in 20 s')), 20_000).unref()),
  ]);
  return { child, ...(JSON.parse(first) as { url: string; apiKey: string; datastoreId: string }) };
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('kill', () => {
  test('SIGKILL during ingestion loses nothing acknowledged; unfinished ingestion runs again after the restart', async () => {
    const dataDir = folder();
    // A slow site: the crawl is surely running when the kill comes.
    const site = await listen(async (request) => {
      const { pathname } = new URL(request.url);
      if (pathname !== '/' && !/^\/p\d$/.test(pathname)) return new Response('no', { status: 404 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const links = pathname === '/' ? [1, 2, 3, 4, 5, 6].map((n) => `<a href="/p${n}">p${n}</a>`).join(' ') : '';
      return new Response(`<html><head><title>Page ${pathname}</title></head><body><p>Lighthouse page ${pathname} about tides and harbours.</p>${links}</body></html>`, {
        headers: { 'Content-Type': 'text/html' },
      });
    });
    let running = await startChild(dataDir);
    try {
      const headers = { Authorization: `Bearer ${running.apiKey}`, 'Content-Type': 'application/json' };
      const post = async (path: string, body: unknown) => (await fetch(running.url + path, { method: 'POST', headers, body: JSON.stringify(body) })).json() as Promise<Record<string, any>>;
      const agent = await post('/v1/agents', { name: 'Before the kill', datastoreIds: [running.datastoreId] });
      const form = new FormData();
      form.set('datastoreId', running.datastoreId);
      form.set('file', fileOf('Tides rise twice a day near the lighthouse.', 'tides.txt', 'text/plain'));
      const file = (await (await fetch(`${running.url}/datasources`, { method: 'POST', headers: { Authorization: headers.Authorization }, body: form })).json()) as { id: string };
      const crawl = await post('/datasources', { datastoreId: running.datastoreId, type: 'web_site', config: { source_url: `${site.url}/` } });
      await eventually(
        async () => {
          const status = (await (await fetch(`${running.url}/datasources/${crawl.id}`, { headers })).json()) as { status: string };
          return status.status === 'running' ? true : undefined;
        },
        10_000,
        'the crawl to run',
      );
      await killHard(running.child);

      running = await startChild(dataDir);
      const again = { Authorization: `Bearer ${running.apiKey}` };
      assert.equal((await fetch(`${running.url}/agents/${agent.id}`, { headers: again })).status, 200, 'the agent made before the kill is there');
      for (const id of [file.id, crawl.id]) {
        const done = await eventually(
          async () => {
            const row = (await (await fetch(`${running.url}/datasources/${id}`, { headers: again })).json()) as { status: string };
            return row.status === 'synched' || row.status === 'error' ? row : undefined;
          },
          20_000,
          `datasource ${id} to settle after the restart`,
        );
        assert.equal(done.status, 'synched', `${id}: ${JSON.stringify(done)}`);
      }
      const list = (await (await fetch(`${running.url}/datastores/${running.datastoreId}/datasources?limit=100`, { headers: again })).json()) as { data: { groupId: string | null }[] };
      assert.equal(list.data.filter((d) => d.groupId === crawl.id).length, 7, 'every page of the site, each once');
    } finally {
      await killHard(running.child);
      await site.close();
    }
  });

  test('SIGKILL in a burst of writes: every acknowledged write is there after the restart', async () => {
    const dataDir = folder();
    let running = await startChild(dataDir);
    const acknowledged: string[] = [];
    try {
      const headers = { Authorization: `Bearer ${running.apiKey}`, 'Content-Type': 'application/json' };
      const writes = Array.from({ length: 60 }, (_, i) =>
        fetch(`${running.url}/datastores/upsert/${running.datastoreId}`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ documents: [{ name: `Note ${i}`, text: `Note number ${i} about the burst of writes. `.repeat(40) }] }),
        })
          .then(async (response) => {
            if (response.status === 200) acknowledged.push(...((await response.json()) as { ids: string[] }).ids);
          })
          .catch(() => {}),
      );
      await eventually(async () => (acknowledged.length >= 10 ? true : undefined), 10_000, 'some writes');
      await killHard(running.child);
      await Promise.all(writes);
      assert.ok(acknowledged.length >= 10);

      running = await startChild(dataDir);
      const list = (await (await fetch(`${running.url}/datastores/${running.datastoreId}/datasources?limit=100`, { headers: { Authorization: headers.Authorization } })).json()) as { data: { id: string }[] };
      const present = new Set(list.data.map((d) => d.id));
      for (const id of acknowledged) assert.ok(present.has(id), `acknowledged document ${id} survived`);
    } finally {
      await killHard(running.child);
    }
  });
});
