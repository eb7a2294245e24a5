import { expect } from '@open-wc/testing';
import { KagentClient, KagentError } from '../../src/client/index.js';

// The same client, in Chromium, over real HTTP to the test runner's own origin.
const client = () => new KagentClient({ baseUrl: `${location.origin}/scripted/stream` });

describe('KagentClient in Chromium', () => {
  it('streams an answer split through multi-byte characters', async () => {
    const done = await client().agents.stream('a1', { query: 'Hi' }).final();
    expect(done.answer).to.equal('Hello, world!\n\n- 100% ✓ 🎉');
    expect(done.response?.sources[0]?.datasource_name).to.equal('Guide.pdf');
  });

  it('reads a JSON answer', async () => {
    const answer = await new KagentClient({ baseUrl: `${location.origin}/scripted/json` }).agents.query('a1', { query: 'Hi' });
    expect(answer.conversationId).to.equal('conv_1');
  });

  it('aborts mid-stream', async () => {
    const stream = new KagentClient({ baseUrl: `${location.origin}/scripted/slow` }).agents.stream('a1', { query: 'Hi' });
    const started = performance.now();
    let pieces = 0;
    for await (const event of stream) {
      if (event.type === 'answer' && ++pieces === 2) stream.abort();
    }
    expect(pieces).to.equal(2);
    // The slow route takes 30 s in all: stopping early must not wait for it (half of it is a margin for a loaded machine).
    expect(performance.now() - started).to.be.below(15_000);
  });

  it('reports a 404 as a KagentError', async () => {
    try {
      await new KagentClient({ baseUrl: `${location.origin}/scripted/nowhere` }).agents.query('a1', { query: 'Hi' });
      expect.fail('should have thrown');
    } catch (error) {
      expect(error).to.be.instanceOf(KagentError);
      expect((error as KagentError).status).to.equal(404);
      expect((error as KagentError).code).to.equal('NOT_FOUND');
    }
  });
});
