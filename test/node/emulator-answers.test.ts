// Agent answers: JSON and streamed exactly as the service writes them, sources,
// conversations, and the rate and usage limits around them.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { Lexer, type Tokens } from 'marked';
import { knowledgeBaseFiles, seedKnowledgeBase } from '../../demo/knowledge-base.js';
import { KagentError } from '../../src/client/index.js';
import { AgentStreamDecoder, DONE_EVENT, readAgentStream } from '../../src/protocol/index.js';
import { extractMarkdown } from '../../emulator/src/ingest/markdown.js';
import { GARDEN_SECTIONS } from '../fixtures/garden-sections.js';
import { eventually, startEmulator, startTestEmulator, type CheckedEmulator as RunningEmulator, type TestEmulator } from '../fixtures/emulator/harness.js';

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

/** A new datastore holding `files` (Markdown, uploaded and read), and an agent answering from it. */
async function agentReading(name: string, files: Readonly<Record<string, string>>): Promise<{ agentId: string; datastoreId: string }> {
  const datastoreId = (await emulator.client.datastores.create({ name })).id;
  const agentId = (await emulator.client.agents.create({ name: `${name} agent`, datastoreIds: [datastoreId] })).id;
  for (const [fileName, text] of Object.entries(files)) {
    await emulator.client.datasources.uploadFile({ datastoreId, file: new Blob([text], { type: 'text/markdown' }), fileName });
  }
  await eventually(async () => {
    const { data } = (await (await emulator.api('GET', `/v1/datastores/${datastoreId}/datasources`)).json()) as { data: { status: string }[] };
    return data.length === Object.keys(files).length && data.every((source) => source.status === 'synched') ? true : undefined;
  });
  return { agentId, datastoreId };
}

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

