import { expect } from '@open-wc/testing';
import { createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import '../../src/widget/index.js';
import type { KagentAnswerDetail, KagentChat, KagentChatListeners, KagentChatProperties, KagentErrorDetail, KagentSendDetail } from '../../src/widget/index.js';
import { agentLog, parts, uniqueAgent, waitFor } from './widget-helpers.js';

// React 19 as a page would use it: props set what the element has as properties,
// the rest as attributes, and on<event> props become listeners.
describe('<kagent-chat> rendered by React 19', () => {
  let container: HTMLElement;
  let root: Root;

  beforeEach(() => {
    localStorage.clear();
    container = document.createElement('div');
    document.body.append(container);
    root = createRoot(container);
  });

  afterEach(() => {
    root.unmount();
    container.remove();
  });

  /** Renders the element with `props` and waits until it has drawn. */
  async function render(props: KagentChatProperties & KagentChatListeners): Promise<KagentChat> {
    root.render(createElement('kagent-chat', props));
    const chat = await waitFor(() => container.querySelector('kagent-chat'), 'React to render the element');
    await chat.updateComplete;
    return chat;
  }

  it('passes agent-id as an attribute, queryOptions and suggestions as properties, and hears kagent-send and kagent-answer', async () => {
    const agent = uniqueAgent('react-answer');
    const sent: KagentSendDetail[] = [];
    const answered: KagentAnswerDetail[] = [];
    const failed: KagentErrorDetail[] = [];
    const chat = await render({
      'agent-id': agent,
      endpoint: '/scripted/widget/answer',
      queryOptions: { filters: { custom_ids: ['react-docs'] } },
      suggestions: ['Where are invoices?', 'How do I reset it?'],
      'onkagent-send': (event) => sent.push(event.detail),
      'onkagent-answer': (event) => answered.push(event.detail),
      'onkagent-error': (event) => failed.push(event.detail),
    });

    expect(chat.getAttribute('agent-id')).to.equal(agent);
    expect(chat.agentId).to.equal(agent);
    expect(chat.endpoint).to.equal('/scripted/widget/answer');
    // Set as properties: an attribute would hold "[object Object]" and one "A,B" suggestion.
    expect(chat.queryOptions).to.deep.equal({ filters: { custom_ids: ['react-docs'] } });
    expect(chat.hasAttribute('queryoptions')).to.equal(false);
    expect(parts(chat, 'suggestion').map((button) => button.textContent)).to.deep.equal(['Where are invoices?', 'How do I reset it?']);

    expect(chat.send('Where are my invoices?')).to.equal(true);
    await waitFor(() => answered.length === 1, 'the onkagent-answer prop to be called');
    expect(sent).to.deep.equal([{ question: 'Where are my invoices?', retry: false }]);
    expect(answered[0]!.question).to.equal('Where are my invoices?');
    expect(answered[0]!.answer).to.contain('Reset your password from **Settings** [1].');
    expect(answered[0]!.sources.map((source) => source.datasource_name)).to.deep.equal(['Billing FAQ', 'Guide.pdf', 'Guide.pdf']);
    expect(answered[0]!.conversationId).to.be.a('string').and.not.equal('');
    expect(failed).to.deep.equal([]);
    const log = await agentLog(agent);
    expect(log.posts).to.equal(1);
    expect((log.bodies[0] as unknown as Record<string, unknown>).filters).to.deep.equal({ custom_ids: ['react-docs'] });

    // A new handler on re-render replaces the old listener rather than adding one.
    const answeredLater: KagentAnswerDetail[] = [];
    await render({
      'agent-id': agent,
      endpoint: '/scripted/widget/answer',
      'onkagent-answer': (event) => answeredLater.push(event.detail),
    });
    await chat.updateComplete;
    expect(chat.send('And the guide?')).to.equal(true);
    await waitFor(() => answeredLater.length === 1, 'the new onkagent-answer prop to be called');
    expect(answered).to.have.length(1);
    expect(answeredLater[0]!.question).to.equal('And the guide?');
  });

  it('calls onkagent-error with the status when the endpoint fails', async () => {
    const answered: KagentAnswerDetail[] = [];
    const failed: KagentErrorDetail[] = [];
    const chat = await render({
      'agent-id': uniqueAgent('react-error'),
      endpoint: '/scripted/widget/status-503',
      'onkagent-answer': (event) => answered.push(event.detail),
      'onkagent-error': (event) => failed.push(event.detail),
    });
    chat.send('Is anyone there?');
    await waitFor(() => failed.length === 1, 'the onkagent-error prop to be called');
    expect(failed[0]).to.include({ question: 'Is anyone there?', kind: 'server', status: 503, code: 'E503' });
    expect(answered).to.deep.equal([]);
  });
});
