import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/widget/index.js';
import { ENGLISH } from '../../src/widget/index.js';
import { setWindowSize } from './browser-window.js';
import { mountChat, part, removeAllChats, sleep, uniqueAgent, waitFor } from './widget-helpers.js';

const box = (element: Element) => element.getBoundingClientRect();

describe('<kagent-chat> inline and bubble modes', () => {
  beforeEach(async () => {
    localStorage.clear();
    await setWindowSize(1000, 700);
  });
  afterEach(async () => {
    removeAllChats();
    document.documentElement.removeAttribute('dir');
    await setWindowSize(1000, 700);
  });

  it('inline (the default) fills its container and has no launcher', async () => {
    const container = document.createElement('div');
    container.style.cssText = 'width: 500px; height: 450px';
    document.body.append(container);
    const chat = document.createElement('kagent-chat');
    chat.setAttribute('agent-id', uniqueAgent('inline'));
    chat.setAttribute('endpoint', '/scripted/widget/answer');
    container.append(chat);
    await chat.updateComplete;
    expect(chat.mode).to.equal('inline');
    expect(part(chat, 'launcher')).to.equal(null);
    const frame = box(part(chat, 'base')!);
    expect(frame.width).to.equal(500);
    expect(frame.height).to.equal(450);
    container.remove();
  });

  it('bubble: a launcher in the bottom-end corner opens the panel, focuses the question box, Escape closes it and focus returns', async () => {
    const chat = await mountChat(uniqueAgent('bubble'), 'answer', { mode: 'bubble' });
    const events: string[] = [];
    document.addEventListener('kagent-open', (e) => events.push(e.type));
    document.addEventListener('kagent-close', (e) => events.push(e.type));
    const launcher = part(chat, 'launcher') as HTMLButtonElement;
    const panel = part(chat, 'base')!;
    expect(getComputedStyle(panel).display).to.equal('none');
    expect(launcher.getAttribute('aria-expanded')).to.equal('false');
    expect(launcher.getAttribute('aria-label')).to.equal(ENGLISH.openChat);
    // Bottom right, 20px from the edges, fixed to the window.
    const spot = box(launcher);
    expect(Math.round(innerWidth - spot.right)).to.equal(20);
    expect(Math.round(innerHeight - spot.bottom)).to.equal(20);
    // In the browser's top layer, above anything the page stacks.
    expect(launcher.parentElement!.matches(':popover-open')).to.equal(true);

    launcher.focus();
    await sendKeys({ press: 'Enter' });
    await waitFor(() => chat.opened, 'Enter on the launcher to open the chat');
    await chat.updateComplete;
    expect(chat.hasAttribute('open')).to.equal(true);
    expect(getComputedStyle(panel).display).not.to.equal('none');
    expect(panel.getAttribute('role')).to.equal('dialog');
    expect(launcher.getAttribute('aria-expanded')).to.equal('true');
    expect(chat.shadowRoot!.activeElement).to.equal(part(chat, 'input'));
    // The panel sits above the launcher, inside the window.
    const open = box(panel);
    expect(open.bottom).to.be.at.most(spot.top);
    expect(open.top).to.be.at.least(0);

    await sendKeys({ press: 'Escape' });
    await waitFor(() => !chat.opened, 'Escape to close the chat');
    await chat.updateComplete;
    expect(getComputedStyle(panel).display).to.equal('none');
    expect(chat.shadowRoot!.activeElement).to.equal(launcher);
    expect(events).to.deep.equal(['kagent-open', 'kagent-close']);

    // The Close button in the header does the same.
    chat.open();
    await chat.updateComplete;
    (part(chat, 'close') as HTMLButtonElement).focus();
    await sendKeys({ press: 'Enter' });
    await waitFor(() => !chat.opened, 'Enter on Close to close the chat');
    await chat.updateComplete;
    expect(chat.shadowRoot!.activeElement).to.equal(launcher);
  });

  it('open(), close() and toggle() drive the panel and fire kagent-open / kagent-close once each', async () => {
    const chat = await mountChat(uniqueAgent('bubble-api'), 'answer', { mode: 'bubble' });
    const events: string[] = [];
    chat.addEventListener('kagent-open', (e) => events.push(e.type));
    chat.addEventListener('kagent-close', (e) => events.push(e.type));
    chat.toggle();
    await chat.updateComplete;
    chat.open(); // already open: no second event
    await chat.updateComplete;
    chat.close();
    await chat.updateComplete;
    chat.toggle();
    await chat.updateComplete;
    expect(events).to.deep.equal(['kagent-open', 'kagent-close', 'kagent-open']);
    expect(chat.opened).to.equal(true);
  });

  it('puts the launcher in the corner asked for, mirrored on a right-to-left page', async () => {
    const chat = await mountChat(uniqueAgent('corner'), 'answer', { mode: 'bubble', position: 'top-start' });
    let spot = box(part(chat, 'launcher')!);
    expect(Math.round(spot.left)).to.equal(20);
    expect(Math.round(spot.top)).to.equal(20);
    document.documentElement.dir = 'rtl';
    await sleep(20);
    spot = box(part(chat, 'launcher')!);
    expect(Math.round(innerWidth - spot.right)).to.equal(20);
    chat.position = 'bottom-left';
    await chat.updateComplete;
    spot = box(part(chat, 'launcher')!);
    expect(Math.round(spot.left)).to.equal(20);
    expect(Math.round(innerHeight - spot.bottom)).to.equal(20);
  });

  it('on a small screen the open panel fills the visible viewport and keeps the question box in it', async () => {
    // Under the 480-pixel phone limit, and as narrow as every browser's window goes (WebKitGTK's MiniBrowser: about 450).
    const width = 460;
    await setWindowSize(width, 640);
    const chat = await mountChat(uniqueAgent('mobile'), 'answer', { mode: 'bubble' });
    chat.open();
    await chat.updateComplete;
    const panel = part(chat, 'base')!;
    await waitFor(() => Math.round(box(panel).height) === 640, 'the panel to fill the screen');
    expect(box(panel).width).to.equal(width);
    const layer = panel.parentElement!;
    expect(layer.style.getPropertyValue('--kagent-vv-height')).to.equal(`${visualViewport!.height}px`);
    // The launcher gives way to the panel's own Close button.
    expect(getComputedStyle(part(chat, 'launcher')!).display).to.equal('none');
    // The on-screen keyboard shrinks the visual viewport; the panel follows it so the input stays above.
    await setWindowSize(width, 360);
    await waitFor(() => Math.round(box(panel).height) === 360, 'the panel to follow the visual viewport');
    const input = box(part(chat, 'input')!);
    expect(input.bottom).to.be.at.most(visualViewport!.height);
    expect(input.top).to.be.at.least(0);
    chat.close();
    await chat.updateComplete;
    const launcher = box(part(chat, 'launcher')!);
    expect(Math.round(width - launcher.right)).to.equal(20);
    expect(Math.round(360 - launcher.bottom)).to.equal(20);
  });

  it('lays out right to left when the page or the element says dir="rtl"', async () => {
    const chat = await mountChat(uniqueAgent('rtl'), 'answer', { dir: 'rtl', lang: 'ar' });
    chat.strings = { send: 'إرسال' };
    chat.send('سؤال');
    await waitFor(() => part(chat, 'question'), 'the question');
    const question = box(part(chat, 'question')!);
    const frame = box(part(chat, 'base')!);
    // A visitor's message sits at the end of the line: the left, in right-to-left.
    expect(question.left - frame.left).to.be.below(30);
    expect(getComputedStyle(part(chat, 'input')!).direction).to.equal('rtl');
    // The Send button comes after the box in reading order: to its left.
    expect(box(part(chat, 'stop') ?? part(chat, 'send')!).right).to.be.at.most(box(part(chat, 'input')!).left);
  });

  it('the launcher takes the theme\'s accent: dark with theme="dark", light with theme="light"', async () => {
    const chat = await mountChat(uniqueAgent('launcher-theme'), 'answer', { mode: 'bubble', theme: 'dark' });
    const launcher = part(chat, 'launcher')!;
    const header = part(chat, 'header')!;
    // The accent as the chat's own parts resolve it (a link's colour is the accent), against the launcher's background.
    const accent = () => {
      const probe = document.createElement('a');
      header.append(probe);
      const colour = getComputedStyle(probe).color;
      probe.remove();
      return colour;
    };
    expect(getComputedStyle(launcher).colorScheme).to.equal('dark');
    expect(getComputedStyle(launcher).backgroundColor).to.equal(accent());
    expect(getComputedStyle(launcher).backgroundColor).to.equal('rgb(138, 180, 255)');
    chat.theme = 'light';
    await chat.updateComplete;
    expect(getComputedStyle(launcher).backgroundColor).to.equal('rgb(47, 91, 234)');
  });

  it('a browser without light-dark() still draws the chat: an opaque light panel, legible text, the accent (the feature hidden by renaming it in the chat\'s sheets)', async () => {
    const chat = await mountChat(uniqueAgent('no-light-dark'), 'answer');
    const root = chat.shadowRoot!;
    // What an older browser sees: light-dark() unknown, so every value using it invalid and @supports not (...) true.
    root.adoptedStyleSheets = root.adoptedStyleSheets.map((sheet) => {
      const hidden = new CSSStyleSheet();
      hidden.replaceSync([...sheet.cssRules].map((rule) => rule.cssText.replaceAll('light-dark(', 'no-light-dark(')).join('\n'));
      return hidden;
    });
    await chat.updateComplete;
    const base = getComputedStyle(part(chat, 'base')!);
    const send = getComputedStyle(part(chat, 'send')!);
    expect([base.backgroundColor, base.color, send.backgroundColor, send.color]).to.deep.equal(['rgb(255, 255, 255)', 'rgb(29, 35, 48)', 'rgb(47, 91, 234)', 'rgb(255, 255, 255)']);
  });
});
