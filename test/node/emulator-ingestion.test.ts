// Ingestion through the endpoints: each of the eight file types uploaded and
// found by search with its file named as the source, a broken file ending in
// an error status, web pages and a local web site crawled with and without a sitemap.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listen, type TestServer } from '../support/http.js';
import { UNIQUE, smallSamples, type SampleKind } from '../fixtures/ingest/samples.js';
import { fileOf, settled, startTestEmulator, type TestEmulator } from '../fixtures/emulator/harness.js';

let emulator: TestEmulator;
let site: TestServer;
const requested: string[] = [];

/** A small site: home -> a, b; a -> c (two links deep); an off-site link; a sitemap listing b and c. */
function page(title: string, body: string, links: string[] = []): Response {
  const html = `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</body></html>`;
  return new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
}

before(async () => {
  // The test site listens on 127.0.0.1, which web datasources may not read unless allowed.
  emulator = await startTestEmulator({ allowPrivateAddresses: ['127.0.0.1'] });
  site = await listen((request) => {
    const { pathname } = new URL(request.url);
    requested.push(pathname);
    switch (pathname) {
      case '/':
        return page('Home', 'Welcome to the aquarium website.', ['/a', '/b', 'https://elsewhere.example/x']);
      case '/a':
        return page('Opening hours', 'The aquarium opens at nine every morning.', ['/c']);
      case '/b':
        return page('Tickets', 'Children under six enter the aquarium for free.');
      case '/c':
        return page('Feeding', 'The penguins are fed at noon by the keepers.');
      case '/sitemap.xml':
        return new Response(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.url}/b</loc></url><url><loc>${site.url}/c</loc></url></urlset>`,
          { headers: { 'Content-Type': 'application/xml' } },
        );
      default:
        return new Response('not found', { status: 404 });
    }
  });
});
after(async () => {
  await emulator.close();
  await site.close();
});

async function newDatastore(): Promise<string> {
  return (await emulator.client.datastores.create({ name: 'Ingestion' })).id;
}

describe('files', () => {
  test('each of the eight types is parsed, searchable, and named as the source of an answer', async () => {
    const datastoreId = await newDatastore();
    const agent = await emulator.client.agents.create({ name: 'Files', datastoreIds: [datastoreId] });
    const samples = await smallSamples();
    const ids = new Map<SampleKind, string>();
    for (const [kind, sample] of Object.entries(samples) as [SampleKind, (typeof samples)[SampleKind]][]) {
      const created = await emulator.client.datasources.uploadFile({ datastoreId, file: fileOf(sample.bytes, sample.fileName, sample.mimeType), custom_id: kind });
      assert.equal(created.status, 'unsynched');
      ids.set(kind, created.id);
    }
    for (const [kind, id] of ids) {
      const done = await settled(emulator, id);
      assert.equal(done.status, 'synched', `${kind}: ${JSON.stringify(done)}`);
    }
    for (const [kind, sample] of Object.entries(samples) as [SampleKind, (typeof samples)[SampleKind]][]) {
      const [best] = await emulator.client.datastores.query(datastoreId, { query: UNIQUE[kind], topK: 1 });
      assert.equal(best?.datasource_name, sample.fileName, `${kind} is found by its own sentence`);
      assert.equal(best?.custom_id, kind);
      const answer = await emulator.client.agents.query(agent.id, { query: UNIQUE[kind] });
      assert.equal(answer.sources[0]?.datasource_name, sample.fileName, `${kind}: ${JSON.stringify(answer.sources)}`);
      assert.equal(answer.sources[0]?.mime_type, sample.mimeType);
      // The source's address serves the uploaded file itself.
      const file = await fetch(answer.sources[0]!.source_url!);
      assert.equal(file.status, 200);
      assert.deepEqual(new Uint8Array(await file.arrayBuffer()), sample.bytes);
    }
    const [pdf] = await emulator.client.datastores.query(datastoreId, { query: UNIQUE.pdf, topK: 1 });
    const pdfAnswer = await emulator.client.agents.query(agent.id, { query: UNIQUE.pdf });
    assert.equal(pdfAnswer.sources[0]?.page_number, 1);
    assert.equal(pdfAnswer.sources[0]?.total_pages, 2);
    assert.equal(typeof pdf?.offset, 'number');
    // And streamed, as the widget asks.
    const streamed = await emulator.client.agents.stream(agent.id, { query: UNIQUE.docx }).final();
    assert.equal(streamed.response?.sources[0]?.datasource_name, samples.docx.fileName);
    assert.match(streamed.answer, /\[1\]/);
  });

  test('a file that does not parse ends in status error with a reason, and the emulator keeps serving', async () => {
    const datastoreId = await newDatastore();
    const created = await emulator.client.datasources.uploadFile({ datastoreId, file: fileOf('this is not a PDF at all', 'broken.pdf', 'application/pdf') });
    const done = await settled(emulator, created.id);
    assert.equal(done.status, 'error');
    assert.equal(typeof done.errorMessage, 'string');
    assert.ok(String(done.errorMessage).length > 5, String(done.errorMessage));
    assert.equal((await emulator.api('GET', '/v1/agents')).status, 200);
  });
});

describe('web', () => {
  test('web_page reads one address', async () => {
    const datastoreId = await newDatastore();
    const created = await emulator.client.datasources.createFromWeb({ datastoreId, type: 'web_page', name: 'Hours', config: { source_url: `${site.url}/a` } });
    assert.equal(created.status, 'unsynched');
    assert.equal(created.config?.source_url, `${site.url}/a`);
    assert.equal((await settled(emulator, created.id)).status, 'synched');
    const [hit] = await emulator.client.datastores.query(datastoreId, { query: 'when does the aquarium open' });
    assert.equal(hit?.datasource_id, created.id);
    assert.equal(hit?.source, `${site.url}/a`);
  });

  test('web_site without a sitemap crawls the links of its host, each page a web_page of its group', async () => {
    const datastoreId = await newDatastore();
    const created = await emulator.client.datasources.createFromWeb({ datastoreId, type: 'web_site', name: 'Aquarium', config: { source_url: `${site.url}/` } });
    assert.equal((await settled(emulator, created.id)).status, 'synched');
    const list = (await (await emulator.api('GET', `/v1/datastores/${datastoreId}/datasources`)).json()) as { data: { id: string; type: string; groupId: string | null; config: { source_url: string } }[] };
    const pages = list.data.filter((d) => d.groupId === created.id);
    assert.deepEqual(pages.map((d) => new URL(d.config.source_url).pathname).sort(), ['/', '/a', '/b', '/c']);
    assert.ok(pages.every((d) => d.type === 'web_page'));
    const [hit] = await emulator.client.datastores.query(datastoreId, { query: 'penguins fed noon' });
    assert.equal(hit?.source, `${site.url}/c`);
    assert.equal(hit?.datasource_name, 'Feeding');
    // The site's id filters its pages.
    const filtered = await emulator.client.datastores.query(datastoreId, { query: 'aquarium', filters: { datasource_ids: [created.id] } });
    assert.ok(filtered.length >= 3);
    // Deleting the site deletes its pages.
    await emulator.client.datasources.delete(created.id);
    assert.deepEqual(await emulator.client.datastores.query(datastoreId, { query: 'penguins fed noon' }), []);
  });

  test('web_site with a sitemap reads the pages it lists', async () => {
    const datastoreId = await newDatastore();
    const created = await emulator.client.datasources.createFromWeb({
      datastoreId,
      type: 'web_site',
      config: { source_url: `${site.url}/`, sitemap: `${site.url}/sitemap.xml` },
    });
    assert.equal((await settled(emulator, created.id)).status, 'synched');
    const list = (await (await emulator.api('GET', `/v1/datastores/${datastoreId}/datasources`)).json()) as { data: { groupId: string | null; config: { source_url: string } }[] };
    const pages = list.data.filter((d) => d.groupId === created.id).map((d) => new URL(d.config.source_url).pathname).sort();
    assert.deepEqual(pages, ['/b', '/c']);
  });

  test('a site that cannot be read ends in status error', async () => {
    const datastoreId = await newDatastore();
    const created = await emulator.client.datasources.createFromWeb({ datastoreId, type: 'web_page', config: { source_url: `${site.url}/missing` } });
    const done = await settled(emulator, created.id);
    assert.equal(done.status, 'error');
    assert.match(String(done.errorMessage), /404/);
  });
});
