// --llm-url: answers written by an OpenAI-compatible server (a small local one
// here, streaming chat completions as Ollama and llama.cpp do).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readAgentStream } from '../../src/protocol/index.js';
import { listen, type TestServer } from '../support/http.js';
import { startTestEmulator, type TestEmulator } from '../fixtures/emulator/harness.js';

type ChatBody = { model: string; stream: boolean; messages: { role: string; content: string }[]; [name: string]: unknown };

let model: TestServer;
let emulator: TestEmulator;
const received: { path: string; authorization: string | null; body: ChatBody }[] = [];
/** What the model does next: answer in these pieces, fail before answering, or fail halfway. */
let nextBehaviour: 'answer' | 'refuse' | 'break' = 'answer';
/** While set, the model answers no request until this many have arrived (requests in flight at once). */
let answerOnceReceived: { count: number; arrived: () => void; all: Promise<void> } | undefined;
const PIECES = ['Returns are accepted ', 'within 30 days', ' [1].'];

function chunk(content: string): string {
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
}

before(async () => {
  model = await listen(async (request) => {
    // Taken as the request arrives: a request still being read when the next test sets its own is answered as its test said.
    const behaviour = nextBehaviour;
    const body = (await request.json()) as ChatBody;
    received.push({ path: new URL(request.url).pathname, authorization: request.headers.get('Authorization'), body });
    if (answerOnceReceived) {
      if (received.length >= answerOnceReceived.count) answerOnceReceived.arrived();
      await answerOnceReceived.all;
    }
    if (behaviour === 'refuse') return new Response(JSON.stringify({ error: { message: 'model not loaded' } }), { status: 404 });
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\n`));
        for (const piece of behaviour === 'break' ? PIECES.slice(0, 1) : PIECES) {
          controller.enqueue(encoder.encode(chunk(piece)));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        if (behaviour === 'break') controller.enqueue(encoder.encode(`data: ${JSON.stringify({ error: { message: 'out of memory' } })}\n\n`));
        else controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
      },
    });
    return new Response(stream, { headers: { 'Content-Type': 'text/event-stream' } });
  });
  emulator = await startTestEmulator({ llmUrl: model.url, llmApiKey: 'local-model-key' });
  await emulator.client.documents.upsert(emulator.demo.datastoreId, {
    documents: [{ name: 'Returns policy', text: 'You can return any item within 30 days for a full refund.' }],
  });
});
after(async () => {
  await emulator.close();
  await model.close();
});

describe('answers from a language model', () => {
  test('the model streams the answer; sampling fields go under their OpenAI-compatible names', async () => {
    nextBehaviour = 'answer';
    received.length = 0;
    const response = await emulator.api('POST', `/agents/${emulator.demo.agentId}/query`, {
      query: 'Can I return an item for a refund?',
      streaming: true,
      temperature: 0.3,
      topP: 0.9,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      maxCompletionTokens: 200,
      maxTokens: 150,
    });
    assert.equal(response.status, 200);
    const pieces: string[] = [];
    let done: any;
    for await (const event of readAgentStream(response.body!)) {
      if (event.type === 'answer') pieces.push(event.text);
      if (event.type === 'done') done = event;
    }
    assert.deepEqual(pieces, PIECES, 'each delta of the model is one answer event');
    assert.equal(done.response.answer, PIECES.join(''));
    assert.equal(done.response.sources[0].datasource_name, 'Returns policy');

    assert.equal(received.length, 1);
    const { path, authorization, body } = received[0]!;
    assert.equal(path, '/v1/chat/completions');
    assert.equal(authorization, 'Bearer local-model-key');
    assert.equal(body.stream, true);
    assert.equal(body.model, 'claude_4_5_haiku', "the agent's model name when no llmModel is set");
    assert.equal(body.temperature, 0.3);
    assert.equal(body.top_p, 0.9);
    assert.equal(body.presence_penalty, 0.5);
    assert.equal(body.frequency_penalty, -0.5);
    assert.equal(body.max_completion_tokens, 200);
    assert.equal(body.max_tokens, 150);
    const system = body.messages[0]!;
    assert.equal(system.role, 'system');
    assert.match(system.content, /\[1\] Returns policy\nYou can return any item within 30 days/, 'grounded in the numbered sources');
    assert.deepEqual(body.messages.at(-1), { role: 'user', content: 'Can I return an item for a refund?' });
  });

  test('the conversation so far goes with the next question', async () => {
    nextBehaviour = 'answer';
    received.length = 0;
    const first = await emulator.client.agents.query(emulator.demo.agentId, { query: 'Can I return an item?' });
    assert.equal(first.answer, PIECES.join(''));
    await emulator.client.agents.query(emulator.demo.agentId, { query: 'And after 40 days?', conversationId: first.conversationId });
    const roles = received[1]!.body.messages.map((m) => `${m.role}: ${m.role === 'system' ? '' : m.content}`);
    assert.deepEqual(roles, ['system: ', 'user: Can I return an item?', `assistant: ${PIECES.join('')}`, 'user: And after 40 days?']);
  });

  test('a model that refuses is a 502 before the stream opens', async () => {
    nextBehaviour = 'refuse';
    const response = await emulator.api('POST', `/agents/${emulator.demo.agentId}/query`, { query: 'refund?', streaming: true });
    assert.equal(response.status, 502);
    const body = (await response.json()) as any;
    assert.equal(body.error.code, 'BAD_GATEWAY');
    assert.match(body.error.message, /404.*model not loaded/);
  });

  test('a model that fails halfway ends the stream with data: [ERROR]', async () => {
    nextBehaviour = 'break';
    const response = await emulator.api('POST', `/agents/${emulator.demo.agentId}/query`, { query: 'refund?', streaming: true });
    assert.equal(response.status, 200);
    const wire = await response.text();
    assert.ok(wire.startsWith(`event: answer\ndata: ${encodeURIComponent(PIECES[0]!)}\n\n`));
    assert.ok(wire.endsWith('data: [ERROR]out of memory\n\n'), wire);
    assert.ok(!wire.includes('[DONE]'));
  });

  test('llmModel names the model and an address ending in /v1 is completed', async () => {
    nextBehaviour = 'answer';
    received.length = 0;
    const other = await startTestEmulator({ llmUrl: `${model.url}/v1`, llmModel: 'llama3.2:1b' });
    try {
      await other.client.agents.query(other.demo.agentId, { query: 'hello' });
      assert.equal(received[0]!.path, '/v1/chat/completions');
      assert.equal(received[0]!.body.model, 'llama3.2:1b');
      assert.equal(received[0]!.authorization, null);
    } finally {
      await other.close();
    }
  });

  test('two questions opening one conversation while the model answers both are kept, and both counted', async () => {
    nextBehaviour = 'answer';
    received.length = 0;
    const limited = await startTestEmulator({ llmUrl: model.url, usageLimit: 2 });
    let arrived = () => {};
    answerOnceReceived = { count: 2, arrived: () => arrived(), all: new Promise<void>((resolve) => (arrived = resolve)) };
    try {
      const conversationId = 'one-conversation-two-questions';
      // Each is read and its sources found before the model answers either: both start the conversation.
      await Promise.all(['Can I return an item?', 'Is the refund full?'].map((query) => limited.client.agents.query(limited.demo.agentId, { query, conversationId })));
      answerOnceReceived = undefined;
      const listed = (await (await limited.api('GET', `/v1/agents/${limited.demo.agentId}/conversations`)).json()) as { data: { id: string; messages: { from: string; text: string }[] }[] };
      const conversation = listed.data.find((row) => row.id === conversationId);
      assert.ok(conversation, 'the conversation is kept');
      assert.equal(conversation.messages.length, 4, `both questions and both answers are kept: ${JSON.stringify(conversation.messages)}`);
      const third = await limited.api('POST', `/agents/${limited.demo.agentId}/query`, { query: 'And a third?' });
      assert.equal(third.status, 402, 'both questions counted against the usage limit of 2');
    } finally {
      answerOnceReceived = undefined;
      await limited.close();
    }
  });
});
