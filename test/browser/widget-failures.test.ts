import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import { ENGLISH, type KagentChat, type KagentErrorDetail } from '../../src/widget/index.js';
import { agentLog, ask, expectComplaints, lastAnswer, mountChat, mountChatAt, part, parts, removeAllChats, settled, sleep, uniqueAgent, waitFor } from './widget-helpers.js';

/** The warnings the chat writes on the console from now on, until `stop`. */
function watchWarnings(): { said: string[]; stop: () => void } {
  const said: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    said.push(args.map(String).join(' '));
    original.apply(console, args);
  };
  return { said, stop: () => (console.warn = original) };
}

/** Asks once and returns the failure shown and the POST count. */
async function failureFor(scenario: string, attributes: Record<string, string> = {}) {
  const agent = uniqueAgent(scenario);
  const chat = await mountChat(agent, scenario, attributes);
  await ask(chat, `Question for ${scenario}`);
  await settled(chat);
  const failure = part(chat, 'failure');
  return { chat, agent, failure, message: failure?.querySelector('span')?.textContent ?? '', posts: (await agentLog(agent)).posts };
}

describe('<kagent-chat> failures', () => {
  beforeEach(() => localStorage.clear());
  afterEach(removeAllChats);

  const cases: [scenario: string, message: string][] = [
    ['status-400', 'The assistant could not accept this question. Try rewording it.'],
    ['status-401', 'This chat is not allowed to reach the assistant right now.'],
    ['status-403', 'This chat is not allowed to reach the assistant right now.'],
    ['status-402', 'The assistant has reached its usage limit. Please try again later.'],
    ['usage-limit-stream', 'The assistant has reached its usage limit. Please try again later.'],
    ['status-404', 'This assistant could not be found. It may have been removed.'],
    ['status-500', 'The assistant ran into a problem. Please try again in a moment.'],
    ['status-503', 'The assistant ran into a problem. Please try again in a moment.'],
    ['not-event-stream', 'The assistant sent a reply this chat could not read.'],
  ];
  for (const [scenario, message] of cases) {
    it(`${scenario}: says "${message}", keeps the question with Retry, and POSTs once`, async () => {
      const result = await failureFor(scenario);
      expect(result.message).to.equal(message);
      expect(parts(result.chat, 'question').map((q) => q.textContent)).to.deep.equal([`You asked: Question for ${scenario}`]);
      expect(part(result.chat, 'retry')).to.exist;
      await sleep(1200); // fetch-event-source's default would have re-sent after a second
      expect((await agentLog(result.agent)).posts).to.equal(1);
    });
  }

  it('the same statuses fail the same way when streaming is off', async () => {
    for (const [scenario, message] of [['status-402', cases[3]![1]], ['status-404', cases[5]![1]], ['status-500', cases[6]![1]]] as const) {
      const result = await failureFor(scenario, { streaming: 'false' });
      expect(result.message).to.equal(message);
      expect(result.posts).to.equal(1);
    }
  });

  it('a [ERROR]USAGE_LIMIT stream keeps the words that arrived', async () => {
    const result = await failureFor('usage-limit-stream');
    expect(lastAnswer(result.chat)!.textContent!.trim()).to.equal('Partial words');
  });

  it('a stream cut before [DONE] keeps the partial answer, marked incomplete; Retry sends once and answers', async () => {
    const agent = uniqueAgent('cut');
    const chat = await mountChat(agent, 'cut-once');
    await ask(chat, 'Cut me off');
    await settled(chat);
    expect(lastAnswer(chat)!.innerHTML.trim()).to.equal('<p>The partial <strong>answer</strong> that stops here</p>');
    expect(part(chat, 'failure')!.textContent).to.contain('This answer was cut off before it was complete.');
    await sleep(1200);
    expect((await agentLog(agent)).posts).to.equal(1);

    const retry = part(chat, 'retry') as HTMLButtonElement;
    retry.click();
    retry.click(); // a double click still sends once
    await chat.updateComplete;
    await settled(chat);
    expect(parts(chat, 'question')).to.have.length(1);
    expect(part(chat, 'failure')).to.equal(null);
    expect(lastAnswer(chat)!.querySelector('strong')!.textContent).to.equal('Settings');
    expect((await agentLog(agent)).posts).to.equal(2);
  });

  it('an answer cut off inside inline code is shown healed, when it is cut and when it is shown again after a reload: no stray backtick', async () => {
    const agent = uniqueAgent('cut-code');
    let chat = await mountChat(agent, 'cut-code');
    await ask(chat, 'How do I start it?');
    await settled(chat);
    await waitFor(() => part(chat, 'failure'), 'the cut-off note');
    expect(lastAnswer(chat)!.innerHTML.trim()).to.equal('<p>Run <code>npm start --port 8787 and</code></p>');
    // Shown again, from storage, by a new element (what a reload does).
    chat.remove();
    chat = await mountChat(agent, 'cut-code');
    await waitFor(() => lastAnswer(chat)?.querySelector('code'), 'the restored answer');
    expect(lastAnswer(chat)!.innerHTML.trim()).to.equal('<p>Run <code>npm start --port 8787 and</code></p>');
    expect(lastAnswer(chat)!.textContent).not.to.contain('`');
  });

  it('Retry after a 500 sends the question once more and shows the answer', async () => {
    const agent = uniqueAgent('retry');
    const chat = await mountChat(agent, 'first-500');
    await ask(chat, 'Try again?');
    await settled(chat);
    expect(part(chat, 'failure')).to.exist;
    (part(chat, 'retry') as HTMLButtonElement).click();
    await settled(chat);
    expect(part(chat, 'failure')).to.equal(null);
    expect(lastAnswer(chat)!.textContent).to.contain('Reset your password');
    const log = await agentLog(agent);
    expect(log.posts).to.equal(2);
    expect(log.bodies[1]!.query).to.equal('Try again?');
  });

  it('429 counts down from Retry-After with sending disabled, then enables it again', async () => {
    const agent = uniqueAgent('429');
    const chat = await mountChat(agent, 'first-429');
    await ask(chat, 'Too fast?');
    await settled(chat);
    expect(part(chat, 'failure')!.textContent).to.contain('Too many questions for now. You can ask again in 2 s.');
    expect(part(chat, 'wait')!.textContent).to.equal('You can ask again in 2 s.');
    expect((part(chat, 'send') as HTMLButtonElement).disabled).to.equal(true);
    expect((part(chat, 'retry') as HTMLButtonElement).disabled).to.equal(true);
    // Typing is still possible while waiting, and nothing is sent.
    const input = part(chat, 'input') as HTMLTextAreaElement;
    expect(input.disabled).to.equal(false);
    input.value = 'Queued thought';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await waitFor(() => part(chat, 'wait')?.textContent === 'You can ask again in 1 s.', 'the countdown to tick');
    await waitFor(() => !part(chat, 'wait'), 'the countdown to end');
    expect(input.value).to.equal('Queued thought');
    expect((part(chat, 'send') as HTMLButtonElement).disabled).to.equal(false);
    expect(part(chat, 'failure')!.textContent).to.contain('You can ask again now.');
    expect((await agentLog(agent)).posts).to.equal(1);

    (part(chat, 'retry') as HTMLButtonElement).click();
    await settled(chat);
    expect(lastAnswer(chat)!.textContent).to.contain('Reset your password');
    expect((await agentLog(agent)).posts).to.equal(2);
  });

  it('an unreachable endpoint says so, and offline says to check the connection', async () => {
    const chat = document.createElement('kagent-chat');
    chat.setAttribute('agent-id', uniqueAgent('unreachable'));
    chat.setAttribute('endpoint', 'http://127.0.0.1:9'); // the discard port: connection refused
    document.body.append(chat);
    await chat.updateComplete;
    await ask(chat, 'Anyone there?');
    await settled(chat);
    expect(part(chat, 'failure')!.querySelector('span')!.textContent).to.equal('The assistant could not be reached. Check your connection, then retry.');

    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
    try {
      (part(chat, 'retry') as HTMLButtonElement).click();
      await settled(chat);
      expect(part(chat, 'failure')!.querySelector('span')!.textContent).to.equal('You seem to be offline. Check your connection, then retry.');
    } finally {
      delete (navigator as unknown as Record<string, unknown>).onLine;
    }
  });

  it('announces a failure to screen readers', async () => {
    const result = await failureFor('status-404');
    const status = result.chat.shadowRoot!.querySelector('[role="status"]')!;
    expect(status.textContent!.trim()).to.equal('This assistant could not be found. It may have been removed.');
  });
});

