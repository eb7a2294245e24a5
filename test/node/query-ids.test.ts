import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_QUERY_ID_LENGTH, QUERY_ID_FIELDS, isValidQueryId, queryIdFieldsNamed, queryIdRule } from '../../src/protocol/index.js';
import { DEFAULTS } from '../../src/proxy/index.js';
import { AGENT, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';

const PATH = `/agents/${AGENT}/query`;

// Ids a browser may have stored: made by the widget, by the service, or put there by anyone.
const IDS: unknown[] = [
  'c', // shortest
  '0123456789abcdef0123456789abcdef', // the widget's own
  'clx3k2v9a0000qz8h1b2c3d4e', // a service cuid
  '3f2b8c1e-6a4d-4f7e-9b2a-1c5d7e9f0a3b', // a UUID
  'visitor_1.a:b-c',
  'v'.repeat(MAX_QUERY_ID_LENGTH),
  'v'.repeat(MAX_QUERY_ID_LENGTH + 1),
  'v'.repeat(10_000), // within the proxy's body size, so the id rule is what refuses it
  '',
  'someone@example.com',
  'with space',
  ' leading',
  'trailing\n',
  '../../etc/passwd',
  'é',
  'a\u202Eb',
  '<script>',
  'a;b',
  'a/b',
  42,
  true,
  null,
  {},
  ['a'],
];

describe('the id rule shared by the proxy and the widget', () => {
  test('accepts 1 to 128 letters, digits, or . _ : - and nothing else', () => {
    const accepted = IDS.filter((id) => isValidQueryId(id));
    assert.deepEqual(accepted, IDS.slice(0, 6));
    assert.equal(isValidQueryId('abcd', 3), false, 'a shorter operator limit counts');
    assert.equal(isValidQueryId('abc', 3), true);
  });

  test('is the proxy default: the widget checks the same length the proxy enforces out of the box', () => {
    assert.equal(DEFAULTS.maxIdLength, MAX_QUERY_ID_LENGTH);
  });

  test('finds the fields a refusal names, and only those', () => {
    assert.deepEqual(queryIdFieldsNamed(`Invalid request: ${queryIdRule('visitorId')}.`), ['visitorId']);
    assert.deepEqual(queryIdFieldsNamed(`Invalid request: ${queryIdRule('conversationId')}; ${queryIdRule('visitorId')}.`), ['conversationId', 'visitorId']);
    assert.deepEqual(queryIdFieldsNamed('Invalid request: conversationId belongs to a conversation with another agent'), ['conversationId']);
    assert.deepEqual(queryIdFieldsNamed('Invalid request: query must be at most 4000 characters.'), []);
    assert.deepEqual(queryIdFieldsNamed('myvisitorIds are fine'), []);
    assert.deepEqual(queryIdFieldsNamed(undefined), []);
  });

  describe('as the proxy applies it, over HTTP', () => {
    let h: ProxyHarness;
    let short: ProxyHarness;
    before(async () => {
      h = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false });
      short = await startProxyHarness({ perAddressLimit: false, perVisitorLimit: false, maxIdLength: 20 });
    });
    after(async () => {
      await h.close();
      await short.close();
    });

    test('the proxy lets through exactly the ids the rule accepts, and its refusal names the field', async () => {
      for (const field of QUERY_ID_FIELDS) {
        for (const id of IDS) {
          if (id === null) continue; // null means "no id", which the proxy leaves out
          const forwarded = h.upstream.requests.length;
          const { response, text } = await h.send(PATH, { json: { query: 'hi', [field]: id } });
          const what = `${field}: ${JSON.stringify(id).slice(0, 40)}`;
          if (isValidQueryId(id)) {
            assert.equal(response.status, 200, what);
            assert.equal(JSON.parse(h.upstream.requests.at(-1)!.body)[field], id, what);
          } else {
            assert.equal(response.status, 400, what);
            assert.equal(h.upstream.requests.length, forwarded, `${what} went upstream`);
            const message = JSON.parse(text).error.message as string;
            assert.ok(message.includes(queryIdRule(field)), `${what}: ${message}`);
            assert.deepEqual(queryIdFieldsNamed(message), [field], what);
          }
        }
      }
    });

    test('an operator length is applied with the same rule and named in the refusal', async () => {
      const ok = await short.send(PATH, { json: { query: 'hi', visitorId: 'v'.repeat(20) } });
      assert.equal(ok.response.status, 200);
      const refused = await short.send(PATH, { json: { query: 'hi', visitorId: 'v'.repeat(21) } });
      assert.equal(refused.response.status, 400);
      assert.ok(JSON.parse(refused.text).error.message.includes(queryIdRule('visitorId', 20)));
    });
  });
});
