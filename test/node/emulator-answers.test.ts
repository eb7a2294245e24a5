// Agent answers: JSON and streamed exactly as the service writes them, sources,
// conversations, and the rate and usage limits around them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KagentError } from '../../src/client/index.js';
import { AgentStreamDecoder, DONE_EVENT, readAgentStream } from '../../src/protocol/index.js';
import { startTestEmulator, type TestEmulator } from '../fixtures/emulator/harness.js';

let emulator: TestEmulator;
before(async () => {
  emulator = await startTestEmulator();
  await emulator.client.documents.upsert(emulator.demo.datastoreId, {
    documents: [
      { name: 'Returns policy', text: 'You can return any item within 30 days for a full refund. Keep the receipt.', metadata: { source: 'https://shop.example/returns' } },
      { name: 'Shipping', text: 'Orders ship within two days. Express shipping costs 9 euros.' },
      { name: 'Refund timing', text: 'A refund reaches your account within five days after we receive the item.' },
    ],
  });
});
after(() => emulator.close());

const agentPath = () => `/agents/${emulator.demo.agentId}/query`;

describe('agent answers', () => {
  test('JSON: the answer cites [1], [2] in the order of its sources, one per datasource, best first, above 0.7', async () => {
    const answer = await emulator.client.agents.query(emulator.demo.agentId, { query: 'How many days do I have for a refund of an item?' });
    assert.deepEqual(answer.sources.map((s) => s.datasource_name).sort(), ['Refund timing', 'Returns policy'], JSON.stringify(answer.sources));
    const scores = answer.sources.map((s) => s.score!);
    assert.deepEqual([...scores].sort((a, b) => b - a), scores, 'best first');
    for (const score of scores) assert.ok(score > 0.7 && score <= 1);
    assert.equal(new Set(answer.sources.map((s) => s.datasource_id)).size, answer.sources.length, 'one per datasource');
    const phrase: Record<string, RegExp> = { 'Returns policy': /30 days for a full refund[^[]*\[(\d)\]/, 'Refund timing': /within five days[^[]*\[(\d)\]/ };
    for (const [index, source] of answer.sources.entries()) {
      assert.equal(phrase[source.datasource_name!]!.exec(answer.answer)?.[1], String(index + 1), `[${index + 1}] cites ${source.datasource_name}: ${answer.answer}`);
    }
    assert.equal(answer.sources.find((s) => s.datasource_name === 'Returns policy')!.source_url, 'https://shop.example/returns');
    assert.ok(!answer.sources.some((s) => s.datasource_name === 'Shipping'), 'an unrelated datasource is not a source');
    for (const source of answer.sources) {
      assert.equal(source.datasource_type, 'text');
      assert.equal(typeof source.chunk_id, 'string');
      assert.ok(!('custom_id' in source), 'custom_id is left out when unset');
    }
    assert.ok(answer.conversationId && answer.visitorId && answer.messageId);
  });

  test('a question nothing matches is answered without sources', async () => {
    const answer = await emulator.client.agents.query(emulator.demo.agentId, { query: 'quantum chromodynamics lattice' });
    assert.deepEqual(answer.sources, []);
    assert.match(answer.answer, /don't know/);
  });

  test('the stream is byte for byte the service format: encoded answer pieces, one endpoint_response, then event: and [DONE]', async () => {
    const response = await emulator.api('POST', agentPath(), { query: 'Can I return any item for a refund?', streaming: true, conversationId: 'conv-stream-1', visitorId: 'visitor-9' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('Content-Type'), 'text/event-stream');
    assert.equal(response.headers.get('Cache-Control'), 'no-cache, no-transform');
    const wire = await response.text();
    const events = wire.split('\n\n').filter(Boolean);
    assert.ok(wire.endsWith(DONE_EVENT), 'ends with event: and data: [DONE]');
    const answers = events.filter((e) => e.startsWith('event: answer\n'));
    assert.ok(answers.length > 3, 'the answer comes in small pieces');
    for (const event of events) {
      const lines = event.split('\n');
      assert.equal(lines.length, 2, `one event line and one data line: ${JSON.stringify(event)}`);
      assert.match(lines[0]!, /^event: (answer|endpoint_response|)$/);
      assert.match(lines[1]!, /^data: /);
      if (lines[0] !== 'event: ') assert.doesNotMatch(lines[1]!.slice(6), /[ \n[\]{}"]/, 'fragments are URI-encoded');
    }
    const responses = events.filter((e) => e.startsWith('event: endpoint_response\n'));
    assert.equal(responses.length, 1);
    const body = JSON.parse(decodeURIComponent(responses[0]!.slice('event: endpoint_response\ndata: '.length)));
    const answer = answers.map((e) => decodeURIComponent(e.slice('event: answer\ndata: '.length))).join('');
    assert.equal(body.answer, answer);
    assert.equal(body.conversationId, 'conv-stream-1');
    assert.equal(body.visitorId, 'visitor-9');
    assert.equal(body.sources[0].datasource_name, 'Returns policy');
    assert.ok(events.indexOf(responses[0]!) > events.indexOf(answers.at(-1)!), 'endpoint_response comes after the last answer');
  });

  test('the typed client reads the stream as answer events and a done event with the sources', async () => {
    let text = '';
    let done: any;
    for await (const event of emulator.client.agents.stream(emulator.demo.agentId, { query: 'When does the refund reach my account?' })) {
      if (event.type === 'answer') text += event.text;
      if (event.type === 'done') done = event;
      assert.notEqual(event.type, 'error');
    }
    assert.equal(done.answer, text);
    assert.equal(done.response.sources[0].datasource_name, 'Refund timing');
    assert.match(text, /five days/);
  });

  test('the stream is paced: pieces arrive over time, not at once', async () => {
    const paced = await startTestEmulator({ pace: 15 });
    try {
      await paced.client.documents.upsert(paced.demo.datastoreId, { documents: [{ text: 'The garden opens at eight and closes at six in the evening every day.' }] });
      const arrivals: number[] = [];
      const start = Date.now();
      for await (const event of readAgentStream((await paced.api('POST', `/agents/${paced.demo.agentId}/query`, { query: 'When does the garden open?', streaming: true })).body!)) {
        if (event.type === 'answer') arrivals.push(Date.now() - start);
      }
      assert.ok(arrivals.length >= 5);
      assert.ok(arrivals.at(-1)! - arrivals[0]! >= 15 * (arrivals.length - 1) * 0.8, `pieces spread over time: ${arrivals.join(', ')}`);
    } finally {
      await paced.close();
    }
  });

  test('filters restrict what the agent answers from', async () => {
    const upload = await emulator.client.datastores.upsert(emulator.demo.datastoreId, { documents: [{ text: 'Gift cards can be returned within 14 days.', metadata: { custom_id: 'gifts' } }] });
    const answer = await emulator.client.agents.query(emulator.demo.agentId, { query: 'return gift cards days', filters: { custom_ids: ['gifts'] } });
    assert.deepEqual(answer.sources.map((s) => s.custom_id), ['gifts']);
    assert.equal(answer.sources[0]!.datasource_id, (upload as { ids: string[] }).ids[0]);
  });

  test('a bad body is a 400 naming the field, before any stream', async () => {
    const response = await emulator.api('POST', agentPath(), { query: 'x', streaming: true, presencePenalty: 3, topP: 'high' });
    assert.equal(response.status, 400);
    assert.match(response.headers.get('Content-Type') ?? '', /json/);
    const message = ((await response.json()) as any).error.message;
    assert.match(message, /presencePenalty must be between -2 and 2/);
    assert.match(message, /topP must be a number/);
  });

  test('a missing agent is a 404 with a JSON body, not a stream', async () => {
    const response = await emulator.api('POST', '/agents/missing-agent/query', { query: 'x', streaming: true });
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as any).error.code, 'NOT_FOUND');
  });
});

describe('conversations', () => {
  test('missing ids are created, history is kept and listed with limit and after', async () => {
    const agent = (await (await emulator.api('POST', '/v1/agents', { name: 'Chatty', datastoreIds: [emulator.demo.datastoreId] })).json()) as any;
    const first = await emulator.client.agents.query(agent.id, { query: 'How long do I have to return an item?' });
    assert.ok(first.conversationId.length > 10 && first.visitorId.length > 10);
    const second = await emulator.client.agents.query(agent.id, { query: 'And shipping?', conversationId: first.conversationId });
    assert.equal(second.conversationId, first.conversationId);
    assert.equal(second.visitorId, first.visitorId, 'the conversation keeps its visitor');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const other = await emulator.client.agents.query(agent.id, { query: 'Express shipping price?', visitorId: 'v-2' });

    const list = await emulator.client.agents.conversations(agent.id);
    assert.deepEqual(list.data.map((c) => c.id), [first.conversationId, other.conversationId], 'oldest first');
    assert.equal(list.meta.total, 2);
    const messages = (list.data[0] as any).messages;
    assert.deepEqual(messages.map((m: any) => m.from), ['human', 'agent', 'human', 'agent']);
    assert.equal(messages[0].text, 'How long do I have to return an item?');
    assert.equal(messages[1].text, first.answer);
    assert.deepEqual(messages[1].sources, first.sources);

    const limited = await emulator.client.agents.conversations(agent.id, { limit: 1 });
    assert.equal(limited.data.length, 1);
    const later = await emulator.client.agents.conversations(agent.id, { after: list.data[0]!.createdAt! });
    assert.deepEqual(later.data.map((c) => c.id), [other.conversationId]);
    const bad = await emulator.api('GET', `/v1/agents/${agent.id}/conversations?after=yesterday`);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as any).error.message, /after must be a date/);
  });

  test("a conversation id of another agent is refused", async () => {
    const { conversationId } = await emulator.client.agents.query(emulator.demo.agentId, { query: 'shipping' });
    const agent = (await (await emulator.api('POST', '/v1/agents', { name: 'Other' })).json()) as any;
    const response = await emulator.api('POST', `/agents/${agent.id}/query`, { query: 'x', conversationId });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as any).error.message, /conversationId/);
  });
});