describe('<kagent-chat> set up wrong: the developer reads what to fix, the visitor a plain sentence', () => {
  afterEach(removeAllChats);

  it("a proxy that does not allow the page's origin: one console warning naming that origin and KAGENT_ALLOWED_ORIGINS, the question not sent, no 'check your connection'", async () => {
    const agent = uniqueAgent('refused-origin');
    // The proxy on another origin than the page's (the same test server by another host name): a cross-origin request, as a site's.
    const other = new URL(location.href);
    other.hostname = other.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    const errors: KagentErrorDetail[] = [];
    const warnings = watchWarnings();
    expectComplaints(/^GET \/scripted\/refusing\/[\w-]+\/features: 403$/, /^console\.warn: kagent-chat: .*KAGENT_ALLOWED_ORIGINS/);
    let chat: KagentChat;
    try {
      chat = await mountChatAt(agent, `${other.origin}/scripted/refusing/${agent}`);
      chat.addEventListener('kagent-error', (event) => errors.push(event.detail));
      await ask(chat, 'Can you hear me?');
      await settled(chat);
      await ask(chat, 'And now?');
      await settled(chat);
    } finally {
      warnings.stop();
    }
    const words = parts(chat, 'failure').map((failure) => failure.querySelector('span')!.textContent);
    expect(words).to.deep.equal([ENGLISH.failures.unauthorized, ENGLISH.failures.unauthorized]);
    expect(words[0]).not.to.match(/connection/i);
    expect(errors.map((error) => [error.kind, error.status, error.code])).to.deep.equal([
      ['unauthorized', 403, 'ORIGIN_NOT_ALLOWED'],
      ['unauthorized', 403, 'ORIGIN_NOT_ALLOWED'],
    ]);
    // One warning for both questions, for the developer: the page's origin, and the setting that allows it.
    expect(warnings.said).to.have.length(1);
    expect(warnings.said[0]).to.contain(`does not allow pages from ${location.origin}: add ${location.origin} to its KAGENT_ALLOWED_ORIGINS`);
    expect(warnings.said[0]).to.match(/^kagent-chat: /);
    const log = (await (await fetch(`/scripted/proxy-log/${agent}`)).json()) as { requests: unknown[] };
    expect(log.requests, 'no question was sent to a proxy that refuses the page').to.have.length(0);
  });

  it('proxy-features="off" in front of a service that is not kagent-proxy: nothing is asked but the question, and it is answered', async () => {
    const agent = uniqueAgent('not-proxy');
    const chat = await mountChatAt(agent, `/scripted/not-proxy/${agent}`, { 'proxy-features': 'off' });
    expect(chat.proxyFeatures).to.equal('off');
    await ask(chat, 'Hello?');
    await settled(chat);
    expect(lastAnswer(chat)!.textContent).to.contain('Reset your password');
    const log = await agentLog(agent);
    expect([log.posts, log.features]).to.deep.equal([1, 0]);
  });

  it('without proxy-features="off", that service is asked its features route once, and its 404 is the one complaint', async () => {
    const agent = uniqueAgent('not-proxy-auto');
    // What the console check holds against such a page (Chromium and Safari print the 404 in red): hence the attribute.
    expectComplaints(/^GET \/scripted\/not-proxy\/[\w-]+\/features: 404$/);
    const chat = await mountChatAt(agent, `/scripted/not-proxy/${agent}`);
    await ask(chat, 'Hello?');
    await settled(chat);
    await ask(chat, 'Again?');
    await settled(chat);
    expect(parts(chat, 'answer-text')).to.have.length(2);
    const log = await agentLog(agent);
    expect([log.posts, log.features]).to.deep.equal([2, 1]);
  });
});
