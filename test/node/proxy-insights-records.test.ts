// How a question's record is written: once, as the JSON text the store keeps, from what the proxy already read (a JSON
// answer is not parsed whole); read back the same as the records written before, by parsing an object and stringifying it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sourceNames } from '../../src/proxy/core/insights/answer-tap.js';
import { readJsonAnswer } from '../../src/proxy/core/insights/json-answer.js';
import { questionText, readStored, type QuestionParts } from '../../src/proxy/core/insights/records.js';

/** What the recorder read of a JSON answer before: the whole answer parsed. */
function parsedWhole(text: string): { opening: string; sources: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { opening: '', sources: [] };
  }
  const answer = (parsed as { answer?: unknown } | null)?.answer;
  return { opening: typeof answer === 'string' ? answer.slice(0, 300) : '', sources: sourceNames(parsed) };
}

function read(text: string): { opening: string; sources: string[] } {
  const { openingJson, sources } = readJsonAnswer(text);
  return { opening: JSON.parse(openingJson) as string, sources };
}

const source = fc.record({ datasource_id: fc.string({ maxLength: 8 }), datasource_name: fc.option(fc.string({ unit: 'binary', maxLength: 30 }), { nil: undefined }), source_url: fc.option(fc.webUrl(), { nil: undefined }), score: fc.double({ noNaN: true, noDefaultInfinity: true }) }, { requiredKeys: ['datasource_id'] });
/** Text the service might write: any characters (quotes, backslashes, control characters, lone surrogates), or words. */
const prose = fc.oneof(fc.string({ unit: 'binary', maxLength: 700 }), fc.string({ unit: fc.constantFrom('a', ' ', 'é', '"', '\\', '\n', '😀', '/'), maxLength: 700 }), fc.constant('A short answer. '.repeat(30)));

describe("a JSON answer's opening and sources", () => {
  test('are what parsing the whole answer gives, whatever it holds and however its keys are ordered, nested or spaced', () => {
    const answer = fc.record(
      {
        messageId: fc.string({ maxLength: 12 }),
        answer: fc.oneof({ weight: 5, arbitrary: prose }, { weight: 1, arbitrary: fc.constantFrom(null, 3, ['x']) }),
        sources: fc.array(source, { maxLength: 6 }),
        conversationId: fc.string({ maxLength: 12 }),
        // The same keys nested: a reader that takes the first or last it finds reads the wrong ones.
        metadata: fc.option(fc.record({ answer: fc.string({ maxLength: 20 }), sources: fc.array(source, { maxLength: 2 }) }), { nil: undefined }),
      },
      { requiredKeys: ['answer'] },
    );
    const written = fc.tuple(answer, fc.integer({ min: 0, max: 1000 }), fc.constantFrom(undefined, 1, '\t')).map(([value, seed, space]) => {
      // Keys in any order, as another service version may write them.
      const keys = Object.keys(value).sort((a, b) => ((a.charCodeAt(0) * seed) % 7) - ((b.charCodeAt(0) * seed) % 7));
      return JSON.stringify(value, keys.concat('datasource_id', 'datasource_name', 'source_url', 'score', 'answer', 'sources'), space);
    });
    fc.assert(fc.property(written, (text) => assert.deepEqual(read(text), parsedWhole(text))), { numRuns: 3000 });
  });

  test('are read without parsing, or parsed whole, in the cases a reader of the text alone gets wrong', () => {
    const cases = [
      // An escaped quote in the opening; an escape right at the 300th character.
      JSON.stringify({ answer: `He said "yes" ${'x'.repeat(400)}`, sources: [] }),
      JSON.stringify({ answer: `${'x'.repeat(299)}\n${'y'.repeat(50)}`, sources: [{ datasource_id: 'a' }] }),
      // A key that names 'sources' after an escaped quote, and an answer key inside a string.
      '{"answer":"a \\"sources\\": [1]","note":"x\\"sources\\":[]","sources":[{"datasource_name":"Guide"}]}',
      '{"messageId":"\\"answer\\":\\"no","answer":"yes"}',
      `{"answer":"A","sources":[{"datasource_name":"Real"}],"pad":"${'x'.repeat(5000)}","x\\"sources":[{"datasource_name":"Not a source"}]}`,
      // A control character the service should have escaped: not JSON, no opening, as parsing gives.
      '{"answer":"line\u0001 one","sources":[]}',
      // Cut before its end: not JSON.
      '{"answer":"A short',
      '{"answer":"A short answer","sources":[{"datasource_name":"Gui',
      // A character of two UTF-16 units cut at the 300th.
      JSON.stringify({ answer: `${'x'.repeat(299)}😀 and on`, sources: [] }),
      'not JSON at all',
      '',
    ];
    for (const text of cases) assert.deepEqual(read(text), parsedWhole(text), text);
  });
});

describe("a question's stored text", () => {
  const parts: QuestionParts[] = [
    { id: 'AbCdEfGhIjKlMnOpQrStUv', at: '2026-11-29T22:00:00.000Z', agent: 'agent_1', question: 'How do I run the proxy?', outcome: { kind: 'answered', sources: 2 }, sources: ['Guide', 'https://example.com/b'], openingJson: JSON.stringify('The proxy keeps your key.'), visitor: '0f1e2d3c4b5a69788796a5b4c3d2e1f0', firstByteMs: 120, totalMs: 900 },
    { id: 'zz', at: '2026-11-29T22:00:00.001Z', agent: 'agent "odd"', question: 'Quotes " \\ and\nlines, é, 😀, a lone \ud800', outcome: { kind: 'refused', status: 429, reason: 'RATE_LIMITED: slow down "now"' }, sources: [], openingJson: '""', visitor: 'ab', firstByteMs: undefined, totalMs: undefined },
    { id: 'yy', at: '2026-11-29T22:00:00.002Z', agent: 'a', question: '', outcome: { kind: 'failed', reason: 'stalled' }, sources: ['S\u0000'], openingJson: '"opening \\u00e9 \\/ as the service escapes it"', visitor: 'cd', firstByteMs: 5, totalMs: undefined },
  ];

  test('is the text the record object gave stringified, keys in the same order: records written before read the same', () => {
    for (const { openingJson, firstByteMs, totalMs, ...rest } of parts) {
      // The old recorder's object, its keys in its order.
      const { id, at, agent, question, outcome, sources, visitor } = rest;
      const before: Record<string, unknown> = { t: 'q', id, at, agent, question, outcome, sources, opening: JSON.parse(openingJson) as string, visitor };
      // The old recorder set the times on the record after its other keys, and only when known.
      if (firstByteMs !== undefined) before.firstByteMs = firstByteMs;
      if (totalMs !== undefined) before.totalMs = totalMs;
      const text = questionText({ openingJson, firstByteMs, totalMs, ...rest });
      assert.deepEqual(JSON.parse(text), before);
      assert.deepEqual(readStored(text), readStored(JSON.stringify(before)));
      // Byte for byte where the opening was written as JSON.stringify writes it.
      if (openingJson === JSON.stringify(JSON.parse(openingJson))) assert.equal(text, JSON.stringify(before));
    }
  });
});
