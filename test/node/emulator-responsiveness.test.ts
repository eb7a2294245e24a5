// The emulator's thread while a large document is ingested (issue 16): splitting, journaling and
// indexing must never hold it for more than 50 ms at a time, so every other request is answered
// meanwhile. The emulator runs in this process; the large request is sent from a child process,
// so building and sending it never counts against the emulator's thread.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startTestEmulator, settled, tempDataDir, type TestEmulator } from '../fixtures/emulator/harness.js';

/**
 * The most time the emulator's thread may work without giving requests a turn, in ms on a
 * core: the goal. Counted on a core (not by the clock) so that a loaded machine, which
 * leaves the thread waiting for a core, does not fail it: with other suites running (load
 * average 5 to 7 on 2 cores), the clock showed stretches of 70 to 260 ms where the thread had
 * worked 18 to 29. Before fragments were analysed for the index on the reader thread, and each
 * large journal write had a turn of its own, these runs worked 70 to 86 ms at a stretch.
 */
const LONGEST_BLOCK_MS = 50;
/**
 * For a 5 MB question, issue 25's goal: no request waits more than 100 ms behind it. Reading
 * the body is one JSON.parse of 5 MB, which no turn can split: 10 to 39 ms on a core when
 * idle, 65 ms once in a CI run on a loaded machine.
 */
const LONGEST_BLOCK_BEHIND_A_QUESTION_MS = 100;
const MB = 1024 * 1024;

let emulator: TestEmulator;
let data: ReturnType<typeof tempDataDir>;

before(async () => {
  data = tempDataDir();
  // A data folder, as the command runs it: journaling counts too.
  emulator = await startTestEmulator({ dataDir: data.dir });
});
after(async () => {
  await emulator.close();
  data.cleanup();
});

/**
 * Builds varied sentences in the child, `prose(bytes)` (so the index gets many distinct words and
 * code names, as a real document gives it).
 */
const PROSE = `
  function prose(bytes, end = ' ') {
    const subjects = ['The ferry', 'A harbour seal', 'The lighthouse keeper', 'Each tide table', 'The northern pier', 'A fishing boat'];
    const verbs = ['leaves', 'watches', 'records', 'crosses', 'guards', 'follows'];
    const parts = [];
    let length = 0;
    for (let i = 0; length < bytes; i++) {
      const sentence = subjects[i % 6] + ' ' + verbs[(i * 7) % 6] + ' route' + (i % 997) + ' near marker' + ((i * 31) % 4099) + ' at dawn, weatherCode' + (i % 211) + ' permitting.' + end;
      parts.push(sentence);
      length += sentence.length;
    }
    return parts.join('');
  }
`;

/** This thread's time on a core so far, in ms (Linux: its scheduler statistics, in ns); elsewhere the clock stands in for it. */
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const threadCpuMs = existsSync(schedstat) ? () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : undefined;

interface Held {
  /** The longest the event loop went without running a due timer, in ms of the clock. */
  wallMs: number;
  /** The most time the thread spent on a core within one such stretch, in ms: the work that held it, without the time a loaded machine left it waiting for a core. */
  cpuMs: number;
}

/**
 * Sends a request from a child process (`node -e`, its body built there) and watches this
 * process's thread from just after the child starts until `settle` (given the child's output)
 * resolves: a timer due every 2 ms notes how long each stretch between its runs took, and how
 * much of it the thread spent on a core. Returns the child's output and the longest stretches.
 */
async function whileSent(script: string, settle: (output: string) => Promise<unknown>): Promise<{ output: string; held: Held }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, emulator.url, emulator.demo.apiKey, emulator.demo.datastoreId], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Started after the spawn: starting a process is the test's work, not the emulator's.
  const held: Held = { wallMs: 0, cpuMs: 0 };
  let lastWall = performance.now();
  let lastCpu = threadCpuMs?.() ?? 0;
  const probe = setInterval(() => {
    const wall = performance.now();
    const cpu = threadCpuMs?.() ?? wall;
    held.wallMs = Math.max(held.wallMs, wall - lastWall);
    held.cpuMs = Math.max(held.cpuMs, cpu - lastCpu);
    lastWall = wall;
    lastCpu = cpu;
  }, 2);
  try {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, `the sender failed: ${output}`);
    await settle(output);
    return { output, held };
  } finally {
    clearInterval(probe);
  }
}

function assertNotHeld(t: { diagnostic(message: string): void }, held: Held, bound = LONGEST_BLOCK_MS): void {
  t.diagnostic(`longest stretch without a turn: ${held.wallMs.toFixed(1)} ms of the clock, ${held.cpuMs.toFixed(1)} ms on a core`);
  assert.ok(held.cpuMs < bound, `the emulator's thread worked ${held.cpuMs.toFixed(0)} ms without a turn for requests (at most ${bound} ms allowed)`);
}

