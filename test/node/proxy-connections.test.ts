// The Node entry bounds the connections it holds: connections that send
// nothing, send slowly or stop reading are closed on time, one address
// cannot take every connection, and at the cap an idle connection makes room
// for a visitor. Each refusal is logged. Over real sockets on 127.0.0.x.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { ProxyLogEntry } from '../../src/proxy/index.js';
import { maxConnectionsForFileLimit } from '../../src/proxy/node/connections.js';
import { createRateLimitedLog } from '../../src/proxy/core/log.js';
import { serveOptionsFromEnv } from '../../src/proxy/node/index.js';
import { AGENT, SITE, TEST_KEY, assertNoKey, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { heldStream, startRecordingUpstream } from '../support/proxy-upstream.js';
import { proxyCommand } from '../support/bundled-commands.js';

const PATH = `/agents/${AGENT}/query`;

/** Opens a TCP connection from `localAddress` and resolves once it is established. */
async function openConnection(url: string, localAddress = '127.0.0.1'): Promise<Socket> {
  const { port } = new URL(url);
  const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress });
  socket.on('error', () => {});
  await once(socket, 'connect');
  return socket;
}

/** Resolves with what the server sent once it closes the connection. */
async function closedBy(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk));
  if (!socket.destroyed) await once(socket, 'close');
  return received;
}

/** One JSON question on a new connection; resolves with the status, or 0 when the connection failed. */
function ask(url: string, { localAddress = '127.0.0.1', streaming = false } = {}): Promise<number> {
  const target = new URL(url);
  const body = JSON.stringify({ query: 'hi', streaming });
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port: target.port, path: PATH, method: 'POST', agent: false, localAddress, headers: { origin: SITE, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** Resolves once a log entry matching `pattern` has been written. */
async function logged(logs: ProxyLogEntry[], pattern: RegExp): Promise<ProxyLogEntry> {
  for (;;) {
    const entry = logs.find((e) => pattern.test(e.message));
    if (entry) return entry;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('connection timeouts', () => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false }, { headerTimeoutMs: 300, idleTimeoutMs: 400 });
  });
  after(() => h.close());

  test('a connection that never sends a byte is closed after the header timeout, and that is logged', async () => {
    const started = Date.now();
    const socket = await openConnection(h.url);
    const received = await closedBy(socket);
    assert.ok(Date.now() - started >= 290, `closed after ${Date.now() - started} ms, before the timeout`);
    assert.match(received, /^HTTP\/1\.1 408 /);
    const entry = await logged(h.logs, /headerTimeoutMs/);
    assert.equal(entry.level, 'info');
  });

  test('a silent connection closed by the idle timer before the header timer still gets the 408 (a busy event loop may run either first)', async () => {
    const early = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false }, { headerTimeoutMs: 5_000, idleTimeoutMs: 300 });
    try {
      const received = await closedBy(await openConnection(early.url));
      assert.match(received, /^HTTP\/1\.1 408 /);
      await logged(early.logs, /headerTimeoutMs/);
    } finally {
      await early.close();
    }
  });

  test('a connection sending its headers a byte at a time is closed at the header timeout, not kept alive by the trickle', async () => {
    const socket = await openConnection(h.url);
    const head = `POST ${PATH} HTTP/1.1\r\nHost: x\r\nOrigin: ${SITE}\r\nX-Padding: ${'a'.repeat(200)}\r\n`;
    const started = Date.now();
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < head.length && !socket.destroyed) socket.write(head[sent++]!);
    }, 20);
    try {
      const received = await closedBy(socket);
      assert.match(received, /^HTTP\/1\.1 408 /);
      assert.ok(sent < head.length, 'the whole head went through before the timeout: the test proves nothing');
      assert.ok(Date.now() - started < 2000);
    } finally {
      clearInterval(trickle);
    }
  });

  test('a visitor who stops reading a stream is disconnected after the idle timeout, and the service request is cancelled', async (t) => {
    // A proxy of its own with an idle timeout the answer's start outlasts on a loaded machine: the suite's 400 ms also
    // runs while the proxy waits for the service's first bytes, and CI under four busy loops saw the connection closed
    // there, before any response ('socket hang up'), instead of once the visitor stopped reading.
    const h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false }, { headerTimeoutMs: 60_000, idleTimeoutMs: 3_000 });
    t.after(() => h.close());
    h.upstream.behave(async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const event = `event: answer\ndata: ${'z'.repeat(16 * 1024)}\n\n`;
      while (!res.destroyed && res.write(event));
      // Full: the proxy stopped reading because its visitor did. Wait here until it gives up.
      await once(res, 'close');
    });
    const before = h.upstream.requests.length;
    const target = new URL(h.url);
    const body = JSON.stringify({ query: 'hi', streaming: true });
    const req = request({ host: '127.0.0.1', port: target.port, path: PATH, method: 'POST', agent: false, headers: { origin: SITE, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    req.on('error', () => {});
    const [res] = (await once(req.end(body), 'response')) as [import('node:http').IncomingMessage];
    // Never read (a paused socket also never notices the server closing it: the proxy's side is what is checked).
    res.pause();
    res.on('error', () => {});
    try {
      await logged(h.logs, /idleTimeoutMs/);
      await h.upstream.waitFor(() => h.upstream.requests.length > before && h.upstream.requests.at(-1)!.closedEarly, 5000);
    } finally {
      req.destroy();
    }
  });
});

