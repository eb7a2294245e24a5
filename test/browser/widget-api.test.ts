import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import { ENGLISH, type KagentAnswerDetail, type KagentErrorDetail, type KagentSendDetail } from '../../src/widget/index.js';
import { agentLog, ask, lastAnswer, mountChat, part, parts, removeAllChats, settled, sleep, uniqueAgent, waitFor } from './widget-helpers.js';

describe('<kagent-chat> public API, content options and strings', () => {
  beforeEach(() => localStorage.clear());
  afterEach(removeAllChats);

  it('send(text) asks like the visitor would and fires kagent-send then kagent-answer, crossing shadow roots', async () => {
    const agent = uniqueAgent('api-send');
    // The chat inside another element's shadow root: the events must still reach the page.
    const outer = document.createElement('div');
    document.body.append(outer);
    const root = outer.attachShadow({ mode: 'open' });
    const chat = document.createElement('kagent-chat');
    chat.setAttribute('agent-id', agent);
    chat.setAttribute('endpoint', '/scripted/widget/answer');
    root.append(chat);
    await chat.updateComplete;
    const seen: string[] = [];
    let sent: KagentSendDetail | undefined;
    let answered: KagentAnswerDetail | undefined;
    document.addEventListener('kagent-send', (event) => ((sent = (event as CustomEvent<KagentSendDetail>).detail), seen.push(event.type)), { once: true });
    document.addEventListener('kagent-answer', (event) => ((answered = (event as CustomEvent<KagentAnswerDetail>).detail), seen.push(event.type)), { once: true });

    expect(chat.send('  What is new?  ')).to.equal(true);
    expect(chat.send('A second one while busy')).to.equal(false);
    await settled(chat);
    await waitFor(() => answered, 'kagent-answer');
    expect(seen).to.deep.equal(['kagent-send', 'kagent-answer']);
    expect(sent).to.deep.equal({ question: 'What is new?', retry: false });
    expect(answered!.question).to.equal('What is new?');
    expect(answered!.answer).to.contain('**Settings**');
    expect(answered!.sources.map((s) => s.datasource_name)).to.include('Guide.pdf');
    expect(answered!.conversationId).to.be.a('string').and.not.equal('');
    const log = await agentLog(agent);
    expect(log.posts).to.equal(1);
    expect(log.bodies[0]!.query).to.equal('What is new?');
    outer.remove();
  });

  it('a cancelled kagent-send sends nothing', async () => {
    const agent = uniqueAgent('api-cancel');
    const chat = await mountChat(agent, 'answer');
    chat.addEventListener('kagent-send', (event) => event.preventDefault());
    expect(chat.send('Blocked?')).to.equal(false);
    await ask(chat, 'Blocked too?');
    await sleep(100);
    expect(parts(chat, 'turn')).to.have.length(0);
    expect((await agentLog(agent)).posts).to.equal(0);
  });

  it('fires kagent-error with the kind, status, code and the message shown', async () => {
    const chat = await mountChat(uniqueAgent('api-error'), 'status-404');
    const error = new Promise<KagentErrorDetail>((resolve) => chat.addEventListener('kagent-error', (event) => resolve(event.detail)));
    chat.send('Anyone there?');
    const detail = await error;
    expect(detail).to.deep.equal({
      question: 'Anyone there?',
      kind: 'not-found',
      status: 404,
      code: 'E404',
      message: ENGLISH.failures['not-found'],
    });
  });

  it('stop() keeps what arrived, and newConversation() empties the transcript', async () => {
    const chat = await mountChat(uniqueAgent('api-stop'), 'slow');
    chat.send('Long answer please');
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('word3'), 'the first words');
    chat.stop();
    await settled(chat);
    expect(part(chat, 'note')!.textContent).to.contain(ENGLISH.answerStopped);
    expect(lastAnswer(chat)!.textContent).to.contain('word3');
    chat.newConversation();
    await chat.updateComplete;
    expect(parts(chat, 'turn')).to.have.length(0);
  });

  it('queryOptions adds fields to the query body; the chat keeps its own', async () => {
    const agent = uniqueAgent('api-options');
    const chat = await mountChat(agent, 'answer');
    chat.queryOptions = { filters: { custom_ids: ['a', 'b'] }, query: 'overridden?', streaming: false };
    chat.send('With filters');
    await settled(chat);
    const body = (await agentLog(agent)).bodies[0] as Record<string, unknown>;
    expect(body.filters).to.deep.equal({ custom_ids: ['a', 'b'] });
    expect(body.query).to.equal('With filters');
    expect(body.streaming).to.equal(true);
  });

  it('shows the heading, placeholder and a sanitized markdown welcome', async () => {
    const chat = await mountChat(uniqueAgent('api-content'), 'answer', {
      heading: 'Help centre',
      placeholder: 'Type here',
      welcome: 'Hello! Read **the guide** <img src=x onerror="window.__welcomeRan=1"> [bad](javascript:alert(1))',
    });
    await sleep(50);
    expect(part(chat, 'heading')!.textContent).to.equal('Help centre');
    expect((part(chat, 'input') as HTMLTextAreaElement).placeholder).to.equal('Type here');
    const welcome = part(chat, 'welcome')!;
    expect(welcome.querySelector('strong')!.textContent).to.equal('the guide');
    expect(welcome.querySelector('img')).to.equal(null);
    expect(welcome.textContent).to.contain('<img src=x');
    expect(welcome.querySelector('a')?.hasAttribute('href') ?? false).to.equal(false);
    expect((window as { __welcomeRan?: number }).__welcomeRan).to.equal(undefined);
    // The welcome replaces the generic empty-state text.
    expect(chat.shadowRoot!.querySelector('.empty')).to.equal(null);
  });

  it('shows suggestions as buttons until the first question; one click asks it', async () => {
    const agent = uniqueAgent('api-suggest');
    const chat = await mountChat(agent, 'answer', { suggestions: 'How do I reset my password?|What does it cost?' });
    const buttons = parts(chat, 'suggestion');
    expect(buttons.map((b) => b.textContent)).to.deep.equal(['How do I reset my password?', 'What does it cost?']);
    expect(part(chat, 'suggestions')!.getAttribute('aria-label')).to.equal(ENGLISH.suggestionsLabel);
    buttons[1]!.click();
    await settled(chat);
    expect(part(chat, 'question')!.textContent).to.contain('What does it cost?');
    expect(part(chat, 'suggestions')).to.equal(null);
    expect((await agentLog(agent)).bodies[0]!.query).to.equal('What does it cost?');
    // A JSON array works too.
    chat.setAttribute('suggestions', '["One | with a bar", "Two"]');
    chat.newConversation();
    await chat.updateComplete;
    expect(parts(chat, 'suggestion').map((b) => b.textContent)).to.deep.equal(['One | with a bar', 'Two']);
  });

  it('Copy puts the answer on the clipboard and says so', async () => {
    const copied: string[] = [];
    const clipboard = Object.getOwnPropertyDescriptor(Navigator.prototype, 'clipboard')!;
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void copied.push(text) } });
    try {
      const chat = await mountChat(uniqueAgent('api-copy'), 'answer');
      await ask(chat, 'Copy me');
      expect(part(chat, 'copy')).to.equal(null); // not while the answer is coming
      await settled(chat);
      part(chat, 'copy')!.click();
      await waitFor(() => part(chat, 'copy')!.textContent!.trim() === ENGLISH.copied, 'the Copied label');
      expect(copied).to.have.length(1);
      expect(copied[0]).to.contain('**Settings**');
    } finally {
      delete (navigator as { clipboard?: unknown }).clipboard;
      Object.defineProperty(Navigator.prototype, 'clipboard', clipboard);
    }
  });

  it('strings overrides any text, failures included, and keeps English for the rest', async () => {
    const chat = await mountChat(uniqueAgent('api-strings'), 'status-500');
    chat.strings = { send: 'Envoyer', failures: { server: 'Le serveur a un problème.' } };
    await chat.updateComplete;
    expect(part(chat, 'send')!.textContent!.trim()).to.equal('Envoyer');
    expect(part(chat, 'new-conversation')!.textContent!.trim()).to.equal(ENGLISH.newConversation);
    expect(chat.strings.failures['not-found']).to.equal(ENGLISH.failures['not-found']);
    await ask(chat, 'Bonjour ?');
    await settled(chat);
    expect(part(chat, 'failure')!.textContent).to.contain('Le serveur a un problème.');
  });

  it('registering the element twice does not throw', async () => {
    const first = customElements.get('kagent-chat');
    // The module again under another URL, as a second bundle on the page would load it.
    await import(`/src/widget/index.ts?again=${Date.now()}`);
    expect(customElements.get('kagent-chat')).to.equal(first);
    // And the script-tag build on top of the module.
    const script = document.createElement('script');
    script.type = 'module';
    script.src = '/dist/kagent-chat.js';
    const errors: string[] = [];
    const onError = (event: ErrorEvent) => errors.push(event.message);
    window.addEventListener('error', onError);
    await new Promise((resolve, reject) => {
      script.onload = resolve;
      script.onerror = reject;
      document.head.append(script);
    });
    window.removeEventListener('error', onError);
    expect(errors).to.deep.equal([]);
    expect(customElements.get('kagent-chat')).to.equal(first);
  });
});
