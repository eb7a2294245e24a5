import { expect } from '@open-wc/testing';
import { sendMouse } from '@web/test-runner-commands';
import { agentLog, eventually, lastAnswer, part, settled, uniqueAgent, waitFor } from './widget-helpers.js';
import { becomeIdle, frames, gateId, inlineChat, isSecondPart, openChatPage, pageConsole, removeChatPages, requested, secondPartRequests, setGate, typeAndSend } from './widget-split-helpers.js';
import { endpointOf, routes, sessionLog } from './session-helpers.js';
import { ENGLISH } from '../../src/widget/element/strings.js';

// The script-tag build as a site loads it: one module script; the second part (request,
// markdown, sanitizer, citations) comes from beside it, through a gate these tests control.


describe('the script-tag build in two parts', () => {
  afterEach(removeChatPages);

  it('a bubble page whose visitor does nothing fetches only the first part until the browser is idle', async () => {
    const gate = gateId('idle');
    const page = await openChatPage(gate, `<kagent-chat mode="bubble" agent-id="${uniqueAgent('idle')}" endpoint="/scripted/widget/answer" welcome="**Hello**, ask me."></kagent-chat>`);
    expect(part(page.chat, 'launcher')).to.exist;
    // The idle load is asked for once the page has loaded.
    await page.loaded;
    await frames(page);
    // Loaded and drawn, not yet idle: one file, even with a welcome in markdown (the panel is closed).
    expect(await requested(gate)).to.deep.equal(['kagent-chat.js']);
    expect(page.window.idleCallbacks).to.have.length.greaterThan(0);

    becomeIdle(page);
    await eventually(async () => (await secondPartRequests(gate)) === 1, 'the second part to be fetched once the page is idle');
    const files = await requested(gate);
    expect(files).to.have.length(2);
    expect(files[0]).to.equal('kagent-chat.js');
  });

  it('loading="interaction" waits for the visitor: hovering the launcher fetches the second part, before any click', async () => {
    const gate = gateId('hover');
    const page = await openChatPage(gate, `<kagent-chat loading="interaction" mode="bubble" agent-id="${uniqueAgent('hover')}" endpoint="/scripted/widget/answer"></kagent-chat>`);
    await page.loaded;
    await frames(page);
    expect(page.window.idleCallbacks).to.have.length(0);
    expect(await requested(gate)).to.deep.equal(['kagent-chat.js']);

    const launcher = part(page.chat, 'launcher')!.getBoundingClientRect();
    const frame = page.frame.getBoundingClientRect();
    await sendMouse({ type: 'move', position: [Math.round(frame.left + launcher.left + launcher.width / 2), Math.round(frame.top + launcher.top + launcher.height / 2)] });
    await eventually(async () => (await secondPartRequests(gate)) === 1, 'the second part to be fetched on hover');
    expect(page.chat.opened).to.equal(false);
    await sendMouse({ type: 'move', position: [0, 0] });
  });

  it('loading="eager" fetches the second part at once', async () => {
    const gate = gateId('eager');
    // Held, so that the second part's own idle work (visitor sessions) cannot have started: no idle callback is the first part's.
    await setGate(gate, 'hold');
    const page = await openChatPage(gate, inlineChat(uniqueAgent('eager'), 'loading="eager"'));
    await eventually(async () => (await secondPartRequests(gate)) === 1, 'the second part to be fetched at once');
    expect(page.window.idleCallbacks).to.have.length(0);
    await setGate(gate, 'open');
  });

  it('with the second part missing from the site (404), the console says which files to copy where, once, and the visitor reads a plain sentence', async () => {
    const gate = gateId('missing');
    await setGate(gate, 'open', 'kagent-chat-answers-');
    const agent = uniqueAgent('missing');
    const page = await openChatPage(gate, inlineChat(agent, 'loading="eager"'));
    const said = pageConsole(page);
    await typeAndSend(page, 'Where are the settings?');
    await settled(page.chat);
    expect(part(page.chat, 'failure')!.dataset.kind).to.equal('not-loaded');
    const words = part(page.chat, 'failure')!.querySelector('span')!.textContent!;
    expect(words).to.equal(ENGLISH.failures['not-loaded']);
    expect(words).not.to.match(/connection/i);
    expect(said).to.have.length(1);
    expect(said[0]).to.match(/^kagent-chat: not-loaded: .*: copy all the build's files \(kagent-chat-\*\.js\) beside kagent-chat\.js$/);
    expect((await agentLog(agent)).posts).to.equal(0);
  });

  it("with visitor sessions on at the proxy and the keeper's file missing from the site: the question is not sent without a session, the console names kagent-chat-sessions-*.js, the visitor reads a plain sentence", async () => {
    const gate = gateId('keeper-missing');
    await setGate(gate, 'open', 'kagent-chat-sessions-');
    const scope = uniqueAgent('keeper-missing');
    const page = await openChatPage(gate, `<kagent-chat agent-id="${scope}" endpoint="${endpointOf('on', scope)}" loading="eager"></kagent-chat>`);
    const said = pageConsole(page);
    await typeAndSend(page, 'Where are the settings?');
    await settled(page.chat);
    expect(part(page.chat, 'failure')!.dataset.kind).to.equal('not-loaded');
    expect(part(page.chat, 'failure')!.querySelector('span')!.textContent).to.equal(ENGLISH.failures['not-loaded']);
    expect(said).to.have.length(1);
    expect(said[0]).to.match(/^kagent-chat: not-loaded: .*the proxy asks for visitor sessions: copy their file \(kagent-chat-sessions-\*\.js\) beside kagent-chat\.js, with all the build's files$/);
    const log = await sessionLog(scope);
    expect(log.features, 'the features route said sessions are on').to.deep.equal([200]);
    expect(routes(log), 'nothing sent without a session').to.deep.equal([]);
    expect((await requested(gate)).filter((file) => file.startsWith('kagent-chat-sessions-'))).to.have.length.of.at.least(1);
  });

  it('a question sent before the second part arrived is sent once when it does, and answered', async () => {
    const gate = gateId('held');
    await setGate(gate, 'hold');
    const agent = uniqueAgent('held');
    const page = await openChatPage(gate, inlineChat(agent));
    expect(await secondPartRequests(gate)).to.equal(0);

    await typeAndSend(page, 'Where are the settings?');
    // The question is in the transcript at once, waiting; the second part is on its way (held); nothing was POSTed.
    expect(part(page.chat, 'question')!.textContent).to.contain('Where are the settings?');
    expect(part(page.chat, 'status')).to.exist;
    expect((part(page.chat, 'input') as HTMLTextAreaElement).value).to.equal('');
    await eventually(async () => (await secondPartRequests(gate)) === 1, 'the second part to be asked for');
    expect((await agentLog(agent)).posts).to.equal(0);

    await setGate(gate, 'open');
    await settled(page.chat);
    expect(lastAnswer(page.chat)!.querySelector('strong')!.textContent).to.equal('Settings');
    expect(lastAnswer(page.chat)!.querySelectorAll('.citation')).to.have.length(2);
    expect((await agentLog(agent)).posts).to.equal(1);
    expect(await secondPartRequests(gate)).to.equal(1);
  });

  it('Stop while the second part is on its way sends nothing', async () => {
    const gate = gateId('stopped');
    await setGate(gate, 'hold');
    const agent = uniqueAgent('stopped');
    const page = await openChatPage(gate, inlineChat(agent));
    await typeAndSend(page, 'Never mind');
    (part(page.chat, 'stop') as HTMLButtonElement).click();
    await setGate(gate, 'open');
    await settled(page.chat);
    expect(part(page.chat, 'note')!.textContent).to.contain('You stopped this answer.');
    // The second part arrived (for the next question), and this one was never sent.
    await eventually(async () => (await secondPartRequests(gate)) === 1, 'the second part to arrive');
    expect((await agentLog(agent)).posts).to.equal(0);
  });

  it('a query string on the script address (a cache-busting version) still loads each part once', async () => {
    const gate = gateId('versioned');
    const agent = uniqueAgent('versioned');
    const page = await openChatPage(gate, inlineChat(agent), { script: 'kagent-chat.js?ver=2' });
    await typeAndSend(page, 'Where are the settings?');
    await settled(page.chat);
    expect(lastAnswer(page.chat)!.querySelector('strong')!.textContent).to.equal('Settings');
    // Had the second part imported anything from the first, the first would come again without ?ver=2.
    const files = await requested(gate);
    expect(files.filter((file) => file === 'kagent-chat.js')).to.have.length(1);
    expect(files.filter(isSecondPart)).to.have.length(1);
  });

  it('a welcome with markup renders once the second part is here; a plain one shows at once', async () => {
    const gate = gateId('welcome');
    await setGate(gate, 'hold');
    const page = await openChatPage(gate, `${inlineChat(uniqueAgent('plain-welcome'), 'loading="interaction" welcome="Hello, ask me about the product."')}`);
    expect(part(page.chat, 'welcome')!.textContent!.trim()).to.equal('Hello, ask me about the product.');
    await frames(page);
    expect(await secondPartRequests(gate)).to.equal(0);

    const gate2 = gateId('markup-welcome');
    await setGate(gate2, 'hold');
    const markup = await openChatPage(gate2, inlineChat(uniqueAgent('markup-welcome'), 'loading="interaction" welcome="**Hello**, ask me about [the docs](https://example.com/docs)."'));
    // Shown inline, it needs the second part: asked for at once; nothing raw shown meanwhile.
    await eventually(async () => (await secondPartRequests(gate2)) === 1, 'the second part for the welcome');
    expect(part(markup.chat, 'welcome')!.textContent!.trim()).to.equal('');
    expect(markup.chat.shadowRoot!.querySelector('.empty')).to.equal(null);
    await setGate(gate2, 'open');
    const strong = await waitFor(() => part(markup.chat, 'welcome')!.querySelector('strong'), 'the welcome to render');
    expect(strong.textContent).to.equal('Hello');
    expect(part(markup.chat, 'welcome')!.querySelector('a')!.getAttribute('href')).to.equal('https://example.com/docs');
  });

  it('a stored conversation renders with markdown once the second part is here, and as text when it cannot be fetched', async () => {
    const agent = uniqueAgent('restored');
    const first = await openChatPage(gateId('restored-first'), inlineChat(agent));
    await typeAndSend(first, 'Where are the settings?');
    await settled(first.chat);
    const answerText = lastAnswer(first.chat)!.textContent!;
    removeChatPages();

    // Blocked: the answer is readable as text (no markup made from it), the question is there.
    const blocked = gateId('restored-blocked');
    await setGate(blocked, 'fail');
    const offline = await openChatPage(blocked, inlineChat(agent, 'loading="interaction"'));
    const shown = await waitFor(() => (lastAnswer(offline.chat)?.textContent?.trim() ? lastAnswer(offline.chat) : undefined), 'the restored answer as text');
    expect(await secondPartRequests(blocked)).to.equal(1);
    expect(shown.querySelector('strong, a, .citation')).to.equal(null);
    expect(shown.textContent).to.contain('**Settings**');
    expect(part(offline.chat, 'question')!.textContent).to.contain('Where are the settings?');
    removeChatPages();

    // Reachable: a stored conversation is a need even with loading="interaction", and renders as before.
    const online = await openChatPage(gateId('restored-online'), inlineChat(agent, 'loading="interaction"'));
    const rendered = await waitFor(() => lastAnswer(online.chat)?.querySelector('strong') && lastAnswer(online.chat), 'the restored answer rendered');
    expect(rendered.textContent).to.equal(answerText);
    expect(rendered.querySelectorAll('.citation')).to.have.length(2);
  });
});
