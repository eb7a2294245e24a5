import { expect } from '@open-wc/testing';
import { executeServerCommand, sendKeys, sendMouse } from '@web/test-runner-commands';
import '../../src/widget/index.js';
import type { KagentChat } from '../../src/widget/index.js';
import { inChromium, setWindowSize } from './browser-window.js';
import { expectNoViolations, loadAxe } from './axe-helpers.js';
import { activePart, click, describeNode, expectChatUsable, expectInWindow, expectLauncherInCorner, expectUncovered, visible } from './host-helpers.js';
import { typeInto, waitForFocus } from './keyboard.js';
import { agentLog, lastAnswer, part, parts, settled, uniqueAgent, waitFor } from './widget-helpers.js';

// The hostile-host suite: <kagent-chat> on pages that do what real sites do
// to elements they did not write. Each page condition is tried in both modes
// and checked by geometry (where things are, and that nothing covers them:
// elementFromPoint at their centres) and by use, with real clicks and keys.

interface HostPage {
  name: string;
  /** The page's stylesheet. */
  css: string;
  /** A fixed bar at the bottom of the window at z-index 2147483647. */
  banner?: boolean;
  /** How tall the inline chat is: its box's height (default), or what the page gives the element. */
  inlineHeight?: number;
}

const PAGES: HostPage[] = [
  { name: 'the demo rule: kagent-chat { display: block; height: 600px }', css: 'kagent-chat { display: block; height: 600px; }', inlineHeight: 600 },
  { name: 'kagent-chat { display: block } alone', css: 'kagent-chat { display: block; }' },
  { name: 'contain on the element and its ancestor', css: '.host-wrap { contain: strict; height: 640px; } kagent-chat { contain: content; }' },
  {
    name: 'transform, filter and will-change on ancestors and the element',
    css: '.host-wrap { transform: translateX(24px); } .host-box { filter: drop-shadow(0 0 2px rgb(0 0 0 / 0.3)); } kagent-chat { will-change: transform; }',
  },
  {
    name: 'overflow: hidden and position on ancestors',
    css: '.host-wrap { position: relative; overflow: hidden; height: 640px; } .host-box { position: absolute; top: 10px; left: 10px; overflow: hidden; } kagent-chat { position: relative; z-index: 0; }',
  },
  {
    name: 'page elements at z-index 2147483647',
    css: '.host-banner { position: fixed; left: 0; right: 0; bottom: 0; height: 160px; z-index: 2147483647; background: #222; color: #fff; } .host-box { position: relative; z-index: 2147483647; }',
    banner: true,
  },
  { name: 'a * { all: revert } reset', css: '*, *::before, *::after { all: revert; }' },
  { name: 'html { font-size: 62.5% } and a font on the element', css: 'html { font-size: 62.5%; } kagent-chat { font: italic 1rem/1 serif; letter-spacing: 3px; text-transform: uppercase; }' },
];
// (Without the first one's height: a 600-pixel element in a 450-pixel box that clips is the page's own doing.)
// Its inline chat is its least height: the reset takes the element's own height: 100% away, and the page
// then makes the element a block of no set height.
PAGES.push({ name: 'all of these at once', css: PAGES.slice(1).map((page) => page.css).join('\n'), banner: true, inlineHeight: 320 });

const ROOT = 'host-test-root';

/** Builds the page: a tall block first (the element starts below the fold), then wrapper, box and chat. */
async function hostPage(page: HostPage, attributes: Record<string, string>): Promise<KagentChat> {
  const style = document.createElement('style');
  style.className = ROOT;
  style.textContent = page.css;
  document.head.append(style);
  const root = document.createElement('div');
  root.className = ROOT;
  const spacer = document.createElement('div');
  spacer.style.height = '1500px';
  spacer.textContent = 'Page content';
  const wrap = document.createElement('div');
  wrap.className = 'host-wrap';
  const box = document.createElement('div');
  box.className = 'host-box';
  box.style.width = 'min(500px, 100%)';
  box.style.height = '450px';
  const chat = document.createElement('kagent-chat');
  for (const [name, value] of Object.entries(attributes)) chat.setAttribute(name, value);
  box.append(chat);
  wrap.append(box);
  root.append(spacer, wrap, document.createElement('br'));
  root.lastElementChild!.after(Object.assign(document.createElement('div'), { style: 'height: 600px' }));
  if (page.banner) root.append(Object.assign(document.createElement('div'), { className: 'host-banner', textContent: 'We use cookies' }));
  document.body.append(root);
  await chat.updateComplete;
  return chat;
}

