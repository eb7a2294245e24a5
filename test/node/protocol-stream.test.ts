import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentStreamDecoder, decodeFragment, readAgentStream, type AgentStreamEvent } from '../../src/protocol/index.js';

/** Bytes from text, then cut into chunks of `size` bytes: splits lines, events and multi-byte characters. */
function bodyOf(wire: string, size = 5): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(wire);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function eventsOf(wire: string, size?: number): Promise<AgentStreamEvent[]> {
  const events: AgentStreamEvent[] = [];
  for await (const event of readAgentStream(bodyOf(wire, size))) events.push(event);
  return events;
}

const enc = encodeURIComponent;
const answerJson = {
  messageId: 'm1',
  answer: 'Line one\nLine two: 100% sure ✓ 🎉',
  sources: [{ chunk_id: 'c1', datasource_id: 'd1', datasource_name: 'Guide.pdf', datasource_type: 'file', mime_type: 'application/pdf', page_number: 2, total_pages: 9, score: 0.83 }],
  conversationId: 'conv1',
  visitorId: 'vis1',
  metadata: {},
};

// Written byte for byte as wire-format.md says the service writes it.
const realWire =
  `event: answer\ndata: ${enc('Line one\nLine ')}\n\n` +
  `event: answer\ndata: \n\n` +
  `event: answer\ndata: ${enc('two: 100% ')}\n\n` +
  `event: tool_call\ndata: ${enc(JSON.stringify({ type: 'function', name: 'search', arguments: '{"q":"x"}' }))}\n\n` +
  `event: answer\ndata: ${enc('sure ✓ 🎉')}\n\n` +
  `event: endpoint_response\ndata: ${enc(JSON.stringify(answerJson))}\n\n` +
  `event: \ndata: [DONE]\n\n`;

describe('stream decoder, on streams written as the real service writes them', () => {
  for (const size of [1, 2, 3, 7, 64, 100_000]) {
    test(`decodes the answer, sources and end, in network chunks of ${size} bytes`, async () => {
      const events = await eventsOf(realWire, size);
      const pieces = events.filter((e) => e.type === 'answer').map((e) => (e.type === 'answer' ? e.text : ''));
      assert.deepEqual(pieces, ['Line one\nLine ', '', 'two: 100% ', 'sure ✓ 🎉']);
      const done = events.at(-1);
      assert.equal(done?.type, 'done');
      if (done?.type !== 'done') return;
      assert.equal(done.answer, answerJson.answer);
      assert.equal(done.response?.conversationId, 'conv1');
      assert.equal(done.response?.visitorId, 'vis1');
      assert.equal(done.response?.messageId, 'm1');
      assert.deepEqual(done.response?.sources, answerJson.sources);
      assert.equal(done.responseProblem, undefined);
    });
  }

  test('passes over tool_call and other unknown events', async () => {
    const events = await eventsOf(realWire);
    assert.ok(events.every((e) => e.type === 'answer' || e.type === 'done'));
    assert.equal(events.length, 5);
  });

  test('assembles an endpoint_response split over several events', async () => {
    const json = enc(JSON.stringify(answerJson));
    const parts = [json.slice(0, 10), json.slice(10, 11), json.slice(11, 200), json.slice(200)];
    const wire =
      `event: answer\ndata: ${enc(answerJson.answer)}\n\n` +
      parts.map((p) => `event: endpoint_response\ndata: ${p}\n\n`).join('') +
      `event: \ndata: [DONE]\n\n`;
    const done = (await eventsOf(wire, 3)).at(-1);
    assert.equal(done?.type === 'done' && done.response?.sources[0]?.datasource_name, 'Guide.pdf');
  });

  test('reports [ERROR]USAGE_LIMIT after a 200 as a usage-limit error, keeping the partial answer', async () => {
    const wire = `event: answer\ndata: ${enc('Partial ')}\n\ndata: [ERROR]USAGE_LIMIT\n\n`;
    const events = await eventsOf(wire);
    const error = events.at(-1);
    assert.deepEqual(error, { type: 'error', code: 'USAGE_LIMIT', message: 'USAGE_LIMIT', usageLimit: true, partialAnswer: 'Partial ' });
  });

  test('reads an [ERROR] line that closes the connection without its blank line', async () => {
    const events = await eventsOf('data: [ERROR]NOT_FOUND');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type === 'error' && events[0].code, 'NOT_FOUND');
  });

  test('keeps free-text [ERROR] messages as the message, with no code', async () => {
    const events = await eventsOf('data: [ERROR]The model timed out.\n\n');
    assert.equal(events[0]?.type === 'error' && events[0].code, undefined);
    assert.equal(events[0]?.type === 'error' && events[0].message, 'The model timed out.');
    assert.equal(events[0]?.type === 'error' && events[0].usageLimit, false);
  });

  test('ignores everything after [DONE]', async () => {
    const wire = `event: \ndata: [DONE]\n\nevent: answer\ndata: late\n\ndata: [ERROR]X\n\n`;
    const events = await eventsOf(wire);
    assert.deepEqual(events.map((e) => e.type), ['done']);
  });

  test('an answer fragment that reads "[DONE]" travels encoded and stays text', async () => {
    const wire = `event: answer\ndata: ${enc('[DONE]')}\n\nevent: \ndata: [DONE]\n\n`;
    const events = await eventsOf(wire);
    assert.equal(events[0]?.type === 'answer' && events[0].text, '[DONE]');
    assert.equal(events[1]?.type, 'done');
  });

  test('reads CRLF line endings', async () => {
    const wire = `event: answer\r\ndata: ${enc('Hi')}\r\n\r\nevent: \r\ndata: [DONE]\r\n\r\n`;
    const events = await eventsOf(wire);
    assert.deepEqual(events.map((e) => e.type), ['answer', 'done']);
  });
});

