// The emulator under hostile input, with small generated files: bodies counted while read
// (chunked too), deep JSON, Office packages that lie about their sizes or hold one huge part,
// caps on text, pages and fragments, names cleaned, web fetches kept off private addresses,
// stale temp files removed, and a warning when listening beyond loopback. The timing side
// (a trivial request answered while each file is read) is bench/emulator-hostile.bench.ts.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { extractDocument, fetchWebPage } from '../../emulator/src/ingest/index.js';
import { nonPublicKind } from '../../emulator/src/ingest/address-guard.js';
import { cleanName } from '../../emulator/src/http/names.js';
import { MIME } from '../fixtures/ingest/samples.js';
import { deepJson, hugeSlidePptx, lyingDocx, manyPagesPdf, oneLineCsv } from '../fixtures/emulator/hostile.js';
import { fileOf, settled, startEmulator, startTestEmulator, tempDataDir, type TestEmulator } from '../fixtures/emulator/harness.js';
import { refusal } from '../support/ingest-refusal.js';
import { listen, type TestServer } from '../support/http.js';

let emulator: TestEmulator;
let datastoreId: string;

before(async () => {
  emulator = await startTestEmulator({ maxUploadBytes: 256 * 1024, ingestLimits: { maxTextChars: 200_000, maxFragments: 50 } });
  datastoreId = (await emulator.client.datastores.create({ name: 'Hostile' })).id;
});
after(() => emulator.close());

/** A body that arrives chunked (no Content-Length), `total` bytes in 64 KB pieces; counts what was pulled. */
function chunkedBody(total: number, fill = 0x20): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const size = Math.min(64 * 1024, total - sent);
      sent += size;
      controller.enqueue(new Uint8Array(size).fill(fill));
    },
  });
  return { stream, pulled: () => sent };
}

async function upload(bytes: Uint8Array, fileName: string, type: string): Promise<Record<string, unknown>> {
  const created = await emulator.client.datasources.uploadFile({ datastoreId, file: fileOf(bytes, fileName, type) });
  return settled(emulator, created.id, 60_000);
}