function clearPage(): void {
  for (const node of document.querySelectorAll(`.${ROOT}, kagent-chat, iframe, meta[name="viewport"]`)) node.remove();
  scrollTo(0, 0);
}

/** Types a question in the box (clicked for real), sends it with Enter, and reads the streamed answer. */
async function askByHand(chat: KagentChat, question: string): Promise<void> {
  const input = part(chat, 'input') as HTMLTextAreaElement;
  await click(input);
  await typeInto(input, question);
  await sendKeys({ press: 'Enter' });
  await waitFor(() => part(chat, 'question')?.textContent?.includes(question), 'the question in the transcript');
  await settled(chat);
  expect(lastAnswer(chat)!.textContent).to.contain('Reset your password from Settings');
  expect(parts(chat, 'source')).to.have.length(2);
  expectUncovered(chat, lastAnswer(chat)!, 'the answer', part(chat, 'transcript')!);
  // Focus stayed where the visitor left it.
  expect(activePart(chat)).to.equal('input');
}

/**
 * axe's rules on the chat as the host page leaves it, in Chromium: they read the DOM, its ARIA and computed colours,
 * which the three engines give the chat's own styles alike, so running them in each browser tested one thing three
 * times (an eighth of this file's time in WebKit). Geometry, hit testing, focus and computed style, where the
 * engines differ, are checked in every browser by the same tests.
 */
const checkAxe = (chat: KagentChat, state: string) => (inChromium ? expectNoViolations(chat, state) : undefined);

