import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import { ConversationStore, type StoredConversation } from '../../src/widget/index.js';
import { markdownAnswer } from '../support/scripted-service.js';
import { agentLog, ask, eventually, lastAnswer, mountChat, part, parts, removeAllChats, settled, sleep, uniqueAgent, waitFor } from './widget-helpers.js';

describe('<kagent-chat> asking and answering', () => {
  beforeEach(() => localStorage.clear());
  afterEach(removeAllChats);

  it('streams a markdown answer split mid-character, with its sources, in exactly one POST', async () => {
    const agent = uniqueAgent('stream');
    // Cut every 5 bytes: through lines, events and characters.
    const chat = await mountChat(agent, 'answer-bytewise');
    await ask(chat, 'How do I reset my password?');
    await settled(chat);

    const answer = lastAnswer(chat)!;
    expect(answer.querySelector('strong')?.textContent).to.equal('Settings');
    expect(answer.querySelector('ul')?.textContent).to.contain('Choose Reset ✓ 🎉');
    expect(answer.textContent).to.contain('Café déjà vu');
    expect(answer.textContent).not.to.contain('\uFFFD');

    const log = await agentLog(agent);
    expect(log.posts).to.equal(1);
    expect(log.bodies[0]).to.include({ query: 'How do I reset my password?', streaming: true });
  });

  it('lists one source per datasource, best first, with name, link, page and relevance', async () => {
    const chat = await mountChat(uniqueAgent('sources'), 'answer');
    await ask(chat, 'Sources?');
    await settled(chat);
    const sources = parts(chat, 'source');
    expect(sources.map((s) => s.textContent!.replace(/\s+/g, ' ').trim())).to.deep.equal([
      'Guide.pdf · page 3 of 10 · 91% relevant',
      'Billing FAQ · 82% relevant',
    ]);
    const link = sources[0]!.querySelector('a')!;
    expect(link.getAttribute('href')).to.equal('https://example.com/guide.pdf');
    expect(link.getAttribute('target')).to.equal('_blank');
    expect(link.getAttribute('rel')).to.equal('noopener noreferrer');
  });

  it('turns [n] markers into keyboard-reachable, named links to their source, leaving unknown numbers and code alone', async () => {
    const chat = await mountChat(uniqueAgent('cite'), 'answer');
    await ask(chat, 'Cite?');
    await settled(chat);
    const answer = lastAnswer(chat)!;
    const markers = [...answer.querySelectorAll<HTMLAnchorElement>('.citation')];
    expect(markers.map((m) => m.getAttribute('href'))).to.deep.equal(['https://example.com/guide.pdf', 'https://example.com/billing']);
    expect(markers[0]!.getAttribute('aria-label')).to.equal('Source 1: Guide.pdf · page 3 of 10 · 91% relevant');
    expect(markers[0]!.tabIndex).to.equal(0);
    expect(answer.textContent).to.contain('no source here [3]');
    expect(answer.querySelector('pre')!.textContent).to.contain('code keeps [1] as written');

    // The source shows on focus (and hover), hidden otherwise.
    const card = markers[0]!.querySelector<HTMLElement>('.citation-card')!;
    expect(getComputedStyle(card).display).to.equal('none');
    markers[0]!.focus();
    // :focus-visible follows keyboard focus; a script focus after no pointer use counts as such in Chromium.
    expect(chat.shadowRoot!.activeElement).to.equal(markers[0]);
    expect(card.textContent).to.equal('Guide.pdf · page 3 of 10 · 91% relevant');
  });

  it("rings a citation marker under keyboard focus with the chat's own focus outline (--kagent-focus)", async () => {
    const chat = await mountChat(uniqueAgent('cite-focus'), 'answer');
    chat.style.setProperty('--kagent-focus', 'rgb(1, 2, 3)');
    await ask(chat, 'Cite?');
    await settled(chat);
    const first = lastAnswer(chat)!.querySelector<HTMLElement>('.citation')!;
    // A script's focus with no pointer used before it shows as keyboard focus (:focus-visible), as a Tab would.
    first.focus();
    expect(chat.shadowRoot!.activeElement).to.equal(first);
    expect(first!.matches(':focus-visible')).to.equal(true);
    const style = getComputedStyle(first!);
    expect(style.outlineStyle).to.equal('solid');
    expect(style.outlineColor).to.equal('rgb(1, 2, 3)');
  });

  it('asks for the JSON answer when streaming="false"', async () => {
    const agent = uniqueAgent('json');
    const chat = await mountChat(agent, 'answer', { streaming: 'false' });
    expect(chat.streaming).to.equal(false);
    await ask(chat, 'JSON please');
    await settled(chat);
    expect(lastAnswer(chat)!.querySelector('strong')?.textContent).to.equal('Settings');
    expect(parts(chat, 'source')).to.have.length(2);
    const log = await agentLog(agent);
    expect(log.posts).to.equal(1);
    expect(log.bodies[0]!.streaming).to.equal(false);
  });

  it('sends the stored visitor and conversation ids and adopts the ones the service returns', async () => {
    const agent = uniqueAgent('ids');
    const chat = await mountChat(agent, 'answer');
    await ask(chat, 'First');
    await settled(chat);
    await ask(chat, 'Second');
    await settled(chat);
    const log = await agentLog(agent);
    expect(log.bodies[0]!.visitorId).to.match(/^[0-9a-f]{32}$/);
    expect(log.bodies[0]!.conversationId).to.match(/^[0-9a-f]{32}$/);
    expect(log.bodies[1]).to.include({ conversationId: 'conv_from_service', visitorId: 'visitor_from_service' });
  });

  it('keeps two agents on one page apart: separate requests, transcripts and stored conversations', async () => {
    const first = uniqueAgent('two-a');
    const second = uniqueAgent('two-b');
    const a = await mountChat(first, 'answer');
    const b = await mountChat(second, 'answer');
    await ask(a, 'Question for A');
    await settled(a);
    expect(parts(b, 'question')).to.have.length(0);
    await ask(b, 'Question for B');
    await settled(b);
    expect((await agentLog(first)).posts).to.equal(1);
    expect((await agentLog(second)).posts).to.equal(1);
    const keys = Object.keys(localStorage).filter((key) => key.startsWith('kagent-chat:'));
    expect(keys).to.have.length(2);
    expect(keys.some((key) => key.endsWith(encodeURIComponent(first)))).to.equal(true);
    expect(parts(a, 'question').map((q) => q.textContent!.trim())).to.deep.equal(['You asked: Question for A']);
  });

  it('restores the transcript after a reload, with a versioned stored shape, and "New conversation" starts over', async () => {
    const agent = uniqueAgent('reload');
    let chat = await mountChat(agent, 'answer');
    await ask(chat, 'Remember me');
    await settled(chat);
    const key = Object.keys(localStorage).find((k) => k.endsWith(encodeURIComponent(agent)))!;
    const stored = JSON.parse(localStorage.getItem(key)!);
    expect(stored.version).to.equal(1);
    expect(stored.turns[0]).to.include({ question: 'Remember me', state: 'answered' });

    chat.remove();
    chat = await mountChat(agent, 'answer');
    expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: Remember me']);
    // Restored answers render over the next frames, with their citations.
    await waitFor(() => lastAnswer(chat)?.querySelectorAll('.citation').length === 2, 'the restored answer');
    expect(lastAnswer(chat)!.querySelector('strong')?.textContent).to.equal('Settings');
    expect(parts(chat, 'source')).to.have.length(2);

    (part(chat, 'new-conversation') as HTMLButtonElement).click();
    await chat.updateComplete;
    expect(parts(chat, 'question')).to.have.length(0);
    const after = JSON.parse(localStorage.getItem(key)!);
    expect(after.turns).to.have.length(0);
    expect(after.conversationId).not.to.equal(stored.conversationId);
    expect(after.visitorId).to.equal(stored.visitorId);
  });

  it('restores a long transcript a frame at a time, newest answer first', async () => {
    const agent = uniqueAgent('long-restore');
    const endpoint = '/scripted/widget/answer';
    const turns = Array.from({ length: 12 }, (_, i) => ({
      id: `t${i}`,
      question: `Question ${i}`,
      // A frame apart whatever their length: 1,000 characters each keeps WebKit's work on a loaded machine small.
      answer: `## Answer ${i}\n\n${markdownAnswer(1000, i + 1)}`,
      sources: [],
      state: 'answered',
    }));
    new ConversationStore(endpoint, agent).save({ version: 1, visitorId: 'v', conversationId: 'c', turns } as StoredConversation);
    const chat = await mountChat(agent, 'answer');
    const answers = () => parts(chat, 'answer-text');
    expect(answers()).to.have.length(12);
    // Nothing is rendered while the element first renders: the work waits for frames.
    expect(answers().every((a) => a.childElementCount === 0)).to.equal(true);
    await waitFor(() => answers().at(-1)!.childElementCount > 0, 'the newest answer');
    expect(answers()[0]!.childElementCount).to.equal(0);
    // Twelve long answers a frame at a time: on a loaded machine WebKit's frames come slowly (the runner's ceiling is 60 s).
    await waitFor(() => answers().every((a) => a.childElementCount > 0), 'every answer', 55_000);
    expect(answers()[3]!.querySelector('h2')!.textContent).to.equal('Answer 3');
  });

  it('keeps a partial answer, marked incomplete with Retry, when the page reloads mid-answer', async () => {
    const agent = uniqueAgent('reload-mid');
    let chat = await mountChat(agent, 'slow');
    await ask(chat, 'A long one');
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('word40'), 'part of the answer');
    // The stream is saved about once a second: wait until the saved copy holds those words.
    await waitFor(() => Object.entries(localStorage).some(([key, saved]) => key.endsWith(`:${encodeURIComponent(agent)}`) && saved.includes('word40')), 'the partial answer saved');
    chat.remove();
    chat = await mountChat(agent, 'slow');
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('word1'), 'the restored partial answer');
    expect(part(chat, 'failure')!.textContent).to.contain('This answer was cut off before it was complete.');
    expect(part(chat, 'retry')).to.exist;
  });

  it('falls back to memory, without breaking the chat, when localStorage cannot even be reached', async () => {
    const descriptor = Object.getOwnPropertyDescriptor(window, 'localStorage')!;
    Object.defineProperty(window, 'localStorage', { configurable: true, get: () => { throw new DOMException('denied', 'SecurityError'); } });
    try {
      expect(new ConversationStore('/scripted/widget/answer', 'any').inMemory).to.equal(true);
      const agent = uniqueAgent('no-storage');
      let chat = await mountChat(agent, 'answer');
      await ask(chat, 'Still works?');
      await settled(chat);
      expect(lastAnswer(chat)!.textContent).to.contain('Reset your password');
      // Within the page the conversation is still there for a new element.
      chat.remove();
      chat = await mountChat(agent, 'answer');
      expect(parts(chat, 'question')).to.have.length(1);
    } finally {
      Object.defineProperty(window, 'localStorage', descriptor);
    }
  });

  it('falls back to memory when writing throws (quota) and reading throws', async () => {
    const setItem = Storage.prototype.setItem;
    const getItem = Storage.prototype.getItem;
    Storage.prototype.setItem = () => { throw new DOMException('full', 'QuotaExceededError'); };
    Storage.prototype.getItem = () => { throw new DOMException('denied', 'SecurityError'); };
    try {
      const agent = uniqueAgent('quota');
      const chat = await mountChat(agent, 'answer');
      await ask(chat, 'Quota?');
      await settled(chat);
      expect(lastAnswer(chat)!.textContent).to.contain('Reset your password');
      expect(parts(chat, 'failure')).to.have.length(0);
    } finally {
      Storage.prototype.setItem = setItem;
      Storage.prototype.getItem = getItem;
    }
  });

  it('Stop aborts the stream, keeps what arrived and offers Retry', async () => {
    const agent = uniqueAgent('stop');
    const chat = await mountChat(agent, 'slow');
    await ask(chat, 'Go on');
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('word5'), 'the first words');
    (part(chat, 'stop') as HTMLButtonElement).click();
    await settled(chat);
    expect(part(chat, 'note')!.textContent).to.contain('You stopped this answer.');
    expect(lastAnswer(chat)!.textContent).to.contain('word5');
    expect(part(chat, 'retry')).to.exist;
    const log = await eventually(async () => { const l = await agentLog(agent); return l.cancelled === 1 && l; }, 'the server to see the stream closed');
    expect(log.posts).to.equal(1);
  });

  it('removing the element aborts the answer under way', async () => {
    const agent = uniqueAgent('remove');
    const chat = await mountChat(agent, 'slow');
    await ask(chat, 'Go on');
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('word2'), 'the first words');
    chat.remove();
    const log = await eventually(async () => { const l = await agentLog(agent); return l.cancelled > 0 && l; }, 'the server to see the stream closed');
    expect(log.cancelled).to.equal(1);
    expect(log.posts).to.equal(1);
  });

  it('hiding and showing the tab mid-answer neither aborts nor re-sends the question', async () => {
    const agent = uniqueAgent('hidden');
    const chat = await mountChat(agent, 'slow');
    await ask(chat, 'Go on');
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('word2'), 'the first words');
    const hidden = Object.getOwnPropertyDescriptor(Document.prototype, 'hidden')!;
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));
    await sleep(100);
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
    document.dispatchEvent(new Event('visibilitychange'));
    await sleep(200);
    delete (document as unknown as Record<string, unknown>).hidden;
    expect(Object.getOwnPropertyDescriptor(Document.prototype, 'hidden')).to.deep.equal(hidden);
    const log = await agentLog(agent);
    expect(log.posts).to.equal(1);
    expect(log.cancelled).to.equal(0);
    (part(chat, 'stop') as HTMLButtonElement).click();
  });

  it('sends on Enter, adds a line on Shift+Enter, and refuses an empty question', async () => {
    const agent = uniqueAgent('keys');
    const chat = await mountChat(agent, 'answer');
    const input = part(chat, 'input') as HTMLTextAreaElement;
    input.value = '   ';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true, cancelable: true }));
    await chat.updateComplete;
    expect(parts(chat, 'question')).to.have.length(0);
    const shift = new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, bubbles: true, cancelable: true });
    input.dispatchEvent(shift);
    expect(shift.defaultPrevented).to.equal(false);
    input.value = 'By keyboard';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settled(chat);
    expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: By keyboard']);
    expect(input.value).to.equal('');
    expect((await agentLog(agent)).posts).to.equal(1);
  });

  it('an Enter that confirms an input method\'s composition does not send: during it (isComposing) nor, as Safari sends it, just after compositionend (keyCode 229)', async () => {
    const agent = uniqueAgent('ime');
    const chat = await mountChat(agent, 'answer');
    const input = part(chat, 'input') as HTMLTextAreaElement;
    input.value = 'にほんご';
    input.dispatchEvent(new CompositionEvent('compositionstart', { bubbles: true, composed: true }));
    const during = new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true, composed: true, cancelable: true });
    input.dispatchEvent(during);
    input.dispatchEvent(new CompositionEvent('compositionend', { data: 'にほんご', bubbles: true, composed: true }));
    // Safari's order: compositionend first, then the confirming Enter, no longer composing but with the IME's keyCode.
    const confirming = new KeyboardEvent('keydown', { key: 'Enter', isComposing: false, bubbles: true, composed: true, cancelable: true });
    Object.defineProperty(confirming, 'keyCode', { value: 229 });
    input.dispatchEvent(confirming);
    await chat.updateComplete;
    expect([during.defaultPrevented, confirming.defaultPrevented]).to.deep.equal([false, false]);
    expect(parts(chat, 'question')).to.have.length(0);
    expect(input.value).to.equal('にほんご');
    // The next Enter, a real one, sends the question.
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true, cancelable: true }));
    await settled(chat);
    expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: にほんご']);
    expect((await agentLog(agent)).posts).to.equal(1);
  });
});
