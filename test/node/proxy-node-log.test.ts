import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createBatchedConsoleLogger } from '../../src/proxy/node/log.js';

function sink(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString());
      callback();
    },
  });
  return { stream, writes };
}

test("kagent-proxy's log: a turn's info lines leave in one write, one JSON line each, as the console logger writes them", async () => {
  const out = sink();
  const err = sink();
  const log = createBatchedConsoleLogger(out.stream, err.stream);
  log({ level: 'info', message: 'answered', status: 200 });
  log({ level: 'info', message: 'answered', status: 201 });
  log({ level: 'info', message: 'refused: no such route', status: 404 });
  assert.equal(out.writes.length, 0, 'written before the end of the turn');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(out.writes.length, 1);
  const lines = out.writes[0]!.split('\n');
  assert.equal(lines.pop(), '', 'the write ends with a newline');
  assert.deepEqual(
    lines.map((line) => {
      const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
      assert.ok(!Number.isNaN(Date.parse(String(time))), `no time in ${line}`);
      assert.ok(line.startsWith('{"time":'), 'time comes first, as in consoleLogger');
      return rest;
    }),
    [
      { level: 'info', message: 'answered', status: 200 },
      { level: 'info', message: 'answered', status: 201 },
      { level: 'info', message: 'refused: no such route', status: 404 },
    ],
  );
  assert.equal(err.writes.length, 0);
});

test("kagent-proxy's log: warnings and errors go to stderr at once, after the info lines logged before them", () => {
  const out = sink();
  const err = sink();
  const log = createBatchedConsoleLogger(out.stream, err.stream);
  log({ level: 'info', message: 'answered' });
  log({ level: 'warn', message: 'the service closed the stream before [DONE]' });
  assert.equal(out.writes.length, 1, 'the pending info line was not written first');
  assert.match(out.writes[0]!, /"message":"answered"/);
  log({ level: 'error', message: 'cannot reach the service' });
  assert.deepEqual(err.writes.map((w) => (JSON.parse(w) as { level: string }).level), ['warn', 'error']);
});

test("kagent-proxy's log: lines still pending when the process exits are written", () => {
  const module = fileURLToPath(new URL('../../src/proxy/node/log.ts', import.meta.url));
  const script = `import { createBatchedConsoleLogger } from ${JSON.stringify(module)}; const log = createBatchedConsoleLogger(); log({ level: 'info', message: 'last words' }); process.exit(0);`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /"message":"last words"/);
});