describe('connection caps', () => {
  test('one address cannot open more than maxConnectionsPerAddress; other addresses are still served, and the refusal is logged', async () => {
    const h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false }, { maxConnectionsPerAddress: 5, headerTimeoutMs: 60_000 });
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 5; i++) held.push(await openConnection(h.url, '127.0.0.2'));
      const sixth = await openConnection(h.url, '127.0.0.2');
      await closedBy(sixth);
      assert.ok(held.every((s) => !s.destroyed), 'a connection within the cap was closed');
      assert.equal(await ask(h.url, { localAddress: '127.0.0.3' }), 200);
      const entry = await logged(h.logs, /maxConnectionsPerAddress/);
      assert.equal(entry.address, '127.0.0.2');
    } finally {
      for (const s of held) s.destroy();
      await h.close();
    }
  });

  test('at maxConnections the longest-idle connection makes room for a visitor; with none idle, the newcomer is refused', async () => {
    const h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false }, { maxConnections: 4, maxConnectionsPerAddress: false, headerTimeoutMs: 60_000 });
    const held: Socket[] = [];
    const stream = heldStream();
    try {
      for (let i = 0; i < 4; i++) held.push(await openConnection(h.url, '127.0.0.4'));
      assert.equal(await ask(h.url), 200);
      // The oldest idle connection was the one closed.
      await closedBy(held[0]!);
      assert.ok(held.slice(1).every((s) => !s.destroyed));
      await logged(h.logs, /closed idle connections to make room/);
      for (const s of held) s.destroy();

      // Four visitors each with a stream under way: nothing is idle, so a fifth connection is refused.
      h.upstream.behave(stream.behaviour);
      const streams = Array.from({ length: 4 }, () => ask(h.url, { streaming: true }));
      await h.upstream.waitFor(() => h.upstream.requests.length >= 5);
      assert.equal(await ask(h.url), 0);
      await logged(h.logs, /refused connections: 4 open, all with a request under way/);
      stream.release();
      assert.deepEqual(await Promise.all(streams), [200, 200, 200, 200]);
    } finally {
      stream.release();
      for (const s of held) s.destroy();
      await h.close();
    }
  });
});

describe('the refusal log', () => {
  test('a flood of one kind of refusal writes its first line at once, then one line counting the rest', async () => {
    const lines: { message: string; fields: Record<string, unknown> }[] = [];
    let summarised!: () => void;
    const summary = new Promise<void>((resolve) => (summarised = resolve));
    const log = createRateLimitedLog((_level, message, fields = {}) => {
      lines.push({ message, fields });
      if (lines.length === 3) summarised();
    }, 50);
    for (let i = 0; i < 1000; i++) log('per-address', 'warn', 'refused connections', { address: '192.0.2.1' });
    log('header-timeout', 'info', 'closed slow connections');
    // The first of each kind at once; nothing more until the interval ends.
    assert.deepEqual(lines.map((l) => [l.message, l.fields.count]), [['refused connections', 1], ['closed slow connections', 1]]);
    // The log's timer never holds a process open: hold this one open until the summary is written.
    const open = setInterval(() => {}, 1000);
    await summary.finally(() => clearInterval(open));
    assert.deepEqual([lines[2]!.message, lines[2]!.fields.count, lines[2]!.fields.address], ['refused connections', 999, '192.0.2.1']);
  });
});