describe('limits', () => {
  test('over the plan rate a key gets 429 with Retry-After in seconds; another key is not affected', async () => {
    const limited = await startTestEmulator({ rateLimits: { free: 3 }, demoPlan: 'free' });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await limited.api('GET', '/v1/agents')).status, 200);
      const refused = await limited.api('GET', '/v1/agents');
      assert.equal(refused.status, 429);
      const retryAfter = Number(refused.headers.get('Retry-After'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(((await refused.json()) as any).error.code, 'RATE_LIMITED');
      await assert.rejects(limited.client.agents.list(), (error: KagentError) => error.status === 429 && error.retryAfter === retryAfter);
      const other = await limited.emulator.createKey({ newOrganization: { plan: 'free' } });
      assert.equal((await limited.api('GET', '/v1/agents', undefined, other.key)).status, 200);
    } finally {
      await limited.close();
    }
  });

  test('the pro plan has its own, higher limit', async () => {
    const limited = await startTestEmulator({ rateLimits: { free: 1, pro: 4 } });
    try {
      for (let i = 0; i < 4; i++) assert.equal((await limited.api('GET', '/v1/agents')).status, 200);
      assert.equal((await limited.api('GET', '/v1/agents')).status, 429);
    } finally {
      await limited.close();
    }
  });

  test('at the usage limit an agent query is a 402 before any stream opens', async () => {
    const limited = await startTestEmulator({ usageLimit: 1 });
    try {
      assert.equal((await limited.api('POST', `/agents/${limited.demo.agentId}/query`, { query: 'hi' })).status, 200);
      const refused = await limited.api('POST', `/agents/${limited.demo.agentId}/query`, { query: 'hi', streaming: true });
      assert.equal(refused.status, 402);
      assert.match(refused.headers.get('Content-Type') ?? '', /json/);
      assert.equal(((await refused.json()) as any).error.code, 'USAGE_LIMIT');
      await assert.rejects(limited.client.agents.query(limited.demo.agentId, { query: 'hi' }), (error: KagentError) => error.usageLimit);
      assert.equal((await limited.api('GET', '/v1/agents')).status, 200, 'other calls still work');
    } finally {
      await limited.close();
    }
  });

  test('behind usageLimitInStream the usage limit is a 200 stream carrying data: [ERROR]USAGE_LIMIT', async () => {
    const limited = await startTestEmulator({ usageLimit: 0, usageLimitInStream: true });
    try {
      const response = await limited.api('POST', `/agents/${limited.demo.agentId}/query`, { query: 'hi', streaming: true });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('Content-Type'), 'text/event-stream');
      assert.equal(await response.text(), 'data: [ERROR]USAGE_LIMIT\n\n');
      const decoder = new AgentStreamDecoder();
      const event = decoder.push({ data: '[ERROR]USAGE_LIMIT' });
      assert.equal(event?.type === 'error' && event.usageLimit, true);
      const json = await limited.api('POST', `/agents/${limited.demo.agentId}/query`, { query: 'hi' });
      assert.equal(json.status, 402, 'a JSON query still gets the 402');
    } finally {
      await limited.close();
    }
  });
});