describe('extractive answers from seeded Markdown, over HTTP', () => {
  // Long paragraphs, wrapped as people write Markdown, so fragments (1000
  // characters, 200 of overlap) start and end inside sentences that all speak
  // of the question's words; then a list, a table and a command.
  const wrap = (text: string) => text.replace(/(.{1,78})(?: |$)/g, '$1\n').trim();
  const sentences = (subject: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${subject} ${['need water', 'want water', 'drink water'][i % 3]} on day ${i + 1} of their first ${['week', 'month', 'season'][i % 3]}, when the soil of bed ${i + 1} is dry.`).join(' ');
  const files: Record<string, string> = {
    'garden.md': [
      '# Garden guide',
      wrap(sentences('Tomato seedlings', 14)),
      '## Watering',
      wrap(sentences('Young tomato seedlings', 12)),
      'Water tomato seedlings on this schedule:',
      '- Morning: tomato seedlings get water before nine.\n- Evening: tomato seedlings get water after six, only when the soil is dry.',
      'Fill the watering tank with one command:',
      '```sh\nfill-tank --litres 20 --for tomato-seedlings\n```',
    ].join('\n\n'),
    'tools.md': [
      '# Tools',
      '| Tool | Use |\n|---|---|\n| Watering can | Water for tomato seedlings, twice a day |\n| Spade | Digging beds |',
      wrap(sentences('Pepper seedlings', 10)),
    ].join('\n\n'),
  };
  const documentText = Object.fromEntries(Object.entries(files).map(([name, text]) => [name, extractMarkdown(new TextEncoder().encode(text)).pages[0]!.text]));
  let agentId: string;
  let datastoreId: string;

  before(async () => {
    ({ agentId, datastoreId } = await agentReading('Garden', files));
  });

  test('fragments stay readable text: a paragraph on one line, code fenced', async () => {
    const fragments = await emulator.client.datastores.query(datastoreId, { query: 'fill watering tank command', topK: 1 });
    assert.match(fragments[0]!.text, /Fill the watering tank with one command:\n\n```sh\nfill-tank --litres 20 --for tomato-seedlings\n```/);
    const paragraph = await emulator.client.datastores.query(datastoreId, { query: 'young tomato seedlings bed 5', topK: 1 });
    assert.doesNotMatch(paragraph[0]!.text.split('\n\n').find((block) => block.includes('Young tomato'))!, /\n/, 'a wrapped paragraph is one line');
  });

  test('a streamed answer quotes complete sentences, items and rows of the source its marker names', async () => {
    const question = 'When do tomato seedlings need water?';
    // The fragments retrieved start inside a sentence: what the answer must not quote.
    const retrieved = await emulator.client.datastores.query(datastoreId, { query: question, topK: 8 });
    const startsMidSentence = retrieved.some((fragment) => {
      const text = documentText[fragment.datasource_name ?? '']!;
      return fragment.offset! > 0 && !/(^|[.!?:]\s|\n)$/.test(text.slice(0, fragment.offset!));
    });
    assert.ok(startsMidSentence, 'the test reads fragments that start mid-sentence');

    let answer = '';
    let sources: { datasource_name?: string }[] = [];
    for await (const event of emulator.client.agents.stream(agentId, { query: question })) {
      assert.notEqual(event.type, 'error');
      if (event.type === 'answer') answer += event.text;
      if (event.type === 'done') sources = event.response?.sources ?? [];
    }
    assert.ok(sources.length >= 1 && sources.length <= 3, `sources: ${JSON.stringify(sources)}`);
    const [lead, ...body] = answer.split('\n\n');
    assert.ok(lead!.length < 80 && lead!.endsWith(':'), `a short lead line: ${lead}`);
    const withoutCode = body.join('\n\n').replace(/^```[^\n]*\n([\s\S]*?)\n```$/gm, (_, code: string) => {
      assert.ok(Object.values(files).some((file) => file.includes(code)), `code quoted whole: ${code}`);
      return '';
    });
    let quotes = 0;
    // A table: its header row and rows the cited document holds, after a line that carries the marker.
    const withoutTables = withoutCode.replace(/(?<=\[(\d+)\]:\n\n)(\| .* \|)\n\|(?:---\|)+\n((?:\| .* \|(?:\n|$))+)/g, (_, number: string, header: string, body: string) => {
      const text = documentText[sources[Number(number) - 1]!.datasource_name!]!;
      const cells = (row: string) => row.slice(2, -2).split(' | ');
      const columns = cells(header);
      assert.ok(text.includes(columns.join(' | ')), `the header row of a table in ${sources[Number(number) - 1]!.datasource_name}: ${header}`);
      for (const row of body.trim().split('\n')) {
        const pairs = cells(row).map((cell, i) => (cell ? `${columns[i]}: ${cell.replace(/\\(.)/g, '$1')}` : '')).filter(Boolean);
        assert.ok(text.split('\n').includes(pairs.join('; ')), `[${number}] cites a document with the row ${row}`);
        quotes++;
      }
      return '';
    });
    for (const line of withoutTables.split('\n').filter((line) => line.trim())) {
      // A caption names the source whose table or code follows.
      const named = /^(.+) \[(\d+)\]:$/.exec(line);
      if (named && sources[Number(named[2]) - 1]?.datasource_name === named[1]) continue;
      // A point opens with the title of the section it quotes, a heading of the document it names.
      const caption = /^\*\*(.+)\*\* \((.+)\)(?: \[\d+\])?:$/.exec(line);
      if (caption) {
        assert.match(documentText[caption[2]!]!, new RegExp(`(^|\n\n)${caption[1]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n\n`), `a heading of ${caption[2]}: ${line}`);
        continue;
      }
      const marker = / \[(\d+)\](:?)$/.exec(line);
      assert.ok(marker, `each point ends with its marker: ${line}`);
      const number = Number(marker[1]);
      assert.ok(number >= 1 && number <= sources.length, `marker [${number}] within the ${sources.length} sources`);
      const text = documentText[sources[number - 1]!.datasource_name!]!;
      const quote = line.slice(0, marker.index).replace(/^- /, '').replace(/\\(.)/g, '$1') + marker[2];
      const at = text.indexOf(quote);
      assert.ok(at >= 0, `[${number}] cites ${sources[number - 1]!.datasource_name}, which says: ${quote}`);
      assert.match(text.slice(0, at), /(^|[.!?:]\s|\n|\n- )$/, `starts where a sentence, item or row starts: ${quote}`);
      assert.match(text.slice(at + quote.length), /^($|\s|\n)/, `ends where it ends: ${quote}`);
      assert.match(quote, /[.!?:]$|^(Tool|Morning|Evening)/, `a whole sentence, item or row: ${quote}`);
      quotes++;
    }
    assert.ok(quotes >= 1, `at least one point: ${answer}`);
    assert.match(answer, /tomato seedlings/i);
  });
});

describe('the section a question asks for leads, over HTTP', () => {
  let agentId: string;
  before(async () => {
    ({ agentId } = await agentReading('Garden sections', GARDEN_SECTIONS));
  });

  test('a how-to question gets the section whose title names its task, not the passage naming its words in passing', async () => {
    const answer = await emulator.client.agents.query(agentId, { query: 'How do I add seedlings to my bed?' });
    assert.equal(answer.sources[0]?.datasource_name, 'beds.md', JSON.stringify(answer.sources));
    assert.match(answer.answer, /^From \*\*Plant seedlings in your bed\*\* in beds\.md:\n\nThree steps: loosen the soil/);
  });

  test('"What does X do?" gets the section titled by X', async () => {
    const answer = await emulator.client.agents.query(agentId, { query: 'What does a trellis do?' });
    assert.equal(answer.sources[0]?.datasource_name, 'climbers.md', JSON.stringify(answer.sources));
    assert.match(answer.answer, /It holds climbing plants up to the light/);
  });
});

// The demo's knowledge base (README.md and docs/*.md), seeded as `npm start`
// seeds it, asked what a newcomer asks; each answer is read as markdown (by
// marked, as the widget reads it) and every quote checked against its source.
describe("answers from the demo's documents read like answers", () => {
  const root = new URL('../../', import.meta.url);
  let demo: RunningEmulator;
  /** Each document's extracted text (what fragments are cut from), by its name. */
  const extracted: Record<string, string> = {};

  before(async () => {
    demo = await startEmulator({ port: 0, pace: 0, log: () => {}, rateLimits: { pro: Number.MAX_SAFE_INTEGER } });
    await seedKnowledgeBase(root, { url: demo.url, apiKey: demo.demo.apiKey, datastoreId: demo.demo.datastoreId });
    for (const path of await knowledgeBaseFiles(root)) extracted[path] = extractMarkdown(await readFile(new URL(path, root))).pages[0]!.text;
  });
  after(() => demo?.close());

  /** The streamed answer (checked to be the JSON answer of the stream's end) and its sources' names. */
  async function ask(query: string): Promise<{ answer: string; sources: string[] }> {
    const response = await fetch(`${demo.url}/agents/${demo.demo.agentId}/query`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${demo.demo.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query, streaming: true }),
    });
    let answer = '';
    let final: { answer: string; sources: { datasource_name: string }[] } | undefined;
    for await (const event of readAgentStream(response.body!)) {
      assert.notEqual(event.type, 'error');
      if (event.type === 'answer') answer += event.text;
      if (event.type === 'done') final = event.response as unknown as typeof final;
    }
    assert.ok(final, 'the stream ends with the whole answer and [DONE]');
    assert.equal(answer, final.answer, 'the streamed pieces make the answer the stream ends with');
    return { answer, sources: final.sources.map((source) => source.datasource_name) };
  }

  const unescape = (text: string) => text.replace(/\\(.)/g, '$1');

  /**
   * Checks every block of the answer against the source its marker names:
   * prose and items are whole sentences of it, each with its [n]; a table is
   * a GFM table whose header row and rows are the source's; code is fenced
   * and the source's; a table or code block follows a line with its [n].
   */
  function checkQuotes(answer: string, sources: readonly string[]): { tables: Tokens.Table[]; code: Tokens.Code[] } {
    const tokens = new Lexer({ gfm: true }).lex(answer).filter((token) => token.type !== 'space');
    const tables: Tokens.Table[] = [];
    const code: Tokens.Code[] = [];
    let lastMarker = 0;
    const sourceOf = (number: number) => {
      assert.ok(number >= 1 && number <= sources.length, `[${number}] is one of the ${sources.length} sources`);
      return extracted[sources[number - 1]!]!;
    };
    const checkQuote = (raw: string, where: string) => {
      const marker = / \[(\d+)\](:?)$/.exec(raw);
      assert.ok(marker, `${where} ends with its marker: ${raw}`);
      lastMarker = Number(marker[1]);
      const text = sourceOf(lastMarker);
      const opening = /^(?:From \*\*(.+)\*\* in (.+)|According to (.+)|\*\*(.+)\*\* \((.+)\)|(.+))$/.exec(raw.slice(0, marker.index));
      const quote = unescape(raw.slice(0, marker.index)) + marker[2];
      if (marker[2] && opening && !text.includes(quote)) {
        // A caption before a table or code: the section's title and the document's name, or the name alone.
        const title = opening[1] ?? opening[4];
        const name = opening[2] ?? opening[3] ?? opening[5] ?? opening[6];
        assert.equal(unescape(name!), sources[lastMarker - 1], `a caption names the source [${lastMarker}]: ${raw}`);
        if (title) assert.match(text, new RegExp(`(^|\\n\\n)${unescape(title).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n\\n`), `a heading of ${name}: ${raw}`);
        return;
      }
      const at = text.indexOf(quote);
      assert.ok(at >= 0, `[${lastMarker}] cites ${sources[lastMarker - 1]}, which says: ${quote}`);
      assert.match(text.slice(0, at), /(^|[.!?:;]\s|\n)$/, `starts where a sentence starts: ${quote}`);
      assert.match(text.slice(at + quote.length), /^($|\s)/, `ends where a sentence ends: ${quote}`);
      assert.match(quote, /[.!?:;)]$/, `a whole sentence: ${quote}`);
      assert.ok(!quote.includes('…'), `not cut: ${quote}`);
    };
    for (const [index, token] of tokens.entries()) {
      if (index === 0 && token.type === 'paragraph' && !/\[\d+\]:?$/.test(token.raw.trim())) {
        assert.ok(token.raw.trim().endsWith(':') && token.raw.length < 120, `a short lead line: ${token.raw}`);
        continue;
      }
      if (token.type === 'paragraph') {
        const raw = token.raw.trim();
        if (/^\*\*.+\*\* \(.+\):$/.test(raw)) continue; // a point's title line, checked with what follows
        checkQuote(raw, 'a paragraph');
      } else if (token.type === 'list') {
        for (const item of (token as Tokens.List).items) checkQuote(item.text.trim(), 'an item');
      } else if (token.type === 'table') {
        const table = token as Tokens.Table;
        tables.push(table);
        assert.ok(lastMarker > 0 && /\[\d+\]:?$/.test(tokens[index - 1]!.raw.trim()), `a table follows a line with its marker: ${table.raw}`);
        const lines = sourceOf(lastMarker).split('\n');
        const columns = table.header.map((cell) => unescape(cell.text));
        assert.ok(lines.includes(columns.join(' | ')), `the header row is a header of ${sources[lastMarker - 1]}: ${columns.join(' | ')}`);
        for (const row of table.rows) {
          assert.equal(row.length, columns.length, 'every row has the header row\'s cells');
          const pairs = row.map((cell, i) => (cell.text ? `${columns[i]}: ${unescape(cell.text)}` : '')).filter(Boolean);
          assert.ok(lines.includes(pairs.join('; ')), `a row of ${sources[lastMarker - 1]}: ${pairs.join('; ')}`);
        }
      } else if (token.type === 'code') {
        const block = token as Tokens.Code;
        code.push(block);
        assert.match(block.raw, /^`{3,}/, `code is fenced: ${block.raw}`);
        assert.ok(lastMarker > 0, 'code follows a line with its marker');
        assert.ok(sourceOf(lastMarker).includes(block.text), `the code is ${sources[lastMarker - 1]}'s: ${block.text}`);
      } else {
        assert.fail(`an answer holds paragraphs, lists, tables and code, not ${token.type}: ${token.raw}`);
      }
    }
    return { tables, code };
  }

  test('"How do I deploy the proxy to Cloudflare Workers?": the platform table keeps its header row, the recipe its code', async () => {
    const { answer, sources } = await ask('How do I deploy the proxy to Cloudflare Workers?');
    const { tables, code } = checkQuotes(answer, sources);
    const platforms = tables.find((table) => table.header.map((cell) => cell.text).join(' | ').startsWith('Platform | Entry'));
    assert.ok(platforms, `the README's table of platforms, under its header row: ${answer}`);
    assert.ok(platforms.rows.some((row) => row[0]!.text === 'Cloudflare Workers' && row[1]!.tokens[0]?.type === 'codespan'), 'its Cloudflare row, the entry as code');
    assert.ok(code.some((block) => block.text.includes("from 'kagent-chat/proxy/cloudflare'")), `the Worker's code, fenced: ${answer}`);
    assert.match(answer, /\*\*Deploy to Cloudflare Workers\*\* \(docs\/proxy\.md\)/, 'the recipe opens with its section title');
  });

  // (Asked of colours alone, the search ranks the short Styling section first, which names the custom properties without listing them.)
  test('"Which CSS custom properties set the widget\'s colours and sizes?": the properties, each as code, in a whole sentence', async () => {
    const { answer, sources } = await ask("Which CSS custom properties set the widget's colours and sizes?");
    checkQuotes(answer, sources);
    for (const property of ['--kagent-accent', '--kagent-surface', '--kagent-z-index']) assert.ok(answer.includes(`\`${property}\``), `${property} as code: ${answer}`);
  });

  test('"What file types can the emulator ingest?": the table of the eight types, with its header row', async () => {
    const { answer, sources } = await ask('What file types can the emulator ingest?');
    const { tables } = checkQuotes(answer, sources);
    const types = tables.find((table) => table.header[0]!.text === 'file');
    assert.ok(types, `the file types table: ${answer}`);
    assert.deepEqual(types.header.map((cell) => cell.text), ['file', 'MIME type', 'endings', 'read as']);
    assert.deepEqual(types.rows.map((row) => row[0]!.text), ['Plain text', 'Markdown', 'CSV', 'JSON', 'PDF', 'Word', 'PowerPoint', 'Excel']);
    assert.match(answer, /^(From \*\*File types\*\* in docs\/emulator\.md|\*\*File types\*\* \(docs\/emulator\.md\)):/m, 'opens with the section title');
  });
});