test('a 4 MB document through the JSON upsert never holds the emulator for long, and is searchable once answered', async (t) => {
  const script = `${PROSE}
    const [url, key, datastoreId] = process.argv.slice(1);
    const body = JSON.stringify({ documents: [{ text: prose(${4 * MB}), name: 'ferries.txt' }] });
    const response = await fetch(url + '/v1/datastores/' + datastoreId + '/upsert', { method: 'POST', headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' }, body });
    process.stdout.write(response.status + ' ' + await response.text());
  `;
  const { output, held } = await whileSent(script, async () => {});
  assert.match(output, /^200 /);
  const hits = (await (await emulator.api('POST', `/v1/datastores/${emulator.demo.datastoreId}/query`, { query: 'lighthouse keeper marker4000' })).json()) as unknown[];
  assert.ok(hits.length > 0, 'the document is searchable');
  assertNotHeld(t, held);
});

test('a 4 MB CSV upload (CRLF line ends) never holds the emulator for long while it is read, split and indexed', async (t) => {
  const script = `${PROSE}
    const [url, key, datastoreId] = process.argv.slice(1);
    // One sentence a row, as a CSV exported on Windows ends its lines.
    const csv = prose(${4 * MB}, '\\r\\n').replaceAll(' near ', ',').replaceAll(' at dawn, ', ',');
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastoreId);
    form.set('file', new File([csv], 'routes.csv', { type: 'text/csv' }));
    const response = await fetch(url + '/v1/datasources', { method: 'POST', headers: { Authorization: 'Bearer ' + key }, body: form });
    process.stdout.write(JSON.stringify({ status: response.status, body: await response.json() }));
  `;
  const { held } = await whileSent(script, async (sent) => {
    const { status, body } = JSON.parse(sent) as { status: number; body: { id: string } };
    assert.equal(status, 201, sent);
    // Generous: in one `npm run test:node` at a load average of 10, this test took 53 s.
    assert.equal((await settled(emulator, body.id, 120_000)).status, 'synched');
  });
  assertNotHeld(t, held);
});

/**
 * Sends a question of nearly 5 MB (the largest JSON body: 800,000 distinct words) to `path`
 * and, while it is in flight, asks for the datastore again and again over other connections:
 * prints the big answer's status and time, and the longest any of those small requests waited.
 */
const HUGE_QUESTION = (path: string, extra: string) => `
  const [url, key, datastoreId] = process.argv.slice(1);
  const words = [];
  let length = 0;
  for (let i = 0; length < ${5 * MB - 4096}; i++) {
    const word = 'w' + i.toString(36);
    words.push(word);
    length += word.length + 1;
  }
  const body = JSON.stringify({ query: words.join(' '), ${extra} });
  const headers = { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' };
  const started = performance.now();
  let done = false;
  const big = fetch(url + ${JSON.stringify(path)}.replace('{datastoreId}', datastoreId), { method: 'POST', headers, body })
    .then(async (response) => ({ status: response.status, text: (await response.text()).slice(0, 300), ms: performance.now() - started }))
    .finally(() => (done = true));
  let longest = 0;
  let probes = 0;
  while (!done) {
    const start = performance.now();
    const response = await fetch(url + '/datastores/' + datastoreId, { headers });
    await response.text();
    longest = Math.max(longest, performance.now() - start);
    probes++;
  }
  process.stdout.write(JSON.stringify({ ...(await big), longest, probes }));
`;

for (const [name, path, extra] of [
  ['a datastore query', '/datastores/{datastoreId}/query', 'topK: 5'],
  ["an agent's question", '/agents/{agentId}/query', 'streaming: false'],
] as const) {
  test(`${name} of 5 MB never holds the emulator for long: only its first 1,000 words are read, and other requests are answered meanwhile`, async (t) => {
    const script = HUGE_QUESTION(path.replace('{agentId}', emulator.demo.agentId), extra);
    const { output, held } = await whileSent(script, async () => {});
    const result = JSON.parse(output) as { status: number; text: string; ms: number; longest: number; probes: number };
    assert.equal(result.status, 200, result.text);
    t.diagnostic(`answered in ${result.ms.toFixed(0)} ms; ${result.probes} requests meanwhile, the longest waited ${result.longest.toFixed(1)} ms`);
    assert.ok(result.probes >= 1, 'other requests were sent while it ran');
    assertNotHeld(t, held, LONGEST_BLOCK_BEHIND_A_QUESTION_MS);
  });
}
