// The emulator under hostile files (issue 16): while each is uploaded and read, a trivial
// `GET /v1/agents/{id}` is asked every 20 ms; the table gives its slowest answer, the
// emulator's peak memory (resident, sampled every 50 ms) above where it was, and its memory
// once the file has settled. Goals: every slowest answer under 100 ms, memory back within
// 200 MB. The emulator runs as its own process (`kagent-emulator`), so the work of sending
// the files here never counts against it; the trivial GETs are asked from a third process,
// so neither does the time this one spends building and sending a file (the bench's own
// thread, busy sending 48 MB, delayed the answers it timed by up to a second).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { deepJson, hugeSlidePptx, hugeStreamPdf, lyingDocx, manyPagesPdf, oneLineCsv } from '../test/fixtures/emulator/hostile.js';

const MB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

// EMULATOR_CPU_PROF=<folder> profiles the emulator's process (node --cpu-prof) for finding what holds its thread.
const profile = process.env.EMULATOR_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.EMULATOR_CPU_PROF] : [];
// thread-stretch.ts notes, inside the emulator, the longest stretch its thread worked without a turn (see there).
const child = spawn(process.execPath, [...profile, '--import', 'tsx', '--import', './bench/support/thread-stretch.ts', 'emulator/src/cli.ts', '--port', '0', '--json', '--pace', '0'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stretchWaiter: ((line: string) => void) | undefined;
createInterface({ input: child.stderr! }).on('line', (line) => {
  if (line.startsWith('thread-stretch ') && stretchWaiter) stretchWaiter(line);
  else process.stderr.write(`${line}\n`);
});
/** The longest stretch the emulator's thread worked without a turn since the last call: ms on a core and by the clock (undefined off Linux). */
async function threadStretch(): Promise<{ core: number; clock: number } | undefined> {
  const line = new Promise<string>((resolve) => (stretchWaiter = resolve));
  child.kill('SIGUSR2');
  const answer = await Promise.race([line, sleep(2000).then(() => undefined)]);
  stretchWaiter = undefined;
  if (!answer) return undefined;
  const [, core, clock] = answer.split(' ');
  return { core: Number(core), clock: Number(clock) };
}
const started = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve))) as {
  url: string;
  apiKey: string;
  agentId: string;
  datastoreId: string;
};
const running = { url: started.url };
const { apiKey, agentId, datastoreId } = started;
/** The emulator's resident memory, in bytes. */
const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const auth = { Authorization: `Bearer ${apiKey}` };

interface Hostile {
  name: string;
  /** Sends the hostile request; resolves once the emulator has dealt with it (answered, or settled the datasource). */
  send(): Promise<string>;
}

async function uploadAndSettle(bytes: Uint8Array, fileName: string, type: string): Promise<string> {
  const form = new FormData();
  form.set('type', 'file');
  form.set('datastoreId', datastoreId);
  form.set('file', new File([bytes as Uint8Array<ArrayBuffer>], fileName, { type }));
  const response = await fetch(`${running.url}/v1/datasources`, { method: 'POST', headers: auth, body: form });
  if (!response.ok) return `upload ${response.status}`;
  const { id } = (await response.json()) as { id: string };
  for (;;) {
    const row = (await (await fetch(`${running.url}/v1/datasources/${id}`, { headers: auth })).json()) as { status: string; errorMessage?: string };
    if (row.status === 'synched' || row.status === 'error') return `${row.status}${row.errorMessage ? `: ${row.errorMessage.slice(0, 70)}` : ''}`;
    await sleep(50);
  }
}

function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new Uint8Array(256 * 1024).fill(0x61);
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

console.log('generating the hostile files…');
const files = {
  slide: await hugeSlidePptx(450 * MB),
  lie: await lyingDocx(300 * MB),
  csv: oneLineCsv(48 * MB),
  tree: manyPagesPdf(200_000),
  stream: hugeStreamPdf(256 * MB),
};
gc();

