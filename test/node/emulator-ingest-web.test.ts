import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { crawlWebSite, fetchWebPage, type CrawlStart, type WebLimits, type WebPage } from '../../emulator/src/ingest/index.js';
import { refusal } from '../support/ingest-refusal.js';

// A small web site served over real HTTP, and a second host that must never be visited.
let site: Server;
let otherHost: Server;
let base = '';
let other = '';
const hits = new Map<string, number>();
let otherHits = 0;
let hugeBytesSent = 0;
const closedEarly = new Set<string>();

const HUGE_BYTES = 40 * 1024 * 1024;

function page(response: ServerResponse, title: string, body: string, head = ''): void {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(`<!doctype html><html><head><title>${title}</title>${head}</head><body>${body}</body></html>`);
}

function xml(response: ServerResponse, body: string): void {
  response.writeHead(200, { 'content-type': 'application/xml' });
  response.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
}

const urlset = (paths: string[]) =>
  `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((path) => `<url><loc>${path.startsWith('http') ? path : base + path.slice(1)}</loc></url>`).join('')}</urlset>`;

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = request.url ?? '/';
  hits.set(path, (hits.get(path) ?? 0) + 1);
  response.on('close', () => {
    if (!response.writableEnded) closedEarly.add(path);
  });
  switch (path) {
    case '/':
      return page(
        response,
        'Home',
        `<nav><a href="/a">Menu</a></nav><h1>Welcome</h1><p>The home page of the test site.</p>
         <a href="/a">Alpha</a> <a href="b">Beta</a> <a href="/a#section">Alpha again</a> <a href="./loop/1">Loop</a>
         <a href="mailto:someone@example.com">Mail</a> <a href="javascript:alert(1)">Script</a> <a href="/image.png">Image</a>
         <a href="${other}secret">Elsewhere</a> <a href="/slow">Slow</a> <a href="/huge">Huge</a> <a href="/data">Data</a>
         <a href="/missing">Missing</a> <a href="/redirect-to-a">Redirect</a> <a href="/redirect-off-host">Away</a>
         <a href="/nofollow-target" rel="nofollow">Not followed</a> <a href="/noindex">Hidden</a> <a href="/copy-of-a">Copy</a>
         <a href="/deep/1">Deep</a>`,
      );
    case '/a':
    case '/copy-of-a':
      return page(response, 'Alpha', '<p>Alpha page: the first letter.</p><a href="/">Home</a> <a href="/b">Beta</a>');
    case '/b':
      return page(response, 'Beta', '<p>Beta page: the second letter.</p><a href="/a">Alpha</a>');
    case '/loop/1':
      return page(response, 'Loop one', '<p>Loop one links to loop two.</p><a href="2">Two</a>');
    case '/loop/2':
      return page(response, 'Loop two', '<p>Loop two links back to loop one.</p><a href="/loop/1">One</a> <a href="/loop/1?">One with query</a>');
    case '/loop/1?':
      return page(response, 'Loop one', '<p>Loop one links to loop two.</p><a href="2">Two</a>');
    case '/noindex':
      return page(response, 'Hidden', '<p>Do not index me.</p><a href="/noindex-child">Child</a>', '<meta name="robots" content="noindex">');
    case '/noindex-child':
      return page(response, 'Child', '<p>Child of a page that is not indexed.</p>');
    case '/nofollow-target':
      return page(response, 'Nofollow', '<p>Only a nofollow link leads here.</p>');
    case '/data':
      response.writeHead(200, { 'content-type': 'application/json' });
      return void response.end('{"not":"a page"}');
    case '/redirect-to-a':
      response.writeHead(302, { location: '/a' });
      return void response.end();
    case '/redirect-off-host':
      response.writeHead(302, { location: `${other}landing` });
      return void response.end();
    case '/slow':
      // Answers after 5 s, far beyond the tests' page timeout.
      setTimeout(() => page(response, 'Slow', '<p>Finally.</p>'), 5_000).unref();
      return;
    case '/slow-body':
      response.writeHead(200, { 'content-type': 'text/html' });
      response.write('<title>Drip</title><p>Starts quickly');
      {
        const drip = setInterval(() => response.write(' and drips'), 200);
        response.on('close', () => clearInterval(drip));
      }
      return;
    case '/huge': {
      response.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.from(`<p>${'huge page text '.repeat(4096)}</p>\n`);
      while (hugeBytesSent < HUGE_BYTES && !response.destroyed) {
        hugeBytesSent += chunk.length;
        if (!response.write(chunk)) await drainOrClose(response);
      }
      return void response.end();
    }
    case '/latin1':
      response.writeHead(200, { 'content-type': 'text/html' });
      return void response.end(Buffer.from('<meta charset="windows-1252"><title>Caf\xe9</title><p>Cr\xe8me br\xfbl\xe9e</p>', 'latin1'));
    case '/notes.txt':
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return void response.end('Plain notes,\r\nsecond line.');
    case '/script-only':
      return page(response, 'App', '<div id="app"></div><script>document.body.textContent = "rendered"</script>');
    case '/deep/1':
    case '/deep/2':
    case '/deep/3':
    case '/deep/4':
    case '/deep/5': {
      const depth = Number(path.slice(-1));
      return page(response, `Deep ${depth}`, `<p>Level ${depth} of the deep chain.</p><a href="/deep/${depth + 1}">Deeper</a>`);
    }
    case '/sitemap.xml':
      return xml(response, urlset(['/a', '/b', '/loop/1', `${other}offsite`, '/missing', '/a']));
    case '/sitemap-index.xml':
      return xml(
        response,
        `<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
          <sm:sitemap><sm:loc>${base}sitemap-1.xml</sm:loc></sm:sitemap>
          <sm:sitemap><sm:loc>${base}sitemap-2.xml.gz</sm:loc></sm:sitemap>
          <sm:sitemap><sm:loc>${base}sitemap-missing.xml</sm:loc></sm:sitemap>
          <sm:sitemap><sm:loc>${base}sitemap-index.xml</sm:loc></sm:sitemap>
        </sm:sitemapindex>`,
      );
    case '/sitemap-1.xml':
      return xml(response, urlset(['/a']));
    case '/sitemap-2.xml.gz':
      response.writeHead(200, { 'content-type': 'application/gzip' });
      return void response.end(gzipSync(`<?xml version="1.0"?>${urlset(['/b', '/deep/3'])}`));
    case '/sitemap.txt':
      response.writeHead(200, { 'content-type': 'text/plain' });
      return void response.end(`${base}loop/2\n\n${base}b\nnot an address\n`);
    case '/empty-sitemap.xml':
      return xml(response, urlset([]));
    case '/slow-site':
      return page(response, 'Slow site', '<p>Every link is slow.</p><a href="/slow">1</a><a href="/slow?2">2</a><a href="/slow?3">3</a>');
    default:
      response.writeHead(404, { 'content-type': 'text/html' });
      return void response.end('<p>Not found</p>');
  }
}

