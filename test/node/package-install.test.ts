// What a user gets from npm: both packages packed from this checkout,
// installed from the tarballs into a fresh app outside the repository
// (dependencies from the npm registry, through npm's cache), then used the
// way the README says: the widget's production install and its size, a Vite
// app, the script-tag file on a plain page, the installed `kagent-proxy` and
// `kagent-emulator` commands serving together, and the types under
// `skipLibCheck: false`.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findChrome } from '../../scripts/find-chrome.js';
import type { TestServer } from '../support/http.js';
import { earnSession, withSession } from '../support/proxy-sessions.js';
import {
  appEnvironment,
  filesUnder,
  folderBytes,
  installedPackages,
  npmInstall,
  packWorkspace,
  run,
  serveFolders,
  start,
  type Started,
} from '../support/installed-app.js';

const repository = fileURLToPath(new URL('../../', import.meta.url));
const ours = (name: string) => (JSON.parse(readFileSync(join(repository, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** Issue 12: `npm install --omit=dev kagent-chat` brings at most this much, itself included (undici is the Node proxy's client for the service; the visitor sessions' proof of work needs no package, only WebCrypto). */
const MAX_PACKAGES = 13;
const MAX_BYTES = 14 * 1000 * 1000;

const scratch = mkdtempSync(join(tmpdir(), 'kagent-install-'));
const app = join(scratch, 'app');
const nodeModules = join(app, 'node_modules');
/** The widget's production install, measured before the app adds its dev tools. */
let production: { packages: string[]; bytes: number };
let emulatorTarball: string | undefined;

let emulator: Started | undefined;
let proxy: Started | undefined;
let site: TestServer | undefined;
let browser: Browser | undefined;
/** What `npm pack` printed: the lifecycle scripts it ran. */
let packOutput = '';
/** What the emulator and the proxy said at start. */
let service: { agentId: string; proxyUrl: string; siteOrigin: string; emulatorUrl: string };

// Time limits are ceilings for a loaded machine (two test runs side by side), not expectations: it runs in about a minute when idle.
const QUESTION = 'How long do I hold the power button to reset the Zephyr tablet?';

before(async () => {
  const packs = join(scratch, 'packs');
  mkdirSync(packs);
  mkdirSync(app);
  // Packed once, as the README says, for every test here: each package's prepack builds it (the root's builds the emulator too).
  const { tarballs, output } = await packWorkspace(repository, packs);
  packOutput = output;
  emulatorTarball = tarballs.get('kagent-emulator');
  const widget = tarballs.get('kagent-chat');
  const emulatorPackage = tarballs.get('kagent-emulator');
  assert.ok(widget && emulatorPackage, `npm pack made both tarballs: ${[...tarballs.values()].join(', ')}`);

  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }, null, 2));
  await npmInstall(app, ['--omit=dev', widget]);
  production = { packages: installedPackages(nodeModules), bytes: folderBytes(nodeModules) };

  // What a developer adds beside it: the emulator as a dev package, Vite and TypeScript as ours.
  await npmInstall(app, ['-D', emulatorPackage, `vite@${ours('vite')}`, `typescript@${ours('typescript')}`, `@types/node@${ours('@types/node')}`]);
});

after(async () => {
  await browser?.close();
  await Promise.all([proxy?.stop(), emulator?.stop(), site?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * Starts, once, what the page tests and the command test share: the
 * installed emulator fed one document, the installed proxy in front of it,
 * and a static server for the app's pages (the proxy's allowed origin).
 */
let services: Promise<void> | undefined;
function startServices(): Promise<void> {
  services ??= (async () => {
    const seed = join(scratch, 'documents');
    mkdirSync(seed);
    writeFileSync(join(seed, 'tablet.md'), '# Resetting the Zephyr tablet\n\nHold the power button for twelve seconds to reset the Zephyr tablet.\n');
    site = await serveFolders({
      '/': join(app, 'site', 'dist'),
      '/plain/': join(app, 'plain'),
      '/package/': join(nodeModules, 'kagent-chat', 'dist'),
    });
    emulator = start('npx', ['--no-install', 'kagent-emulator', '--port', '0', '--json', '--pace', '5', '--seed', seed], app, appEnvironment());
    const [firstLine] = await emulator.line(/^\{.*\}$/);
    const info = JSON.parse(firstLine) as { url: string; apiKey: string; agentId: string };
    await emulator.line(/^Seeded the demo datastore/);
    proxy = start(
      'npx',
      ['--no-install', 'kagent-proxy'],
      app,
      appEnvironment({
        PORT: '0',
        KAGENT_UPSTREAM_URL: info.url,
        KAGENT_API_KEY: info.apiKey,
        KAGENT_AGENT_IDS: info.agentId,
        KAGENT_ALLOWED_ORIGINS: site.url,
        // Visitor sessions on, as a site that fears bots runs it: the installed widget must earn its session (little work: the protocol is what is tested).
        KAGENT_SESSION_SECRET: 'installed-app-session-secret-0123456789abcdef',
        KAGENT_SESSION_DIFFICULTY: '0.2',
        KAGENT_SESSIONS_PER_ADDRESS: 'off',
      }),
    );
    const [, proxyUrl] = await proxy.line(/kagent proxy listening on (http:\/\/127\.0\.0\.1:\d+)/);
    service = { agentId: info.agentId, proxyUrl: proxyUrl!, siteOrigin: site.url, emulatorUrl: info.url };
  })();
  return services;
}

async function openBrowser(): Promise<Browser> {
  browser ??= await puppeteer.launch({
    executablePath: findChrome(),
    // Puppeteer waits 30 s for the browser to say it is up: once not enough on a loaded CI machine.
    timeout: 120_000,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return browser;
}

/**
 * Opens `url`, asks the chat on it a question as a visitor does, and returns
 * the `kagent-answer` event's detail and the content type of the answer's response.
 */
async function askOnPage(url: string): Promise<{ answer: string; sources: string[]; contentType: string | undefined; errors: string[]; sessions: number }> {
  const page = await (await openBrowser()).newPage();
  page.setDefaultTimeout(120_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  // A missing resource is reported below with its address; the browser's own favicon request is not the page's.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  let contentType: string | undefined;
  let sessions = 0;
  // Puppeteer may report a response after the page has already read its whole body (it pairs each response with a
  // later protocol event): the answer's event can come first, so the query's response is awaited on its own.
  let answered: (type: string | undefined) => void = () => {};
  const queryAnswered = new Promise<string | undefined>((resolve) => (answered = resolve));
  page.on('response', (response) => {
    if (/\/sessions$/.test(response.url()) && response.status() === 201) sessions++;
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) errors.push(`${response.status()} ${response.url()}`);
    if (/\/agents\/[^/]+\/query$/.test(response.url())) {
      contentType = response.headers()['content-type'];
      if (response.status() === 200) answered(contentType);
    }
  });
  // The answer's event, or the failure's: the page reports whichever comes first.
  await page.evaluateOnNewDocument(() => {
    (window as unknown as { outcome: Promise<unknown> }).outcome = new Promise((resolve, reject) => {
      document.addEventListener('kagent-answer', (event) => resolve((event as CustomEvent).detail));
      document.addEventListener('kagent-error', (event) => reject(new Error(`kagent-error: ${JSON.stringify((event as CustomEvent).detail)}`)));
    });
  });
  try {
    await page.goto(url);
    await page.waitForFunction(() => Boolean(document.querySelector('kagent-chat')?.shadowRoot?.querySelector('textarea[part="input"]:not([disabled])')), {
      polling: 100,
      timeout: 120_000,
    });
    await page.type('kagent-chat >>> textarea[part="input"]', QUESTION);
    await page.keyboard.press('Enter');
    const detail = (await page.evaluate(() => (window as unknown as { outcome: Promise<unknown> }).outcome)) as {
      answer: string;
      sources: { datasource_name?: string }[];
    };
    const timeout = new Promise<undefined>((resolve) => setTimeout(resolve, 30_000, undefined).unref());
    contentType = (await Promise.race([queryAnswered, timeout])) ?? contentType;
    return { answer: detail.answer, sources: detail.sources.map((source) => source.datasource_name ?? ''), contentType, errors, sessions };
  } finally {
    await page.close();
  }
}

describe('the packed tarballs, installed in a fresh app outside the repository', () => {
  test(`kagent-chat installs with its production dependencies as at most ${MAX_PACKAGES} packages and ${MAX_BYTES / 1e6} MB, without src/ or tests`, (t) => {
    const megabytes = (production.bytes / 1e6).toFixed(1);
    t.diagnostic(`production install: ${production.packages.length} packages, ${megabytes} MB`);
    assert.ok(production.packages.some((name) => name.startsWith('kagent-chat@')), 'kagent-chat itself is counted');
    assert.ok(production.packages.length <= MAX_PACKAGES, `${production.packages.length} packages: ${production.packages.join(', ')}`);
    assert.ok(production.bytes <= MAX_BYTES, `${megabytes} MB of node_modules`);
    assert.ok(!production.packages.some((name) => /^(@redis\/client|kagent-emulator|unpdf|mammoth)@/.test(name)), 'no Redis client and no emulator parsers');

    // Installed from its tarball, not linked to this checkout.
    for (const name of ['kagent-chat', 'kagent-emulator']) {
      const installed = realpathSync(join(nodeModules, name));
      assert.ok(installed.startsWith(realpathSync(app)), `${name} is a copy inside the app: ${installed}`);
      const files = filesUnder(installed);
      assert.deepEqual(
        files.filter((file) => /^(src|test|tests)\//.test(file) || /\.(test|spec)\.[cm]?[jt]sx?$/.test(file) || (/\.tsx?$/.test(file) && !/\.d\.ts$/.test(file))),
        [],
        `${name} ships no sources or tests`,
      );
      assert.ok(files.includes('LICENSE') && files.includes('README.md'), `${name} ships its README and LICENSE`);
    }
  });

  test("the emulator's package builds its dist/ when packed: its own prepack runs its build, and the tarball holds dist/", { timeout: 180_000 }, async () => {
    // The root's build builds the emulator too, silently (`npm run -s`): only the emulator's own prepack prints these
    // banners, so a package packed alone (npm pack -w kagent-emulator) builds its dist/ as well.
    assert.match(packOutput, /^> kagent-emulator@[\w.-]+ prepack\n> npm run build\n[\s\S]*?^> kagent-emulator@[\w.-]+ build\n> tsc -p tsconfig\.build\.json$/m, packOutput);
    assert.ok(emulatorTarball, 'npm pack made the emulator\'s tarball');
    const listed = await run('tar', ['-tzf', emulatorTarball], scratch, process.env);
    const files = listed.output.split('\n');
    for (const file of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/bin/kagent-emulator.js']) assert.ok(files.includes(file), `${file} in ${emulatorTarball}`);
  });

  test("the script-tag build ships the bundled libraries' licences: each file with a library's code names the file that holds them all", () => {
    const dist = join(nodeModules, 'kagent-chat', 'dist');
    const first = readFileSync(join(dist, 'kagent-chat.js'), 'utf8');
    const second = readFileSync(join(dist, /kagent-chat-answers-(?!dompurify-)[\w-]+\.js/.exec(first)![0]), 'utf8');
    const withDomPurify = readFileSync(join(dist, /kagent-chat-answers-dompurify-[\w-]+\.js/.exec(first)![0]), 'utf8');
    const sanitizer = readFileSync(join(dist, /kagent-chat-sanitizer-[\w-]+\.js/.exec(second)![0]), 'utf8');
    // Lit in the first part; marked and fetch-event-source in the second; DOMPurify in its own, and with them in the second part with DOMPurify.
    for (const [name, file] of [['first part', first], ['second part', second], ['second part with DOMPurify', withDomPurify], ['DOMPurify chunk', sanitizer]]) {
      assert.equal(file!.split('\n')[0], '/*! Licenses: kagent-chat.licenses.txt */', `the ${name} names the licences' file`);
    }
    const text = readFileSync(join(dist, 'kagent-chat.licenses.txt'), 'utf8');
    const notices: [string, RegExp][] = [
      ['@lit/reactive-element', /BSD 3-Clause License\s+Copyright \(c\) \d{4} Google LLC/],
      ['lit-html', /BSD 3-Clause License\s+Copyright \(c\) \d{4} Google LLC/],
      ['lit-element', /BSD 3-Clause License\s+Copyright \(c\) \d{4} Google LLC/],
      ['marked', /Copyright \(c\) \d{4}.*Christopher Jeffrey/s],
      ['@microsoft/fetch-event-source', /MIT License[\s\S]*Copyright \(c\) Microsoft Corporation/],
      ['dompurify', /Apache License[\s\S]*Mozilla Public License/],
    ];
    for (const [name, notice] of notices) {
      const at = text.indexOf(`\n${name} `);
      assert.ok(at >= 0, `${name} in the licences`);
      const end = text.indexOf('\n-----', at + 1);
      assert.match(text.slice(at, end < 0 ? undefined : end), notice, `${name}'s notice`);
    }
  });

  test("the README's list of files to copy names exactly the script-tag files the package ships, and README and docs/widget.md count them alike", () => {
    const shipped = filesUnder(join(nodeModules, 'kagent-chat', 'dist'))
      .filter((file) => /^kagent-chat[^/]*$/.test(file) && !file.endsWith('.map'))
      // Each chunk's name ends with the build's 8-character hash.
      .map((file) => (file === 'kagent-chat.js' || !file.endsWith('.js') ? file : file.replace(/-[\w-]{8}\.js$/, '-<hash>.js')))
      .sort();
    const readme = readFileSync(join(repository, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### 2. Copy the files'), readme.indexOf('### 3. Load it'));
    const listed = [...section.matchAll(/^\| `(kagent-chat[^`]*)` \|/gm)].map((match) => match[1]!).sort();
    assert.deepEqual(listed, shipped, 'the README table lists each shipped file once');
    const count = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'][shipped.length]!;
    assert.match(section, new RegExp(`Copy all ${count} `), `the README says to copy all ${count}`);
    assert.match(readFileSync(join(repository, 'docs', 'widget.md'), 'utf8'), new RegExp(`\\(${count}: `), `docs/widget.md counts ${count} files`);
  });

  test('npx kagent-proxy and npx kagent-emulator, run in the app, serve a streamed answer together', { timeout: 180_000 }, async () => {
    await startServices();
    const { grant } = await earnSession(service.proxyUrl, service.siteOrigin);
    const response = await fetch(`${service.proxyUrl}/agents/${service.agentId}/query`, {
      method: 'POST',
      headers: { ...withSession(grant.token, service.siteOrigin), accept: 'text/event-stream' },
      body: JSON.stringify({ query: QUESTION, streaming: true }),
    });
    const body = await response.text();
    assert.equal(response.status, 200, body);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    // The wire format percent-encodes each piece's data.
    const pieces = [...body.matchAll(/^event: answer\ndata: (.*)$/gm)].map((match) => decodeURIComponent(match[1]!));
    assert.ok(pieces.length > 1, `the answer came in pieces:\n${body.slice(0, 400)}`);
    assert.match(pieces.join(''), /twelve seconds/);
    assert.match(body, /data: \[DONE\]/);
  });

  test('kagent-chat/openapi.json is in the package, and the installed emulator serves it at /openapi.json', { timeout: 180_000 }, async () => {
    const shipped = JSON.parse(readFileSync(join(nodeModules, 'kagent-chat', 'openapi.json'), 'utf8')) as { openapi: string; paths: object };
    assert.equal(shipped.openapi, '3.1.0');
    await startServices();
    const served = await fetch(`${service.emulatorUrl}/openapi.json`);
    assert.equal(served.status, 200);
    assert.deepEqual(((await served.json()) as { paths: object }).paths, shipped.paths);
  });

  test('the installed kagent-proxy, given KAGENT_REDIS_URL without @redis/client, stops and names the package to install', { timeout: 120_000 }, async () => {
    assert.throws(() => realpathSync(join(nodeModules, '@redis', 'client')), 'the app has no Redis client');
    const env = appEnvironment({
      PORT: '0',
      KAGENT_UPSTREAM_URL: 'http://127.0.0.1:9',
      KAGENT_API_KEY: 'kagent_install_test_key',
      KAGENT_AGENT_IDS: 'agent',
      KAGENT_REDIS_URL: 'redis://127.0.0.1:9',
    });
    const stopped = await run('npx', ['--no-install', 'kagent-proxy'], app, env);
    assert.equal(stopped.code, 1, stopped.output);
    assert.match(stopped.output, /@redis\/client/);
    assert.match(stopped.output, /npm install @redis\/client/);
    assert.ok(!stopped.output.includes('kagent_install_test_key'), 'the key is not echoed');
  });

  test('a Vite app importing kagent-chat builds, and its page streams an answer in Chromium', { timeout: 300_000 }, async () => {
    const source = join(app, 'site');
    mkdirSync(source);
    writeFileSync(
      join(source, 'index.html'),
      '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Fresh app</title></head>\n<body>\n<kagent-chat></kagent-chat>\n<script type="module" src="/main.js"></script>\n</body>\n</html>\n',
    );
    writeFileSync(
      join(source, 'main.js'),
      [
        "import 'kagent-chat';",
        'const settings = new URLSearchParams(location.search);',
        "const chat = document.querySelector('kagent-chat');",
        "chat.endpoint = settings.get('endpoint');",
        "chat.agentId = settings.get('agent');",
        '',
      ].join('\n'),
    );
    const built = await run(join(nodeModules, '.bin', 'vite'), ['build', 'site', '--logLevel', 'warn'], app);
    assert.equal(built.code, 0, `vite build failed:\n${built.output}`);
    assert.doesNotMatch(built.output, /\berror\b/i, built.output);

    await startServices();
    const outcome = await askOnPage(`${service.siteOrigin}/?endpoint=${encodeURIComponent(service.proxyUrl)}&agent=${encodeURIComponent(service.agentId)}`);
    assert.match(outcome.contentType ?? '', /^text\/event-stream/, 'the page got the answer as a stream');
    assert.match(outcome.answer, /twelve seconds/);
    assert.deepEqual(outcome.sources, ['tablet.md']);
    assert.deepEqual(outcome.errors, [], 'the page logged no errors');
    assert.equal(outcome.sessions, 1, 'the page earned one visitor session');
  });

  test('the script-tag file from the tarball works on a plain page and streams an answer', { timeout: 180_000 }, async () => {
    await startServices();
    const plain = join(app, 'plain');
    mkdirSync(plain);
    writeFileSync(
      join(plain, 'index.html'),
      `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Plain page</title>\n` +
        `<script type="module" src="/package/kagent-chat.js"></script></head>\n` +
        `<body>\n<kagent-chat agent-id="${service.agentId}" endpoint="${service.proxyUrl}"></kagent-chat>\n</body>\n</html>\n`,
    );
    const outcome = await askOnPage(`${service.siteOrigin}/plain/`);
    assert.match(outcome.contentType ?? '', /^text\/event-stream/, 'the page got the answer as a stream');
    assert.match(outcome.answer, /twelve seconds/);
    assert.deepEqual(outcome.sources, ['tablet.md']);
    assert.deepEqual(outcome.errors, [], 'the page logged no errors');
    assert.equal(outcome.sessions, 1, 'the page earned one visitor session');
  });

  test('TypeScript with skipLibCheck false compiles an app using the element, the client, the proxy and the emulator', { timeout: 300_000 }, async () => {
    const typed = join(app, 'typed');
    mkdirSync(join(typed, 'web'), { recursive: true });
    mkdirSync(join(typed, 'server'), { recursive: true });
    const strict = { strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022' };
    // The page: a bundler's resolution and the DOM.
    writeFileSync(
      join(typed, 'web', 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...strict, module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2023', 'DOM', 'DOM.Iterable'], types: [] }, include: ['*.ts'] }),
    );
    writeFileSync(
      join(typed, 'web', 'page.ts'),
      [
        "import 'kagent-chat';",
        "import { KagentClient, type AgentQueryAnswer } from 'kagent-chat/client';",
        '',
        "const chat: HTMLElementTagNameMap['kagent-chat'] = document.createElement('kagent-chat');",
        "chat.agentId = 'support';",
        "chat.endpoint = '/api/kagent';",
        "chat.mode = 'bubble';",
        "chat.addEventListener('kagent-answer', (event) => console.log(event.detail.answer, event.detail.sources.length));",
        'document.body.append(chat);',
        '',
        "const client = new KagentClient({ baseUrl: '/api/kagent' });",
        "export const answer: Promise<AgentQueryAnswer> = client.agents.query('support', { query: 'Hello?' });",
        '',
      ].join('\n'),
    );
    // The server: Node's own module resolution, no DOM.
    writeFileSync(
      join(typed, 'server', 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...strict, module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: ['node'] }, include: ['*.ts'] }),
    );
    writeFileSync(
      join(typed, 'server', 'server.ts'),
      [
        "import { createProxy, proxyOptionsFromEnv, type ProxyOptions } from 'kagent-chat/proxy';",
        "import { serveProxy } from 'kagent-chat/proxy/node';",
        "import { startEmulator } from 'kagent-emulator';",
        '',
        'const emulator = await startEmulator({ port: 0 });',
        "const options: ProxyOptions = { ...proxyOptionsFromEnv(process.env), upstreamUrl: emulator.url, apiKey: emulator.demo.apiKey, agentIds: [emulator.demo.agentId] };",
        'const running = await serveProxy(createProxy(options), { port: 0 });',
        'console.log(running.url);',
        '',
      ].join('\n'),
    );
    const tsc = join(nodeModules, '.bin', 'tsc');
    const [web, server] = await Promise.all([run(tsc, ['-p', join(typed, 'web')], app), run(tsc, ['-p', join(typed, 'server')], app)]);
    assert.equal(web.code, 0, `the page does not compile:\n${web.output}`);
    assert.equal(server.code, 0, `the server does not compile:\n${server.output}`);
  });
});
