import { expect } from '@open-wc/testing';
import { readAgentStream } from '../../src/protocol/index.js';

describe('readAgentStream in Chromium', () => {
  it('decodes a real event stream split through multi-byte characters', async () => {
    const response = await fetch('/scripted/stream/agents/a1/query', { method: 'POST', body: '{}' });
    const events = [];
    for await (const event of readAgentStream(response.body!)) events.push(event);
    const done = events.at(-1);
    expect(done?.type).to.equal('done');
    expect(done?.type === 'done' && done.answer).to.equal('Hello, world!\n\n- 100% ✓ 🎉');
    expect(done?.type === 'done' && done.response?.sources[0]?.datasource_name).to.equal('Guide.pdf');
  });
});
