import { expect } from '@open-wc/testing';
import { emulateMedia, sendKeys, sendMouse } from '@web/test-runner-commands';
import '../../src/widget/index.js';
import { ENGLISH, type KagentChat } from '../../src/widget/index.js';
import { expectNoViolations, loadAxe } from './axe-helpers.js';
import { lastAnswer, mountChat, part, parts, removeAllChats, settled, sleep, uniqueAgent, waitFor } from './widget-helpers.js';

const status = (chat: Element) => chat.shadowRoot!.querySelector('[role="status"]')!;

/** Every text a screen reader was told through the live region, in order. */
function recordAnnouncements(chat: Element): string[] {
  const said: string[] = [];
  new MutationObserver(() => {
    const text = status(chat).textContent!.trim();
    if (text && said.at(-1) !== text) said.push(text);
  }).observe(status(chat), { childList: true, characterData: true, subtree: true });
  return said;
}

describe('<kagent-chat> accessibility', () => {
  before(loadAxe);
  beforeEach(() => localStorage.clear());
  afterEach(async () => {
    removeAllChats();
    await emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`has no axe violation when empty, streaming, answered, failed, and as an open bubble (${theme} theme)`, async () => {
      const chat = await mountChat(uniqueAgent(`axe-${theme}`), 'slow', {
        theme,
        welcome: 'Welcome! Ask about **billing** or [read the guide](https://example.com/guide).',
        suggestions: 'How do I reset my password?|What does it cost?',
      });
      await sleep(50);
      await expectNoViolations(chat, 'empty');

      chat.send('Tell me a long story');
      await waitFor(() => lastAnswer(chat)?.textContent?.includes('word5'), 'streaming words');
      await expectNoViolations(chat, 'streaming');
      chat.stop();
      await settled(chat);

      chat.endpoint = '/scripted/widget/answer';
      await chat.updateComplete;
      chat.send('Cite your sources');
      await settled(chat);
      expect(parts(chat, 'source')).to.have.length(2);
      await expectNoViolations(chat, 'answered');

      chat.endpoint = '/scripted/widget/status-500';
      await chat.updateComplete;
      chat.send('Fail please');
      await settled(chat);
      expect(part(chat, 'failure')).not.to.equal(null);
      await expectNoViolations(chat, 'failed');

      const bubble = await mountChat(uniqueAgent(`axe-bubble-${theme}`), 'answer', { mode: 'bubble', theme });
      await expectNoViolations(bubble, 'bubble closed');
      bubble.open();
      await bubble.updateComplete;
      bubble.send('In the bubble?');
      await settled(bubble);
      await expectNoViolations(bubble, 'bubble open and answered');
    });
  }

  it('follows prefers-color-scheme unless the theme attribute forces one', async () => {
    const chat = await mountChat(uniqueAgent('scheme'), 'answer');
    const background = () => getComputedStyle(part(chat, 'base')!).backgroundColor;
    expect(background()).to.equal('rgb(255, 255, 255)');
    await emulateMedia({ colorScheme: 'dark' });
    expect(background()).to.equal('rgb(22, 25, 31)');
    chat.theme = 'light';
    await chat.updateComplete;
    expect(background()).to.equal('rgb(255, 255, 255)');
    await emulateMedia({ colorScheme: 'light' });
    chat.theme = 'dark';
    await chat.updateComplete;
    expect(background()).to.equal('rgb(22, 25, 31)');
  });

  it('is usable by keyboard alone: Tab reaches every control in order, Enter sends, Shift+Enter makes a new line', async () => {
    const chat = await mountChat(uniqueAgent('keys'), 'answer', { suggestions: 'First?|Second?' });
    const before = document.createElement('button');
    before.textContent = 'before';
    chat.before(before);
    before.focus();
    const focusedPart = () => chat.shadowRoot!.activeElement?.getAttribute('part');
    const order: (string | null | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      await sendKeys({ press: 'Tab' });
      order.push(focusedPart());
    }
    // "New conversation" is disabled before the first question, so it is skipped.
    expect(order).to.deep.equal(['suggestion', 'suggestion', 'input', 'send']);
    // Focus is visible on each control.
    const send = part(chat, 'send')!;
    expect(getComputedStyle(send).outlineStyle).to.equal('solid');

    (part(chat, 'input') as HTMLTextAreaElement).focus();
    await sendKeys({ type: 'Line one' });
    await sendKeys({ down: 'Shift' });
    await sendKeys({ press: 'Enter' });
    await sendKeys({ up: 'Shift' });
    await sendKeys({ type: 'line two' });
    expect((part(chat, 'input') as HTMLTextAreaElement).value).to.equal('Line one\nline two');
    await sendKeys({ press: 'Enter' });
    await settled(chat);
    expect(part(chat, 'question')!.textContent).to.contain('Line one\nline two');
    // After the answer: Copy, the citation markers and the source links are all reachable.
    const focusable = [...chat.shadowRoot!.querySelectorAll<HTMLElement>('button, a[href], textarea')].filter((el) => !(el as HTMLButtonElement).disabled && el.tabIndex >= 0);
    expect(focusable.map((el) => el.getAttribute('part') ?? el.className)).to.include.members(['copy', 'new-conversation', 'input', 'send']);
    before.remove();
  });

  it('announces the finished answer once, not each fragment, and announces failures', async () => {
    const chat = await mountChat(uniqueAgent('announce'), 'answer');
    const said = recordAnnouncements(chat);
    const transcript = part(chat, 'transcript')!;
    expect(transcript.getAttribute('role')).to.equal('log');
    chat.send('Announce it');
    await settled(chat);
    await waitFor(() => said.length >= 2, 'the answer to be announced');
    expect(said[0]).to.equal(ENGLISH.answering);
    expect(said).to.have.length(2);
    expect(said[1]).to.match(/^Assistant: .*Settings/s);
    expect(said[1]).not.to.contain('**');

    chat.endpoint = '/scripted/widget/status-503';
    await chat.updateComplete;
    chat.send('Fail');
    await settled(chat);
    await waitFor(() => said.at(-1) === ENGLISH.failures.server, 'the failure to be announced');
  });

  it('nothing moves while an answer streams when the visitor prefers reduced motion', async () => {
    await emulateMedia({ reducedMotion: 'reduce' });
    const chat: KagentChat = await mountChat(uniqueAgent('motion'), 'slow', { mode: 'bubble' });
    chat.open();
    await chat.updateComplete;
    chat.send('Stream slowly');
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('word3'), 'streaming words');
    expect(chat.shadowRoot!.getAnimations()).to.have.length(0);
    expect(getComputedStyle(part(chat, 'transcript')!).scrollBehavior).to.equal('auto');
    chat.stop();
    await settled(chat);
  });

  it("keeps the page's CSS out and its own CSS in", async () => {
    const pageStyle = document.createElement('style');
    pageStyle.textContent = `
      body { letter-spacing: 4px; text-transform: uppercase; text-align: center; line-height: 3; font-style: italic; }
      button { background: red !important; border-radius: 0 !important; }
      * { box-sizing: content-box !important; }
    `;
    document.head.append(pageStyle);
    const outside = document.createElement('button');
    outside.textContent = 'page button';
    document.body.append(outside);
    const outsideBefore = getComputedStyle(outside).cssText || JSON.stringify([getComputedStyle(outside).color, getComputedStyle(outside).fontSize, getComputedStyle(outside).padding]);
    try {
      const chat = await mountChat(uniqueAgent('isolation'), 'answer', { welcome: 'Hello' });
      const welcome = getComputedStyle(part(chat, 'welcome')!);
      expect(welcome.letterSpacing).to.equal('normal');
      expect(welcome.textTransform).to.equal('none');
      expect(welcome.fontStyle).to.equal('normal');
      expect(welcome.textAlign).to.equal('start');
      const send = getComputedStyle(part(chat, 'send')!);
      expect(send.backgroundColor).to.equal('rgb(47, 91, 234)');
      expect(send.borderTopLeftRadius).to.equal('6px');
      // A page's own custom properties do restyle it: that is the theming interface.
      chat.style.setProperty('--kagent-accent', 'rgb(0, 128, 0)');
      expect(getComputedStyle(part(chat, 'send')!).backgroundColor).to.equal('rgb(0, 128, 0)');
      // And the chat's styles did not change the page's button.
      const outsideAfter = getComputedStyle(outside).cssText || JSON.stringify([getComputedStyle(outside).color, getComputedStyle(outside).fontSize, getComputedStyle(outside).padding]);
      expect(outsideAfter).to.equal(outsideBefore);
      expect(getComputedStyle(outside).backgroundColor).to.equal('rgb(255, 0, 0)');
    } finally {
      pageStyle.remove();
      outside.remove();
    }
  });

  for (const how of ['Enter', 'click'] as const) {
    it(`choosing a suggestion (${how}) leaves focus in the question box`, async () => {
      const chat = await mountChat(uniqueAgent(`suggest-${how}`), 'answer', { suggestions: 'How do I reset my password?|What does it cost?' });
      const suggestion = part(chat, 'suggestion') as HTMLButtonElement;
      if (how === 'Enter') {
        suggestion.focus();
        await sendKeys({ press: 'Enter' });
      } else {
        const r = suggestion.getBoundingClientRect();
        await sendMouse({ type: 'click', position: [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)] });
      }
      await chat.updateComplete;
      expect(part(chat, 'suggestions')).to.equal(null);
      expect(chat.shadowRoot!.activeElement?.getAttribute('part')).to.equal('input');
      expect(document.activeElement?.localName).to.equal('kagent-chat');
      await settled(chat);
      expect(chat.shadowRoot!.activeElement?.getAttribute('part')).to.equal('input');
    });
  }

  it('in the bubble, focus stays where the visitor left it while the answer arrives: on Send (which becomes Stop, then Send), or on the page', async () => {
    const chat = await mountChat(uniqueAgent('focus-stays'), 'slow', { mode: 'bubble' });
    chat.open();
    await chat.updateComplete;
    (part(chat, 'input') as HTMLTextAreaElement).value = 'A long one';
    const send = part(chat, 'send')!;
    send.focus();
    await sendKeys({ press: 'Enter' });
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('word3'), 'streaming words');
    // The same button, now Stop, still has the focus.
    expect(chat.shadowRoot!.activeElement?.getAttribute('part')).to.equal('stop');
    await sendKeys({ press: 'Enter' });
    await settled(chat);
    expect(chat.shadowRoot!.activeElement?.getAttribute('part')).to.equal('send');

    // The visitor went back to the page while an answer comes in: the chat does not take focus back.
    const pageButton = document.createElement('button');
    pageButton.textContent = 'On the page';
    document.body.append(pageButton);
    chat.endpoint = '/scripted/widget/answer';
    await chat.updateComplete;
    chat.send('Another');
    pageButton.focus();
    await settled(chat);
    expect(document.activeElement === pageButton).to.equal(true);
    expect(chat.opened).to.equal(true);
    pageButton.remove();
  });
});