const hostiles: Hostile[] = [
  { name: `.pptx, one honest 450 MB slide (${(files.slide.length / MB).toFixed(1)} MB file)`, send: () => uploadAndSettle(files.slide, 'slide.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation') },
  { name: `.docx declaring 1 KB, holding 300 MB (${(files.lie.length / MB).toFixed(1)} MB file)`, send: () => uploadAndSettle(files.lie, 'lie.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document') },
  { name: '48 MB one-line CSV', send: () => uploadAndSettle(files.csv, 'line.csv', 'text/csv') },
  { name: `PDF, 200,000-page tree (${(files.tree.length / MB).toFixed(1)} MB file)`, send: () => uploadAndSettle(files.tree, 'tree.pdf', 'application/pdf') },
  { name: `PDF, 256 MB flate content stream (${(files.stream.length / MB).toFixed(1)} MB file)`, send: () => uploadAndSettle(files.stream, 'stream.pdf', 'application/pdf') },
  {
    name: '1 GB chunked upload',
    send: async () => {
      const response = await fetch(`${running.url}/v1/datasources`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'multipart/form-data; boundary=b' },
        body: chunked(1024 * MB),
        duplex: 'half',
      } as RequestInit).catch((error: Error) => ({ status: `closed (${error.message})` }));
      return `answer ${response.status}`;
    },
  },
  {
    name: '5 MB document through the JSON upsert',
    send: async () => {
      const words = 'the ferry leaves the north pier at dawn and returns at dusk when the tide allows ';
      const text = words.repeat(Math.floor((4.9 * MB) / words.length));
      const response = await fetch(`${running.url}/v1/datastores/${datastoreId}/upsert`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ documents: [{ text, name: 'ferry.txt' }] }),
      });
      return `answer ${response.status}`;
    },
  },
  {
    name: 'JSON nested 5,000 deep',
    send: async () => {
      const response = await fetch(`${running.url}/v1/datastores`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: `{"name":${deepJson(5000)}}` });
      return `answer ${response.status}`;
    },
  },
];

/**
 * Asks the trivial GET every 20 ms from a process of its own, from its first answer until told
 * to stop (its stdin closes); resolves once the first GET is answered, with `stop` giving the
 * slowest answer and the number asked.
 */
async function probeFromAnotherProcess(): Promise<{ stop(): Promise<{ slowest: number; count: number }> }> {
  const script = `
    const [url, path, key] = process.argv.slice(1);
    let done = false;
    process.stdin.on('data', () => {}).on('end', () => (done = true));
    let slowest = 0;
    let count = 0;
    while (!done) {
      const began = performance.now();
      const response = await fetch(url + path, { headers: { Authorization: 'Bearer ' + key } });
      await response.arrayBuffer();
      if (count === 0) process.stdout.write('ready\\n');
      slowest = Math.max(slowest, performance.now() - began);
      count++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    process.stdout.write(JSON.stringify({ slowest, count }));
  `;
  const prober = spawn(process.execPath, ['--input-type=module', '-e', script, running.url, `/v1/agents/${agentId}`, apiKey], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  prober.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await new Promise<void>((resolve) => prober.stdout!.once('data', () => resolve()));
  return {
    async stop() {
      prober.stdin!.end();
      await new Promise((resolve) => prober.once('exit', resolve));
      return JSON.parse(output.slice(output.indexOf('\n') + 1)) as { slowest: number; count: number };
    },
  };
}

console.log("\n| hostile input | outcome | slowest trivial GET | GETs | emulator's thread, longest stretch without a turn: on a core / by the clock | peak memory above start | memory after, above start |");
console.log('|---|---|---|---|---|---|---|');
// HOSTILE=<words> runs only the inputs whose name holds one of the words (e.g. HOSTILE=csv,pptx).
const only = process.env.HOSTILE?.split(',').map((word) => word.trim().toLowerCase());
for (const hostile of hostiles.filter((candidate) => !only || only.some((word) => candidate.name.toLowerCase().includes(word)))) {
  gc();
  await sleep(200);
  const start = rss();
  let peak = start;
  await threadStretch();
  const probe = await probeFromAnotherProcess();
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
  const outcome = await hostile.send();
  const { slowest, count } = await probe.stop();
  const stretch = await threadStretch();
  clearInterval(sampler);
  // A refused file's reader is replaced; let the old one end and the emulator collect before measuring.
  await sleep(2000);
  const after = rss();
  const held = stretch ? `${stretch.core.toFixed(1)} ms / ${stretch.clock.toFixed(1)} ms` : 'not measured (Linux only)';
  console.log(`| ${hostile.name} | ${outcome} | ${slowest.toFixed(1)} ms | ${count} | ${held} | ${((peak - start) / MB).toFixed(0)} MB | ${((after - start) / MB).toFixed(0)} MB |`);
}

child.kill('SIGTERM');
// A profiled emulator writes its profile as it exits.
await new Promise((resolve) => child.once('exit', resolve));
process.exit(0);