describe('stream decoder, on malformed input', () => {
  test('a stream without [DONE] ends with an INCOMPLETE_STREAM error holding the partial answer', async () => {
    const events = await eventsOf(`event: answer\ndata: ${enc('Half an ')}\n\nevent: answer\ndata: ${enc('answ')}`);
    const last = events.at(-1);
    assert.equal(last?.type, 'error');
    if (last?.type !== 'error') return;
    assert.equal(last.code, 'INCOMPLETE_STREAM');
    assert.match(last.partialAnswer, /^Half an /);
  });

  test('an empty body is an incomplete stream, not a success', async () => {
    const events = await eventsOf('');
    assert.deepEqual(events.map((e) => e.type === 'error' && e.code), ['INCOMPLETE_STREAM']);
  });

  test('bad JSON in endpoint_response still finishes the answer, saying why sources are missing', async () => {
    const wire = `event: answer\ndata: Hi\n\nevent: endpoint_response\ndata: ${enc('{"answer": "Hi", "sour')}\n\nevent: \ndata: [DONE]\n\n`;
    const done = (await eventsOf(wire)).at(-1);
    assert.equal(done?.type, 'done');
    if (done?.type !== 'done') return;
    assert.equal(done.answer, 'Hi');
    assert.equal(done.response, undefined);
    assert.match(done.responseProblem ?? '', /not JSON/);
  });

  test('an endpoint_response of the wrong shape is reported, not trusted', async () => {
    const wire = `event: endpoint_response\ndata: ${enc('{"answer": 5}')}\n\nevent: \ndata: [DONE]\n\n`;
    const done = (await eventsOf(wire)).at(-1);
    assert.equal(done?.type === 'done' && done.response, undefined);
    assert.match(done?.type === 'done' ? done.responseProblem ?? '' : '', /answer/);
  });

  test('an odd source field is dropped, not the answer\'s sources', async () => {
    const response = { answer: 'Hi', conversationId: 'c', visitorId: 'v', sources: [{ datasource_name: 'Good.pdf', page_number: 'three', score: 0.8 }, 'junk', { datasource_name: 7, source_url: 'https://x.test' }] };
    const wire = `event: endpoint_response\ndata: ${enc(JSON.stringify(response))}\n\nevent: \ndata: [DONE]\n\n`;
    const done = (await eventsOf(wire)).at(-1);
    assert.deepEqual(done?.type === 'done' && done.response?.sources, [{ datasource_name: 'Good.pdf', score: 0.8 }, { source_url: 'https://x.test' }]);
  });

  test('bad percent-encoding keeps the readable text instead of failing the fragment', async () => {
    const wire = `event: answer\ndata: 100%25 sure%ZZ then %E2%9C%93 and %FF!\n\nevent: \ndata: [DONE]\n\n`;
    const events = await eventsOf(wire);
    assert.equal(events[0]?.type === 'answer' && events[0].text, '100% sure%ZZ then ✓ and \uFFFD!');
  });

  test('a stream whose fragments are not URI-encoded still reads sensibly', async () => {
    // Multi-line data joins with "\n" (SSE rules); a bare "%" stays.
    const wire = `event: answer\ndata: Hello, world!\n\nevent: answer\ndata:  It is 100% ok.\ndata: Next line\n\nevent: \ndata: [DONE]\n\n`;
    const done = (await eventsOf(wire)).at(-1);
    assert.equal(done?.type === 'done' && done.answer, 'Hello, world! It is 100% ok.\nNext line');
  });

  test('an endpoint_response that is not encoded still parses', async () => {
    const wire = `event: endpoint_response\ndata: ${JSON.stringify(answerJson)}\n\nevent: \ndata: [DONE]\n\n`;
    const done = (await eventsOf(wire)).at(-1);
    assert.equal(done?.type === 'done' && done.response?.visitorId, 'vis1');
    assert.equal(done?.type === 'done' && done.answer, answerJson.answer);
  });
});

describe('AgentStreamDecoder with messages from an SSE parser', () => {
  test('treats an empty, missing or "message" event name alike for [DONE]', () => {
    for (const event of ['', undefined, 'message']) {
      const decoder = new AgentStreamDecoder();
      assert.equal(decoder.push({ event, data: '[DONE]' })?.type, 'done');
      assert.equal(decoder.finished, true);
    }
  });

  test('end() after done reports nothing; end() before reports the cut', () => {
    const finished = new AgentStreamDecoder();
    finished.push({ event: '', data: '[DONE]' });
    assert.equal(finished.end(), undefined);
    const cut = new AgentStreamDecoder();
    cut.push({ event: 'answer', data: 'abc' });
    assert.equal(cut.end()?.partialAnswer, 'abc');
  });
});

describe('decodeFragment', () => {
  test('undoes encodeURIComponent for every kind of character', () => {
    const text = 'a b\n\t%+&?/#[]{}"\'<>é✓🎉\u0000';
    assert.equal(decodeFragment(encodeURIComponent(text)), text);
  });
  test('returns text without escapes unchanged', () => {
    assert.equal(decodeFragment('plain text, 50% off'), 'plain text, 50% off');
  });
});