function drainOrClose(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

before(async () => {
  site = createServer((request, response) => void handle(request, response));
  otherHost = createServer((_request, response) => {
    otherHits++;
    response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Other</title><p>Another site.</p>');
  });
  base = await listen(site);
  // "localhost" is another host than "127.0.0.1" by name, though it reaches the same machine.
  other = (await listen(otherHost)).replace('127.0.0.1', 'localhost');
});

after(async () => {
  site.closeAllConnections();
  otherHost.closeAllConnections();
  await Promise.all([new Promise((resolve) => site.close(resolve)), new Promise((resolve) => otherHost.close(resolve))]);
});

// The test sites listen on 127.0.0.1, which the emulator refuses unless allowed.
const LOCAL: Partial<WebLimits> = { allowPrivateAddresses: ['127.0.0.1'] };
// Long enough for a page on a busy machine, well short of the 5 s the slow page takes.
const FAST: Partial<WebLimits> = { ...LOCAL, timeoutMs: 2000, maxBytes: 256 * 1024 };


async function crawl(start: Omit<CrawlStart, 'onSkip'>, limits: Partial<WebLimits> = FAST) {
  const pages: WebPage[] = [];
  const skipped = new Map<string, string>();
  for await (const page of crawlWebSite({ ...start, onSkip: (url, reason) => skipped.set(url, reason) }, limits)) pages.push(page);
  return { pages, skipped, paths: pages.map((page) => new URL(page.url).pathname + new URL(page.url).search) };
}

/** Polls until `check` holds; a ceiling for a loaded machine, not an expectation. */
async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

function resetCounters(): void {
  hits.clear();
  otherHits = 0;
  closedEarly.clear();
}

describe('fetchWebPage', () => {
  it('reads the title and the visible text, without menus, scripts or markup', async () => {
    const result = await fetchWebPage(base, FAST);
    assert.equal(result.url, base);
    assert.equal(result.title, 'Home');
    assert.ok(result.text.startsWith('Welcome\n\nThe home page of the test site.'), result.text);
    assert.ok(!result.text.includes('Menu'), 'navigation is left out');
    assert.ok(!result.text.includes('<'));
    assert.equal(result.truncated, undefined);
  });

  it('follows redirects and reports the final address', async () => {
    const result = await fetchWebPage(`${base}redirect-to-a`, FAST);
    assert.equal(result.url, `${base}a`);
    assert.equal(result.title, 'Alpha');
  });

  it('refuses addresses that are not http(s) without any request', async () => {
    resetCounters();
    assert.equal(await refusal(fetchWebPage('ftp://127.0.0.1/file', FAST)), 'only http and https addresses can be read, not ftp: (ftp://127.0.0.1/file)');
    assert.equal(await refusal(fetchWebPage('file:///etc/passwd', FAST)), 'only http and https addresses can be read, not file: (file:///etc/passwd)');
    assert.equal(await refusal(fetchWebPage('not a url', FAST)), 'not a web address: "not a url"');
    assert.equal(hits.size, 0);
  });

  it('refuses an error status, naming it', async () => {
    assert.equal(await refusal(fetchWebPage(`${base}missing`, FAST)), `${base}missing answered 404 Not Found`);
  });

  it('refuses content that is not a web page', async () => {
    assert.equal(await refusal(fetchWebPage(`${base}data`, FAST)), `${base}data is not a web page (its content type is application/json)`);
  });

  it('gives up on a page that does not answer within the timeout', async () => {
    const started = performance.now();
    assert.equal(await refusal(fetchWebPage(`${base}slow`, { ...LOCAL, timeoutMs: 300 })), `${base}slow did not answer within 300 ms`);
    assert.ok(performance.now() - started < 3_000);
  });

  it('gives up on a page whose body keeps dripping past the timeout', async () => {
    const started = performance.now();
    assert.equal(await refusal(fetchWebPage(`${base}slow-body`, { ...LOCAL, timeoutMs: 500 })), `${base}slow-body did not answer within 500 ms`);
    assert.ok(performance.now() - started < 3_000);
  });

  it('reads only the first maxBytes of a huge page and stops the download', async () => {
    hugeBytesSent = 0;
    const result = await fetchWebPage(`${base}huge`, { ...LOCAL, maxBytes: 1024 * 1024, timeoutMs: 10_000 });
    assert.equal(result.truncated, true);
    assert.ok(result.text.startsWith('huge page text'));
    assert.ok(result.text.length <= 1024 * 1024);
    // Give the server a moment to notice the closed connection.
    for (let wait = 0; wait < 50 && !closedEarly.has('/huge'); wait++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(closedEarly.has('/huge'), 'the connection was closed before the page ended');
    assert.ok(hugeBytesSent < HUGE_BYTES / 2, `the server sent ${hugeBytesSent} bytes`);
  });

  it('decodes the page in the charset it declares', async () => {
    const result = await fetchWebPage(`${base}latin1`, FAST);
    assert.equal(result.title, 'Café');
    assert.equal(result.text, 'Crème brûlée');
  });

  it('reads a plain text page', async () => {
    const result = await fetchWebPage(`${base}notes.txt`, FAST);
    assert.deepEqual(result, { url: `${base}notes.txt`, title: 'notes.txt', text: 'Plain notes,\nsecond line.' });
  });

  it('refuses a page whose text only a script would write', async () => {
    assert.equal(await refusal(fetchWebPage(`${base}script-only`, FAST)), `${base}script-only has no readable text (scripts on the page are not run)`);
  });

  it('refuses an address nobody listens on', async () => {
    const closed = createServer();
    const address = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    assert.equal(await refusal(fetchWebPage(address, FAST)), `could not reach ${address}: connection refused`);
  });
});

describe('crawlWebSite without a sitemap', () => {
  it('reads every page reachable on the same host once, through loops, and skips the rest with reasons', async () => {
    resetCounters();
    const started = performance.now();
    const { pages, skipped, paths } = await crawl({ sourceUrl: base }, { ...FAST, maxDepth: 10 });
    assert.deepEqual(
      [...paths].sort(),
      ['/', '/a', '/b', '/deep/1', '/deep/2', '/deep/3', '/deep/4', '/deep/5', '/loop/1', '/loop/2', '/noindex-child', '/huge'].sort(),
    );
    assert.equal(new Set(pages.map((page) => page.url)).size, pages.length, 'no page twice');
    assert.equal(pages[0]!.url, base, 'the start page comes first');
    assert.equal(otherHits, 0, 'the other host is never visited');
    assert.equal(hits.get('/nofollow-target'), undefined, 'rel="nofollow" links are not followed');
    assert.equal(hits.get('/image.png'), undefined, 'links to files are not fetched');
    for (const [path, count] of hits) assert.equal(count, 1, `${path} was fetched ${count} times`);
    assert.equal(skipped.get(`${other}secret`), `on another host than ${new URL(base).host}`);
    assert.equal(skipped.get(`${base}missing`), `${base}missing answered 404 Not Found`);
    assert.equal(skipped.get(`${base}slow`), `${base}slow did not answer within 2 s`);
    assert.equal(skipped.get(`${base}data`), `${base}data is not a web page (its content type is application/json)`);
    assert.equal(skipped.get(`${base}redirect-off-host`), `redirects to another host (${new URL(other).host})`);
    assert.equal(skipped.get(`${base}noindex`), 'the page asks not to be indexed');
    assert.equal(skipped.get(`${base}copy-of-a`), 'the same text as a page read already');
    assert.equal(skipped.get(`${base}image.png`), 'a file, not a page');
    assert.match(skipped.get(`${base}redirect-to-a`) ?? '', /^redirects to .*\/a, read already$/);
    assert.equal(pages.find((page) => page.url.endsWith('/huge'))?.truncated, true);
    assert.ok(performance.now() - started < 10_000);
  });

  it('moves to the host the start page redirects to (http to https, bare to www)', async () => {
    resetCounters();
    const { pages } = await crawl({ sourceUrl: `${base}redirect-off-host` });
    assert.deepEqual(pages.map((page) => [page.url, page.title]), [[`${other}landing`, 'Other']]);
    assert.equal(otherHits, 1);
  });

  it('follows links only maxDepth steps from the start page', async () => {
    const { paths } = await crawl({ sourceUrl: `${base}deep/1` }, { ...FAST, maxDepth: 2 });
    assert.deepEqual(paths, ['/deep/1', '/deep/2', '/deep/3']);
    const startOnly = await crawl({ sourceUrl: base }, { ...FAST, maxDepth: 0 });
    assert.deepEqual(startOnly.paths, ['/']);
  });

  it('returns at most maxPages pages', async () => {
    resetCounters();
    const { pages } = await crawl({ sourceUrl: base }, { ...FAST, maxPages: 3, concurrency: 1 });
    assert.equal(pages.length, 3);
    const requests = [...hits.values()].reduce((sum, count) => sum + count, 0);
    assert.ok(requests <= 6, `${requests} requests for 3 pages`);
  });

  it('stops a crawl at maxTotalBytes', async () => {
    resetCounters();
    const { paths } = await crawl({ sourceUrl: base }, { ...FAST, maxTotalBytes: 1, concurrency: 1 });
    assert.deepEqual(paths, ['/']);
  });

  it('ends within maxTotalMs when every page is slow', async () => {
    const started = performance.now();
    const { paths } = await crawl({ sourceUrl: `${base}slow-site` }, { ...LOCAL, timeoutMs: 10_000, maxTotalMs: 600 });
    assert.deepEqual(paths, ['/slow-site']);
    assert.ok(performance.now() - started < 3_000);
  });

  it('refuses a site whose start page cannot be read', async () => {
    assert.equal(await refusal(crawl({ sourceUrl: `${base}missing` })), `${base}missing answered 404 Not Found`);
    assert.equal(await refusal(crawl({ sourceUrl: 'gopher://127.0.0.1/' })), 'only http and https addresses can be read, not gopher: (gopher://127.0.0.1/)');
  });

  it('stops the requests in flight when the reader stops early', async () => {
    resetCounters();
    for await (const first of crawlWebSite({ sourceUrl: `${base}slow-site` }, { ...LOCAL, timeoutMs: 10_000 })) {
      assert.equal(first.title, 'Slow site');
      // Let the slow requests start, then leave.
      await until(() => hits.has('/slow'));
      break;
    }
    await until(() => closedEarly.has('/slow'));
    assert.ok(closedEarly.has('/slow'), 'the slow request was aborted');
  });

  it('stops when the caller aborts', async () => {
    resetCounters();
    const controller = new AbortController();
    let aborted = 0;
    // Once the slow pages are asked for (not after a guessed delay, which a loaded machine can outrun).
    void until(() => hits.has('/slow')).then(() => {
      aborted = performance.now();
      controller.abort();
    });
    const { paths } = await crawl({ sourceUrl: `${base}slow-site` }, { ...LOCAL, timeoutMs: 10_000, signal: controller.signal });
    assert.deepEqual(paths, ['/slow-site']);
    // Ended by the abort, well before the slow pages would have answered (5 s).
    assert.ok(aborted > 0 && performance.now() - aborted < 4_000);
  });
});

describe('crawlWebSite with a sitemap', () => {
  it('reads exactly the pages a sitemap lists on the site, each once, without following links', async () => {
    resetCounters();
    const { paths, skipped } = await crawl({ sourceUrl: base, sitemap: `${base}sitemap.xml` });
    assert.deepEqual(paths, ['/a', '/b', '/loop/1']);
    assert.equal(hits.get('/'), undefined, 'the start page is not in the sitemap, so it is not read');
    assert.equal(hits.get('/loop/2'), undefined, 'links are not followed');
    assert.equal(otherHits, 0);
    assert.equal(skipped.get(`${other}offsite`), `on another host than ${new URL(base).host}`);
    assert.equal(skipped.get(`${base}missing`), `${base}missing answered 404 Not Found`);
  });

  it('follows a sitemap index, gzip-compressed children included, each sitemap once', async () => {
    resetCounters();
    const { paths, skipped } = await crawl({ sourceUrl: base, sitemap: `${base}sitemap-index.xml` });
    assert.deepEqual([...paths].sort(), ['/a', '/b', '/deep/3']);
    assert.equal(hits.get('/sitemap-index.xml'), 1);
    assert.equal(skipped.get(`${base}sitemap-missing.xml`), `${base}sitemap-missing.xml answered 404 Not Found`);
  });

  it('reads a plain text sitemap', async () => {
    const { paths } = await crawl({ sourceUrl: base, sitemap: `${base}sitemap.txt` });
    assert.deepEqual(paths, ['/loop/2', '/b']);
  });

  it('returns at most maxPages of the pages a sitemap lists', async () => {
    const { paths } = await crawl({ sourceUrl: base, sitemap: `${base}sitemap.xml` }, { ...FAST, maxPages: 2, concurrency: 1 });
    assert.deepEqual(paths, ['/a', '/b']);
  });

  it('refuses a sitemap that cannot be read or lists no page', async () => {
    assert.equal(await refusal(crawl({ sourceUrl: base, sitemap: `${base}no-sitemap.xml` })), `could not read the sitemap: ${base}no-sitemap.xml answered 404 Not Found`);
    assert.equal(await refusal(crawl({ sourceUrl: base, sitemap: `${base}empty-sitemap.xml` })), `the sitemap ${base}empty-sitemap.xml lists no pages on ${new URL(base).host}`);
  });
});