describe('<kagent-chat> on hostile host pages', () => {
  before(async () => {
    if (inChromium) await loadAxe();
  });
  beforeEach(async () => {
    localStorage.clear();
    clearPage();
    await setWindowSize(1000, 700);
  });
  afterEach(async () => {
    clearPage();
    if (inChromium) await executeServerCommand('emulate-device', { reset: true });
    await setWindowSize(1000, 700);
  });

  for (const page of PAGES) {
    describe(page.name, () => {
      it('bubble: launcher in its corner above everything, the panel in the window, a streamed answer, Escape', async () => {
        const agent = uniqueAgent('host-bubble');
        const chat = await hostPage(page, { mode: 'bubble', 'agent-id': agent, endpoint: '/scripted/widget/answer' });
        // The host takes no room on the page, whatever the page's CSS says.
        expect(chat.getBoundingClientRect().height).to.equal(0);
        expectLauncherInCorner(chat);
        await checkAxe(chat, 'closed');

        await click(part(chat, 'launcher')!);
        await waitFor(() => chat.opened, 'the click to open the chat');
        // Focus went to the question box without scrolling the page to where the element sits.
        await waitForFocus(part(chat, 'input')!);
        expect(scrollY).to.equal(0);
        expectChatUsable(chat);

        await askByHand(chat, 'How do I reset my password?');
        expectChatUsable(chat);
        await checkAxe(chat, 'open and answered');
        expect((await agentLog(agent)).posts).to.equal(1);

        await sendKeys({ press: 'Escape' });
        await waitFor(() => !chat.opened, 'Escape to close the chat');
        await chat.updateComplete;
        expect(getComputedStyle(part(chat, 'base')!).display).to.equal('none');
        expect(activePart(chat)).to.equal('launcher');
        expect(scrollY).to.equal(0);
        expectLauncherInCorner(chat);
      });

      it('inline: fills its box, in view, a streamed answer', async () => {
        // Tall enough that a 600-pixel chat fits above the page's 160-pixel banner.
        await setWindowSize(1000, 800);
        const chat = await hostPage(page, { 'agent-id': uniqueAgent('host-inline'), endpoint: '/scripted/widget/answer' });
        part(chat, 'base')!.scrollIntoView({ block: 'start' });
        const base = part(chat, 'base')!.getBoundingClientRect();
        const box = chat.parentElement!.getBoundingClientRect();
        // The page chose the box (or, with a height on the element, the element's own height).
        expect(Math.round(base.width)).to.equal(Math.round(box.width));
        expect(Math.round(base.height)).to.equal(page.inlineHeight ?? Math.round(box.height));
        expectChatUsable(chat);
        await askByHand(chat, 'How do I reset my password?');
        await checkAxe(chat, 'inline, answered');
        // Escape means nothing to an inline chat.
        await sendKeys({ press: 'Escape' });
        expect(activePart(chat)).to.equal('input');
      });
    });
  }

  // A phone's screen, touch and zoomed-out layout are the DevTools protocol's device emulation: Chromium only.
  for (const meta of [false, true]) {
    (inChromium ? it : it.skip)(`a 375x667 phone ${meta ? 'with' : 'without'} <meta name="viewport">: launcher in the screen's corner, the open chat fills the screen, its question box stays above the keyboard`, async () => {
      if (meta) document.head.append(Object.assign(document.createElement('meta'), { name: 'viewport', content: 'width=device-width, initial-scale=1' }));
      await executeServerCommand('emulate-device', { width: 375, height: 667, mobile: true });
      await waitFor(() => Math.round(visualViewport!.width * visualViewport!.scale) === 375, 'the phone screen');
      const agent = uniqueAgent('host-phone');
      const chat = await hostPage(PAGES[0]!, { mode: 'bubble', 'agent-id': agent, endpoint: '/scripted/widget/answer' });
      // Without the meta tag the page is laid out 980 pixels wide and drawn zoomed out.
      await waitFor(() => (meta ? innerWidth === 375 : innerWidth > 900), `a layout ${meta ? 'as wide as the screen' : 'about 980 pixels wide'} (is ${innerWidth})`);
      expectLauncherInCorner(chat);

      await click(part(chat, 'launcher')!);
      await chat.updateComplete;
      expect(chat.opened).to.equal(true);
      expect(scrollY).to.equal(0);
      const view = visible();
      const panel = part(chat, 'base')!.getBoundingClientRect();
      // The whole screen, at the screen's own scale.
      expect([panel.left, panel.top, panel.right, panel.bottom].map((n) => Math.round(n * view.scale))).to.deep.equal(
        [view.left, view.top, view.right, view.bottom].map((n) => Math.round(n * view.scale)),
      );
      expect(getComputedStyle(part(chat, 'launcher')!).display).to.equal('none');
      expectChatUsable(chat);
      expect(Math.round(part(chat, 'input')!.getBoundingClientRect().height * view.scale)).to.be.at.least(38);

      // The on-screen keyboard takes the bottom of the screen: the visual viewport shrinks, the chat follows.
      await executeServerCommand('emulate-device', { width: 375, height: 360, mobile: true });
      await waitFor(() => Math.round(visualViewport!.height * visualViewport!.scale) === 360, 'the keyboard');
      await waitFor(() => Math.round(part(chat, 'base')!.getBoundingClientRect().height * visualViewport!.scale) === 360, 'the chat to fit above the keyboard');
      expectChatUsable(chat);
      await askByHand(chat, 'How do I reset my password?');
      expectInWindow(part(chat, 'input')!, 'the question box above the keyboard');
      await checkAxe(chat, 'open on a phone');
      await sendKeys({ press: 'Escape' });
      await chat.updateComplete;
      expectLauncherInCorner(chat);
    });
  }

  it('two chats on one page: an inline one and two bubbles in opposite corners, each with its own conversation', async () => {
    const inlineAgent = uniqueAgent('host-two-inline');
    const inline = await hostPage(PAGES[0]!, { 'agent-id': inlineAgent, endpoint: '/scripted/widget/answer' });
    const end = document.createElement('kagent-chat');
    const start = document.createElement('kagent-chat');
    for (const [chat, position] of [[end, 'bottom-end'], [start, 'bottom-start']] as const) {
      chat.setAttribute('mode', 'bubble');
      chat.setAttribute('position', position);
      chat.setAttribute('agent-id', uniqueAgent(`host-two-${position}`));
      chat.setAttribute('endpoint', '/scripted/widget/answer');
      document.querySelector(`div.${ROOT}`)!.append(chat);
      await chat.updateComplete;
    }
    expectLauncherInCorner(end, 'bottom-right');
    expectLauncherInCorner(start, 'bottom-left');
    // One after the other, as a visitor would: the second is clicked once the first is open.
    // What happened, for the message if a bubble does not open: its launcher's clicks, opens and closes.
    const trace: string[] = [];
    for (const [chat, name] of [[end, 'right'], [start, 'left']] as const) {
      part(chat, 'launcher')!.addEventListener('click', (e) => trace.push(`${name} launcher clicked at (${e.clientX}, ${e.clientY}), opened=${chat.opened}`));
      chat.addEventListener('kagent-open', () => trace.push(`${name} opened`));
      chat.addEventListener('kagent-close', () => trace.push(`${name} closed`));
    }
    document.addEventListener('click', (e) => trace.push(`document click on ${describeNode(e.composedPath()[0] as Element)} at (${e.clientX}, ${e.clientY})`), true);
    const launcherAt = (chat: KagentChat) => {
      const r = part(chat, 'launcher')!.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      return `launcher centre (${Math.round(x)}, ${Math.round(y)}) hits ${describeNode(chat.shadowRoot!.elementFromPoint(x, y))}; view ${JSON.stringify(visible())}`;
    };
    trace.push(`before: ${launcherAt(end)}`);
    await click(part(end, 'launcher')!);
    await waitFor(() => end.opened, 'the right-hand bubble to open').catch((error: Error) => {
      throw new Error(`${error.message}; ${launcherAt(end)}; ${trace.join('; ')}`);
    });
    await end.updateComplete;
    trace.push(`before: ${launcherAt(start)}`);
    await click(part(start, 'launcher')!);
    await waitFor(() => start.opened, 'the left-hand bubble to open').catch((error: Error) => {
      throw new Error(`${error.message}; ${launcherAt(start)}; ${trace.join('; ')}`);
    });
    await start.updateComplete;
    expect([end.opened, start.opened], trace.join("; ")).to.deep.equal([true, true]);
    expectChatUsable(end);
    expectChatUsable(start);
    // The one clicked last has the focus.
    expect(activePart(start)).to.equal('input');
    await askByHand(start, 'Left corner?');
    await askByHand(end, 'Right corner?');
    // Closed, so that they do not cover the inline chat.
    end.close();
    start.close();
    part(inline, 'base')!.scrollIntoView({ block: 'start' });
    await askByHand(inline, 'Inline?');
    expect(part(end, 'question')!.textContent).to.contain('Right corner?');
    expect(parts(start, 'question')).to.have.length(1);
    expect(part(start, 'question')!.textContent).to.contain('Left corner?');
    expect((await agentLog(inlineAgent)).posts).to.equal(1);
  });

  it('inside an iframe: the launcher in the frame\'s corner, the panel inside the frame, a streamed answer', async () => {
    const frame = document.createElement('iframe');
    frame.style.cssText = 'width: 700px; height: 600px; border: 0; display: block';
    const agent = uniqueAgent('host-frame');
    frame.srcdoc = `<!doctype html><html lang="en"><title>Framed</title>
      <style>kagent-chat { display: block; height: 600px } body { margin: 0 } .tall { height: 1400px }</style>
      <script type="module" src="/dist/kagent-chat.js"></script>
      <div class="tall">A framed page</div>
      <kagent-chat mode="bubble" agent-id="${agent}" endpoint="/scripted/widget/answer"></kagent-chat>`;
    document.body.append(frame);
    await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    const inner = frame.contentWindow! as Window & typeof globalThis;
    const chat = await waitFor(() => inner.customElements.get('kagent-chat') && (inner.document.querySelector('kagent-chat') as KagentChat | null), 'the framed chat');
    await chat.updateComplete;
    const launcher = part(chat, 'launcher')!.getBoundingClientRect();
    // From the frame's visible area: clientWidth leaves out a scrollbar that takes room (Firefox's, for this tall page).
    const framed = inner.document.documentElement;
    expect([Math.round(framed.clientWidth - launcher.right), Math.round(framed.clientHeight - launcher.bottom)]).to.deep.equal([20, 20]);
    const frameBox = frame.getBoundingClientRect();
    const at = (r: DOMRect) => [Math.round(frameBox.left + r.left + r.width / 2), Math.round(frameBox.top + r.top + r.height / 2)] as [number, number];
    await sendMouse({ type: 'click', position: at(launcher) });
    await waitFor(() => chat.opened, 'the framed chat to open');
    await chat.updateComplete;
    expect(inner.scrollY).to.equal(0);
    const panel = part(chat, 'base')!.getBoundingClientRect();
    expect(panel.top >= 0 && panel.left >= 0 && panel.right <= inner.innerWidth && panel.bottom <= inner.innerHeight, JSON.stringify(panel.toJSON())).to.equal(true);
    const input = part(chat, 'input')!;
    const hit = chat.shadowRoot!.elementFromPoint(...at(input.getBoundingClientRect()).map((n, i) => n - (i ? frameBox.top : frameBox.left)) as [number, number]);
    expect(hit?.getAttribute('part')).to.equal('input');
    await typeInto(input as HTMLTextAreaElement, 'Framed question');
    await sendKeys({ press: 'Enter' });
    await waitFor(() => lastAnswer(chat)?.textContent?.includes('Invoices are monthly'), 'the framed answer');
    await sendKeys({ press: 'Escape' });
    await waitFor(() => !chat.opened, 'Escape to close the framed chat');
  });

  it('created, removed and added again (also moved, and switched between modes): the bubble comes back above the page', async () => {
    const chat = await hostPage(PAGES[1]!, { mode: 'bubble', 'agent-id': uniqueAgent('host-readd'), endpoint: '/scripted/widget/answer' });
    chat.open();
    await chat.updateComplete;
    chat.remove();
    expect(part(chat, 'launcher')!.parentElement!.matches(':popover-open')).to.equal(false);
    document.querySelector('.host-box')!.append(chat);
    await chat.updateComplete;
    await waitFor(() => part(chat, 'launcher')!.parentElement!.matches(':popover-open'), 'the layer to be shown again');
    expectLauncherInCorner(chat);
    expect(chat.opened).to.equal(true);
    expectChatUsable(chat);
    // Moved to another parent in one step.
    document.querySelector(`div.${ROOT}`)!.prepend(chat);
    await chat.updateComplete;
    await waitFor(() => part(chat, 'launcher')!.parentElement!.matches(':popover-open'), 'the layer to be shown after the move');
    expectChatUsable(chat);
    await askByHand(chat, 'Still there?');
    // To inline and back.
    chat.mode = 'inline';
    await chat.updateComplete;
    expect(part(chat, 'launcher')).to.equal(null);
    chat.mode = 'bubble';
    await chat.updateComplete;
    await waitFor(() => part(chat, 'launcher')?.parentElement!.matches(':popover-open'), 'the layer after switching back');
    expectLauncherInCorner(chat);
    expectChatUsable(chat);
  });
});