describe('connection limits from the environment', () => {
  test('reads every variable, and turns the per-address cap off behind trusted proxies unless it is set', () => {
    assert.deepEqual(serveOptionsFromEnv({ PORT: '0', HOST: '0.0.0.0', KAGENT_HEADER_TIMEOUT_SECONDS: '5', KAGENT_IDLE_TIMEOUT_SECONDS: '90', KAGENT_MAX_CONNECTIONS: '2000', KAGENT_MAX_CONNECTIONS_PER_ADDRESS: '50', KAGENT_LISTEN_BACKLOG: '1024' }), {
      port: 0,
      host: '0.0.0.0',
      headerTimeoutMs: 5000,
      idleTimeoutMs: 90_000,
      maxConnections: 2000,
      maxConnectionsPerAddress: 50,
      backlog: 1024,
    });
    assert.equal(serveOptionsFromEnv({ KAGENT_MAX_CONNECTIONS_PER_ADDRESS: 'off' }).maxConnectionsPerAddress, false);
    assert.equal(serveOptionsFromEnv({ KAGENT_TRUSTED_PROXY_HOPS: '1' }).maxConnectionsPerAddress, false);
    assert.equal(serveOptionsFromEnv({ KAGENT_TRUSTED_PROXY_HOPS: '1', KAGENT_MAX_CONNECTIONS_PER_ADDRESS: '500' }).maxConnectionsPerAddress, 500);
    assert.throws(() => serveOptionsFromEnv({ KAGENT_MAX_CONNECTIONS: 'many', PORT: '70000' }), /PORT must be a port number.*KAGENT_MAX_CONNECTIONS must be a whole number/);
  });

  test('the default connection cap leaves each connection room for its upstream one under the open-file limit', () => {
    assert.equal(maxConnectionsForFileLimit(1024), 480);
    assert.equal(maxConnectionsForFileLimit(1_048_576), 10_000);
    assert.equal(maxConnectionsForFileLimit(undefined), 10_000);
    assert.equal(maxConnectionsForFileLimit(64), 16);
  });
});

describe('kagent-proxy under ulimit -n 1024', () => {
  test('with 1,100 idle connections held open (and reopened as they close), real visitors are served', { timeout: 120_000 }, async () => {
    const upstream = await startRecordingUpstream();
    const cli = await proxyCommand();
    // A long header timeout: the connection cap, not the timer, must be what serves the visitors.
    const child = spawn('bash', ['-c', `ulimit -n 1024 && exec "${process.execPath}" "${cli}"`], {
      env: { ...process.env, KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: upstream.url, KAGENT_AGENT_IDS: AGENT, KAGENT_ALLOWED_ORIGINS: SITE, KAGENT_RATE_LIMIT_PER_ADDRESS: 'off', KAGENT_RATE_LIMIT_PER_VISITOR: 'off', KAGENT_HEADER_TIMEOUT_SECONDS: '120', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c));
    child.stderr.on('data', (c: Buffer) => (output += c));
    const exited = once(child, 'exit');
    const attackers = new Set<Socket>();
    let attacking = true;
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const check = () => {
          const match = /listening on (http:\/\/[^"\s]+)/.exec(output);
          if (match) resolve(match[1]!);
        };
        child.stdout.on('data', check);
        void exited.then(() => reject(new Error(`the proxy exited: ${output}`)));
      });
      assert.match(output, /"maxConnections":480/, 'the cap was not derived from the lowered file limit');
      const { port } = new URL(url);
      // 1,100 connections from 50 addresses (22 each, under the per-address cap), each reopened when closed.
      let opened = 0;
      const attack = (i: number) => {
        if (!attacking) return;
        opened++;
        const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: `127.0.1.${(i % 50) + 1}` });
        attackers.add(socket);
        socket.on('error', () => {});
        socket.once('close', () => {
          attackers.delete(socket);
          setImmediate(() => attack(i));
        });
      };
      for (let i = 0; i < 1100; i++) attack(i);
      // Wait until the proxy has had to make room at least once: the cap is reached and held.
      while (!/closed idle connections to make room/.test(output)) await new Promise((resolve) => setTimeout(resolve, 20));

      let served = 0;
      for (let batch = 0; batch < 10; batch++) {
        const statuses = await Promise.all(Array.from({ length: 10 }, () => ask(url)));
        served += statuses.filter((s) => s === 200).length;
      }
      assert.ok(served >= 99, `only ${served} of 100 visitors were served (attack connections opened: ${opened})`);
      assert.ok(opened >= 1100);
    } finally {
      attacking = false;
      for (const s of attackers) s.destroy();
      child.kill('SIGTERM');
      await exited;
      await upstream.close();
    }
    assertNoKey(output, 'the command output');
  });
});
