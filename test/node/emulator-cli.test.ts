// The kagent-emulator command: start-up output, --seed, key create and revoke
// against a running emulator, and refusals of bad flags.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { after, describe, test } from 'node:test';
import { KagentClient } from '../../src/client/index.js';
import { eventually, tempDataDir } from '../fixtures/emulator/harness.js';
import { emulatorCommand } from '../support/bundled-commands.js';

const run = promisify(execFile);
/** The command, bundled once for the file's every start. */
const CLI = [await emulatorCommand()];
const folders: { cleanup(): void }[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const folder of folders) folder.cleanup();
});

function folder(): string {
  const made = tempDataDir();
  folders.push(made);
  return made.dir;
}

async function serve(args: string[]): Promise<{ child: ChildProcess; firstLine: string; lines: AsyncIterator<string> }> {
  const child = spawn(process.execPath, [...CLI, '--port', '0', '--pace', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const first = await lines.next();
  clearTimeout(timer);
  assert.ok(!first.done, 'the emulator printed its address');
  return { child, firstLine: first.value, lines };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('kagent-emulator', () => {
  test('--json prints one line with the address, key and ids; --seed ingests a folder into the demo datastore', async () => {
    const seed = folder();
    mkdirSync(join(seed, 'guides'));
    writeFileSync(join(seed, 'guides', 'install.md'), '# Install\n\nRun the installer and restart the tablet twice.\n');
    writeFileSync(join(seed, 'faq.txt'), 'The warranty lasts three years.');
    writeFileSync(join(seed, 'logo.png'), 'not ingested');
    const { child, firstLine } = await serve(['--json', '--seed', seed]);
    const info = JSON.parse(firstLine) as { url: string; apiKey: string; organizationId: string; agentId: string; datastoreId: string };
    assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    for (const field of ['apiKey', 'organizationId', 'agentId', 'datastoreId'] as const) assert.equal(typeof info[field], 'string');
    const client = new KagentClient({ baseUrl: info.url, apiKey: info.apiKey });
    const names = await eventually(async () => {
      const response = await fetch(`${info.url}/v1/datastores/${info.datastoreId}/datasources`, { headers: { Authorization: `Bearer ${info.apiKey}` } });
      const list = (await response.json()) as { data: { name: string; status: string }[] };
      return list.data.length === 2 && list.data.every((d) => d.status === 'synched') ? list.data.map((d) => d.name).sort() : undefined;
    });
    assert.deepEqual(names, ['faq.txt', 'guides/install.md']);
    const answer = await client.agents.query(info.agentId, { query: 'How do I install it?' });
    assert.equal(answer.sources[0]?.datasource_name, 'guides/install.md');
    assert.equal(await stop(child), 0, 'SIGTERM stops it cleanly');
  });

  test('prints the address, key and ids for a person without --json', async () => {
    const { child, firstLine, lines } = await serve([]);
    const text = [firstLine];
    for (let i = 0; i < 5; i++) text.push((await lines.next()).value);
    assert.match(text.join('\n'), /URL: +http:\/\/127\.0\.0\.1:\d+\n {2}API key: +\S+\n {2}Organization: +\S+\n {2}Agent: +\S+\n {2}Datastore: +\S+/);
    await stop(child);
  });

  test('key create and revoke reach the running emulator; a revoked key is refused at once', async () => {
    const dataDir = folder();
    const { child, firstLine } = await serve(['--json', '--data-dir', dataDir]);
    const { url } = JSON.parse(firstLine) as { url: string };
    const created = await run(process.execPath, [...CLI, 'key', 'create', '--data-dir', dataDir, '--label', 'ci', '--new-org', '--plan', 'free', '--json']);
    const key = JSON.parse(created.stdout) as { id: string; key: string; organizationId: string };
    assert.equal((await fetch(`${url}/v1/agents`, { headers: { Authorization: `Bearer ${key.key}` } })).status, 200);
    const listed = await run(process.execPath, [...CLI, 'key', 'list', '--data-dir', dataDir]);
    assert.match(listed.stdout, new RegExp(`${key.id} +…${key.key.slice(-4)}`));
    assert.ok(!listed.stdout.includes(key.key), 'a list never shows a whole key');
    await run(process.execPath, [...CLI, 'key', 'revoke', '--data-dir', dataDir, key.id]);
    assert.equal((await fetch(`${url}/v1/agents`, { headers: { Authorization: `Bearer ${key.key}` } })).status, 401);
    await stop(child);
  });

  test('key commands work on the data folder when no emulator runs', async () => {
    const dataDir = folder();
    const created = await run(process.execPath, [...CLI, 'key', 'create', '--data-dir', dataDir, '--label', 'offline']);
    assert.match(created.stdout, /API key \(shown only this once\): \S+/);
    const listed = await run(process.execPath, [...CLI, 'key', 'list', '--data-dir', dataDir]);
    assert.match(listed.stdout, /active {2}offline/);
  });

  test('a bad flag exits 2 with a message', async () => {
    await assert.rejects(run(process.execPath, [...CLI, '--port', 'eighty']), (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 2);
      assert.match(error.stderr, /--port must be a whole number/);
      return true;
    });
    await assert.rejects(run(process.execPath, [...CLI, 'key', 'create']), (error: { code: number; stderr: string }) => error.code === 2 && /need --data-dir/.test(error.stderr));
  });
});
