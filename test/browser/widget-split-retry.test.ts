import { expect } from '@open-wc/testing';
import type { KagentErrorDetail } from '../../src/widget/index.js';
import { ENGLISH } from '../../src/widget/element/strings.js';
import { endpointOf, routes, sessionLog } from './session-helpers.js';
import { agentLog, eventually, lastAnswer, part, parts, settled, uniqueAgent } from './widget-helpers.js';
import { gateId, inlineChat, openChatPage, removeChatPages, requested, secondPartRequests, setGate, typeAndSend } from './widget-split-helpers.js';

// The script-tag build with a file that failed to load, then is back: Retry fetches it again and the question is
// answered, in every browser. (Firefox keeps a failed import()'s failure for the page's life: the chat asks for the
// file under a new address there.) In all three browsers, where the rest of the split build's tests run in Chromium.

describe('the script-tag build, Retry after a part failed to load', () => {
  afterEach(removeChatPages);

  it('with the second part blocked, the chat draws, takes a question, says it could not load with Retry, and keeps the question; Retry once it is back fetches it and sends the question, once', async () => {
    const gate = gateId('blocked');
    await setGate(gate, 'fail');
    const agent = uniqueAgent('blocked');
    const page = await openChatPage(gate, inlineChat(agent, 'loading="eager" heading="Help" welcome="Ask me anything." suggestions="How do I reset it?|Where is the invoice?"'));
    await eventually(async () => (await secondPartRequests(gate)) === 1, 'the blocked second part to be asked for');
    // Everything the first part draws is there.
    expect(part(page.chat, 'heading')!.textContent).to.equal('Help');
    expect(part(page.chat, 'welcome')!.textContent!.trim()).to.equal('Ask me anything.');
    expect(parts(page.chat, 'suggestion').map((button) => button.textContent!.trim())).to.deep.equal(['How do I reset it?', 'Where is the invoice?']);

    const errors: KagentErrorDetail[] = [];
    page.chat.addEventListener('kagent-error', (event) => errors.push(event.detail));
    await typeAndSend(page, 'Where are the settings?');
    await settled(page.chat);
    expect(part(page.chat, 'question')!.textContent).to.contain('Where are the settings?');
    const failure = part(page.chat, 'failure')!;
    expect(failure.dataset.kind).to.equal('not-loaded');
    expect(failure.textContent).to.contain(ENGLISH.failures['not-loaded']);
    expect(errors.map((error) => error.kind)).to.deep.equal(['not-loaded']);
    expect((await agentLog(agent)).posts).to.equal(0);

    // Reachable again: Retry fetches it and sends the question, once.
    await setGate(gate, 'open');
    (part(page.chat, 'retry') as HTMLButtonElement).click();
    await settled(page.chat);
    expect(lastAnswer(page.chat)!.querySelector('strong')!.textContent).to.equal('Settings');
    expect(parts(page.chat, 'failure')).to.have.length(0);
    expect((await agentLog(agent)).posts).to.equal(1);
    // Asked for at load (eager), for the question (unless it came while the failing load was still under way, and shared
    // it: the server sees that request before the browser's fetch has failed), and for Retry; never more.
    const requests = await secondPartRequests(gate);
    expect(requests).to.be.within(2, 3);

    // Loaded once: the next question fetches nothing (no second copy of the part).
    await typeAndSend(page, 'And the invoice?');
    await settled(page.chat);
    expect((await agentLog(agent)).posts).to.equal(2);
    expect(await secondPartRequests(gate)).to.equal(requests);
  });

  it("with visitor sessions on and the session keeper's file out of reach, Retry once it is back fetches it and the question is answered, once", async () => {
    const gate = gateId('keeper-back');
    await setGate(gate, 'open', 'kagent-chat-sessions-');
    const scope = uniqueAgent('keeper-back');
    const page = await openChatPage(gate, `<kagent-chat agent-id="${scope}" endpoint="${endpointOf('on', scope)}" loading="eager"></kagent-chat>`);
    await typeAndSend(page, 'Where are the settings?');
    await settled(page.chat);
    expect(part(page.chat, 'failure')!.dataset.kind).to.equal('not-loaded');
    expect(routes(await sessionLog(scope)), 'nothing sent without a session').to.deep.equal([]);

    await setGate(gate, 'open');
    (part(page.chat, 'retry') as HTMLButtonElement).click();
    await settled(page.chat);
    expect(parts(page.chat, 'failure')).to.have.length(0);
    expect(lastAnswer(page.chat)!.textContent).to.contain('Reset your password');
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect((await agentLog(scope)).posts).to.equal(1);
    const keeperRequests = (await requested(gate)).filter((file) => file.startsWith('kagent-chat-sessions-')).length;

    // Loaded once: the next question fetches nothing (no second copy of the keeper).
    await typeAndSend(page, 'And the invoice?');
    await settled(page.chat);
    expect((await agentLog(scope)).posts).to.equal(2);
    expect((await requested(gate)).filter((file) => file.startsWith('kagent-chat-sessions-'))).to.have.length(keeperRequests);
  });
});