describe('request bodies', () => {
  test('a chunked JSON body past 5 MB is refused with 413 before it is all read', async () => {
    const body = chunkedBody(64 * 1024 * 1024);
    const response = await fetch(`${emulator.url}/v1/datastores`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${emulator.demo.apiKey}`, 'Content-Type': 'application/json' },
      body: body.stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /larger than 5242880 bytes/);
    assert.ok(body.pulled() < 32 * 1024 * 1024, `only the start of the body is read (${body.pulled()} bytes pulled)`);
  });

  test('a chunked upload past the upload cap is refused with 413', async () => {
    const boundary = 'x-boundary';
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="datastoreId"\r\n\r\n${datastoreId}\r\n--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nfile\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const filler = chunkedBody(4 * 1024 * 1024, 0x61);
    const reader = filler.stream.getReader();
    let first = true;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (first) {
          first = false;
          return controller.enqueue(head);
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
    });
    const response = await fetch(`${emulator.url}/v1/datasources`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${emulator.demo.apiKey}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /The upload is larger than 262144 bytes/);
  });

  test('JSON nested 5,000 deep is a 400 naming the limit, and the server answers after it', async () => {
    const response = await emulator.api('POST', '/v1/datastores', `{"name":"x","description":${deepJson(5000)}}`);
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { message: string } }).error.message, 'The body is nested more than 64 levels deep.');
    assert.equal((await emulator.api('GET', `/v1/datastores/${datastoreId}`)).status, 200);
  });

  test('brackets inside strings do not count as nesting', async () => {
    const response = await emulator.api('POST', '/v1/datastores', { name: `[{${'['.repeat(500)}` });
    assert.equal(response.status, 201);
  });
});

describe('files that lie or are too big', () => {
  test('a .docx declaring 1 KB for a part that inflates to 2 MB is refused as forged, not expanded', async () => {
    const bytes = await lyingDocx(2 * 1024 * 1024);
    assert.equal(
      await refusal(extractDocument({ bytes, mimeType: MIME.docx, fileName: 'lie.docx' })),
      'not a readable .docx file: its part word/document.xml declares 1024 bytes but holds more: the package is forged or damaged',
    );
    const row = await upload(bytes, 'lie.docx', MIME.docx);
    assert.equal(row.status, 'error');
    assert.match(String(row.errorMessage), /declares 1024 bytes but holds more/);
  });

  test('a .pptx with one honest 70 MB slide is refused by the per-part cap', async () => {
    const bytes = await hugeSlidePptx(70 * 1024 * 1024);
    assert.ok(bytes.length < 1024 * 1024, 'the file itself is small');
    assert.equal(
      await refusal(extractDocument({ bytes, mimeType: MIME.pptx, fileName: 'huge.pptx' })),
      "the .pptx file's part ppt/slides/slide1.xml unpacks to 70 MB, more than the 64 MB allowed for one part",
    );
  });

  test('a one-line CSV past the text cap ends as an error datasource with the reason', async () => {
    const row = await upload(oneLineCsv(240 * 1024), 'line.csv', 'text/csv');
    assert.equal(row.status, 'error');
    assert.match(String(row.errorMessage), /^the CSV file holds [\d.]+ million characters of text, more than the 0\.2 million characters of text allowed$/);
  });

  test('a text that splits into more fragments than allowed is an error, and keeps no fragment', async () => {
    const words = Array.from({ length: 12_000 }, (_, i) => `word${i}`).join(' ');
    const row = await upload(new TextEncoder().encode(words), 'many.txt', 'text/plain');
    assert.equal(row.status, 'error');
    assert.match(String(row.errorMessage), /^its text splits into \d+ fragments, more than the 50 allowed for one file or page$/);
    const hits = await emulator.api('POST', `/v1/datastores/${datastoreId}/query`, { query: 'word11999' });
    assert.deepEqual(await hits.json(), []);
  });

  test('a PDF of 6,000 pages is refused by the page cap before its pages are read', async () => {
    assert.equal(await refusal(extractDocument({ bytes: manyPagesPdf(6000), mimeType: MIME.pdf, fileName: 'tree.pdf' })), 'the PDF file has 6000 pages, more than the 5000 allowed');
  });
});

describe('names', () => {
  test('control and bidi characters are removed and a 10 KB name is cut to 255 bytes', async () => {
    const name = `re\u202Eport\u0007 ${'é'.repeat(5000)}.txt`;
    const created = await emulator.client.datasources.uploadFile({ datastoreId, file: fileOf('Short text about otters.', name, 'text/plain') });
    const row = await settled(emulator, created.id);
    const kept = String(row.name);
    assert.ok(Buffer.byteLength(kept) <= 255, `${Buffer.byteLength(kept)} bytes`);
    assert.ok(kept.startsWith('report '));
    assert.doesNotMatch(kept, /[\u0000-\u001f\u202a-\u202e\u2066-\u2069]/);
    assert.equal(cleanName('\u202E\u0000 ', 'file'), 'file');
    assert.equal(Buffer.byteLength(cleanName('😀'.repeat(100), 'x')), 252, 'cut on a character boundary');
  });
});

describe('private addresses', () => {
  let site: TestServer;
  let requests = 0;
  before(async () => {
    site = await listen((request) => {
      requests++;
      const { pathname } = new URL(request.url);
      if (pathname === '/to-internal') return new Response(null, { status: 302, headers: { Location: `http://internal.test:${new URL(site.url).port}/` } });
      if (pathname === '/to-other-loopback') return new Response(null, { status: 302, headers: { Location: `http://127.0.0.2:${new URL(site.url).port}/` } });
      return new Response('<title>Local</title><p>A page on this machine.</p>', { headers: { 'Content-Type': 'text/html' } });
    });
  });
  after(() => site.close());

  test('loopback, private, link-local, metadata and mapped addresses are recognised; public ones are not', () => {
    assert.equal(nonPublicKind('127.0.0.1'), 'a loopback address');
    assert.equal(nonPublicKind('::1'), 'a loopback address');
    assert.equal(nonPublicKind('10.1.2.3'), 'a private address');
    assert.equal(nonPublicKind('192.168.1.1'), 'a private address');
    assert.equal(nonPublicKind('172.20.0.1'), 'a private address');
    assert.equal(nonPublicKind('169.254.169.254'), 'the cloud metadata address');
    assert.equal(nonPublicKind('169.254.1.1'), 'a link-local address');
    assert.equal(nonPublicKind('fe80::1'), 'a link-local address');
    assert.equal(nonPublicKind('fd00::5'), 'a private address');
    assert.equal(nonPublicKind('::ffff:127.0.0.1'), 'a loopback address');
    assert.equal(nonPublicKind('::ffff:a00:1'), 'a private address');
    assert.equal(nonPublicKind('0.0.0.0'), 'an unspecified address');
    assert.equal(nonPublicKind('93.184.215.14'), undefined);
    assert.equal(nonPublicKind('2606:4700::1'), undefined);
  });

  test('names that resolve to such addresses are refused before any connection', async () => {
    const port = new URL(site.url).port;
    const before = requests;
    const resolve = (hostname: string, callback: (error: null, addresses: { address: string; family: number }[]) => void) =>
      callback(null, [{ address: hostname === 'metadata.test' ? '169.254.169.254' : '10.0.0.7', family: 4 }]);
    assert.equal(
      await refusal(fetchWebPage(`http://localhost:${port}/`)),
      `refused to read http://localhost:${port}/: localhost (127.0.0.1) is a loopback address; the emulator reads only public addresses unless started with --allow-private-addresses`,
    );
    assert.match(await refusal(fetchWebPage('http://metadata.test/latest/meta-data/', { resolve })), /metadata\.test \(169\.254\.169\.254\) is the cloud metadata address/);
    assert.match(await refusal(fetchWebPage('http://intranet.test/', { resolve })), /intranet\.test \(10\.0\.0\.7\) is a private address/);
    assert.match(await refusal(fetchWebPage(`http://127.0.0.1:${port}/`)), /127\.0\.0\.1 is a loopback address/);
    assert.match(await refusal(fetchWebPage('http://[::1]:9/')), /::1 is a loopback address/);
    assert.match(await refusal(fetchWebPage('http://169.254.169.254/')), /is the cloud metadata address/);
    assert.equal(requests, before, 'no request reached the local site');
  });

  test('every redirect hop is checked after resolving, even from an allowed address', async () => {
    const resolve = (_hostname: string, callback: (error: null, addresses: { address: string; family: number }[]) => void) => callback(null, [{ address: '10.0.0.9', family: 4 }]);
    const allowed = { allowPrivateAddresses: ['127.0.0.1'], resolve };
    assert.match(await refusal(fetchWebPage(`${site.url}/to-internal`, allowed)), /internal\.test \(10\.0\.0\.9\) is a private address/);
    assert.match(await refusal(fetchWebPage(`${site.url}/to-other-loopback`, allowed)), /127\.0\.0\.2 is a loopback address/);
    assert.equal((await fetchWebPage(`${site.url}/`, allowed)).title, 'Local');
    assert.equal((await fetchWebPage(`http://localhost:${new URL(site.url).port}/`, { allowPrivateAddresses: true })).title, 'Local');
  });

  test('a web_page datasource on a loopback name ends as an error with the reason', async () => {
    const created = await emulator.client.datasources.createFromWeb({ datastoreId, type: 'web_page', config: { source_url: `http://localhost:${new URL(site.url).port}/` } });
    const row = await settled(emulator, created.id);
    assert.equal(row.status, 'error', JSON.stringify(row));
    assert.match(String(row.errorMessage), /is a loopback address; the emulator reads only public addresses unless started with --allow-private-addresses/);
  });
});

describe('data folder and listening', () => {
  test('temp files left by a kill mid-write are removed at start', async () => {
    const data = tempDataDir();
    try {
      mkdirSync(join(data.dir, 'files'), { recursive: true });
      writeFileSync(join(data.dir, 'snapshot.json.4242.tmp'), '{"half');
      writeFileSync(join(data.dir, 'files', 'abc.4242.tmp'), 'half an upload');
      const running = await startEmulator({ dataDir: data.dir, log: () => {} });
      await running.close();
      assert.equal(existsSync(join(data.dir, 'snapshot.json.4242.tmp')), false);
      assert.equal(existsSync(join(data.dir, 'files', 'abc.4242.tmp')), false);
    } finally {
      data.cleanup();
    }
  });

  test('a large file is journaled in several slices, and a restart replays them to the same fragments', async () => {
    const data = tempDataDir();
    try {
      const first = await startTestEmulator({ dataDir: data.dir });
      const sentences = Array.from({ length: 6000 }, (_, i) => `Sentence ${i} tells of harbour seals.`).join(' ');
      const created = await first.client.datasources.uploadFile({ datastoreId: first.demo.datastoreId, file: fileOf(sentences, 'seals.txt', 'text/plain') });
      assert.equal((await settled(first, created.id)).status, 'synched');
      const journal = readFileSync(join(data.dir, 'journal.jsonl'), 'utf8');
      const slices = journal.split('\n').filter((line) => line.includes('"add":"fragments"')).length;
      assert.ok(slices > 1, `${slices} slices`);
      const count = (emulator: TestEmulator) => emulator.emulator.idle().then(() => emulator.api('POST', `/v1/datastores/${emulator.demo.datastoreId}/query`, { query: 'Sentence 5999 harbour seals' }));
      const before = (await (await count(first)).json()) as unknown[];
      assert.ok(before.length > 0);
      // A kill leaves the journal as it is: reopen the folder without the clean snapshot a close writes.
      await first.close();
      const second = await startTestEmulator({ dataDir: data.dir });
      const afterRestart = (await (await count(second)).json()) as unknown[];
      assert.equal(afterRestart.length, before.length);
      await second.close();
    } finally {
      data.cleanup();
    }
  });

  test('listening beyond loopback says so', async () => {
    const messages: string[] = [];
    const running = await startEmulator({ host: '0.0.0.0', log: (message) => messages.push(message) });
    await running.close();
    assert.ok(messages.some((message) => message.startsWith('Warning: the emulator listens on 0.0.0.0, so other machines can reach it.')), messages.join('\n'));
    const quiet: string[] = [];
    const local = await startEmulator({ log: (message) => quiet.push(message) });
    await local.close();
    assert.deepEqual(quiet, []);
  });
});
