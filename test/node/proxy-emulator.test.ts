import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readAgentStream, type AgentStreamEvent } from '../../src/protocol/index.js';
import { startEmulator, type CheckedEmulator as RunningEmulator } from '../fixtures/emulator/harness.js';
import { createProxy, type ProxyLogEntry } from '../../src/proxy/index.js';
import { serveProxy, type RunningProxy } from '../../src/proxy/node/index.js';

const SITE = 'http://localhost:5173';

// End to end: the proxy in front of the real emulator, holding its demo key.
describe('proxy in front of the emulator', () => {
  let emulator: RunningEmulator;
  let proxy: RunningProxy;
  let url: string;
  const logs: ProxyLogEntry[] = [];
  const checkNoKey = (text: string, where: string) => assert.ok(!text.includes(emulator.demo.apiKey), `the emulator's key leaked in ${where}`);
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(url + path, { method, headers: { origin: SITE, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    checkNoKey(`${response.status} ${response.statusText} ${JSON.stringify([...response.headers])}`, `the head of ${method} ${path}`);
    return response;
  };

  before(async () => {
    emulator = await startEmulator({ pace: 0 });
    proxy = await serveProxy(
      createProxy({
        apiKey: emulator.demo.apiKey,
        upstreamUrl: emulator.url,
        agentIds: [emulator.demo.agentId],
        allowedOrigins: [SITE],
        log: (entry) => logs.push(entry),
      }),
      { port: 0 },
    );
    url = proxy.url.replace(/\/$/, '');
  });
  after(async () => {
    await proxy?.close();
    await emulator?.close();
    for (const entry of logs) checkNoKey(JSON.stringify(entry), 'a log line');
  });

  test('a visitor gets a streamed answer with its sources', async () => {
    const response = await send('POST', `/agents/${emulator.demo.agentId}/query`, { query: 'What is this about?', streaming: true, visitorId: 'visitor-e2e' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const events: AgentStreamEvent[] = [];
    for await (const event of readAgentStream(response.body!)) events.push(event);
    const last = events.at(-1);
    assert.equal(last?.type, 'done', JSON.stringify(last));
    assert.ok(last.type === 'done' && last.answer.length > 0);
    assert.equal(last.type === 'done' && last.response?.visitorId, 'visitor-e2e');
    checkNoKey(JSON.stringify(events), 'the stream');
  });

  test('a JSON answer passes too', async () => {
    const response = await send('POST', `/v1/agents/${emulator.demo.agentId}/query`, { query: 'What is this about?' });
    assert.equal(response.status, 200);
    const text = await response.text();
    checkNoKey(text, 'the JSON answer');
    assert.equal(typeof JSON.parse(text).answer, 'string');
  });

  test('what the key could do directly, the proxy refuses', async () => {
    const { agentId, datastoreId, apiKey } = emulator.demo;
    // The key really has this power at the service...
    const direct = await fetch(`${emulator.url}/agents/${agentId}`, { method: 'PATCH', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: '{"description":"changed directly"}' });
    assert.equal(direct.status, 200);
    // ...and none of it through the proxy.
    const tries: [string, string, unknown?][] = [
      ['PATCH', `/agents/${agentId}`, { systemPrompt: 'evil' }],
      ['DELETE', `/agents/${agentId}`, {}],
      ['POST', `/datastores/${datastoreId}/query`, { query: 'x' }],
      ['DELETE', `/datastores/${datastoreId}`, {}],
      ['POST', '/datasources', { datastoreId, type: 'web_page', config: { source_url: 'https://evil.example' } }],
      ['GET', '/v1/agents'],
      ['GET', `/v1/agents/${agentId}/conversations`],
    ];
    for (const [method, path, body] of tries) {
      const response = await send(method, path, body);
      assert.ok(response.status === 404 || response.status === 405, `${method} ${path}: ${response.status}`);
      checkNoKey(await response.text(), path);
    }
    const agent = await fetch(`${emulator.url}/v1/agents`, { headers: { authorization: `Bearer ${apiKey}` } });
    const list = (await agent.json()) as { data: { id: string; systemPrompt?: string }[] };
    assert.notEqual(list.data.find((a) => a.id === agentId)?.systemPrompt, 'evil');
  });

  test('a revoked or wrong key becomes a generic 502, and the log says why', async () => {
    const wrong = await serveProxy(createProxy({ apiKey: 'sk_wrong_key_for_test', upstreamUrl: emulator.url, agentIds: [emulator.demo.agentId], allowedOrigins: [SITE], log: (entry) => logs.push(entry) }), { port: 0 });
    try {
      const response = await fetch(`${wrong.url}agents/${emulator.demo.agentId}/query`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"query":"hi"}' });
      assert.equal(response.status, 502);
      const text = await response.text();
      assert.ok(!text.includes('sk_wrong_key_for_test'));
      assert.ok(logs.some((l) => l.status === 401 && /KAGENT_API_KEY/.test(l.message)));
    } finally {
      await wrong.close();
    }
  });
});
