import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createParser } from 'eventsource-parser';
import type { StreamMessage } from '../../src/protocol/index.js';
import { eventStreamParser } from '../../src/widget/event-stream-parser.js';

/** The chat's parser over `wire` cut into pieces at `cuts`, then the two line ends the chat feeds at the close. */
function ours(wire: string, cuts: number[]): StreamMessage[] {
  const messages: StreamMessage[] = [];
  const feed = eventStreamParser((message) => messages.push(message));
  let at = 0;
  for (const cut of [...cuts, wire.length]) {
    feed(wire.slice(at, cut));
    at = cut;
  }
  feed('\n\n');
  return messages;
}

/** eventsource-parser (a complete implementation of the standard), as the reference: `event` and `data` of each message. */
function reference(wire: string): StreamMessage[] {
  const messages: StreamMessage[] = [];
  const parser = createParser({ onEvent: ({ event, data }) => messages.push({ event: event ?? '', data }) });
  parser.feed(`${wire}\n\n`);
  return messages;
}

const WIRES: Record<string, string> = {
  'the service answering': 'event: answer\ndata: Hello%20there\n\nevent: answer\ndata: %E2%9C%93\n\nevent: endpoint_response\ndata: %7B%22a%22%3A1%7D\n\ndata: [DONE]\n\n',
  'CRLF and lone CR line ends': 'event: answer\r\ndata: one\r\n\r\nevent: answer\rdata: two\r\rdata: [DONE]\r\n\r\n',
  'several data lines, joined by a line feed': 'data: first\ndata: second\ndata\ndata:third\n\n',
  'no space, or two, after the colon': 'event:answer\ndata:a\n\nevent:  answer\ndata:  b\n\n',
  'comments, ids, retries and unknown fields': ': keep-alive\nid: 7\nretry: 1000\nfoo: bar\nevent: answer\ndata: x\n\n:\n\n',
  'an event name without data dispatches nothing': 'event: answer\n\ndata: after\n\n',
  'an empty data line dispatches an empty message': 'data:\n\ndata\n\n',
  'the last event closed without its blank line': 'event: answer\ndata: partial\n\ndata: [ERROR]USAGE_LIMIT',
  'a colon in the value': 'data: a: b :c\n\n',
};

describe('widget event-stream parser', () => {
  for (const [name, wire] of Object.entries(WIRES)) {
    test(`${name}: the same messages as eventsource-parser, however the text is cut`, () => {
      const expected = reference(wire);
      assert.ok(expected.length > 0 || name.includes('nothing'), 'the reference found messages');
      assert.deepEqual(ours(wire, []), expected, 'in one piece');
      for (let cut = 1; cut < wire.length; cut++) assert.deepEqual(ours(wire, [cut]), expected, `cut at ${cut}`);
      assert.deepEqual(ours(wire, [...wire].map((_, i) => i + 1)), expected, 'a character at a time');
    });
  }

  test('a CR at the end of a piece and the LF starting the next are one line end, not a blank line', () => {
    assert.deepEqual(ours('data: a\r\ndata: b\r\n\r\n', [8, 9]), [{ event: '', data: 'a\nb' }]);
  });

  test('a long line arriving in many pieces is kept whole', () => {
    const long = 'x'.repeat(50_000);
    const wire = `event: endpoint_response\ndata: ${long}\n\n`;
    const cuts = Array.from({ length: 100 }, (_, i) => 30 + i * 500);
    assert.deepEqual(ours(wire, cuts), [{ event: 'endpoint_response', data: long }]);
  });
});
