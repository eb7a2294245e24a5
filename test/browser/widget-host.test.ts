import { expect } from '@open-wc/testing';
import { executeServerCommand, sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import '../../src/widget/index.js';
import type { KagentChat } from '../../src/widget/index.js';
import { expectNoViolations, loadAxe } from './axe-helpers.js';
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
  box.style.width = '500px';
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

/** The part of the page the visitor sees, in the page's CSS pixels (and screen pixels per CSS pixel). */
function visible() {
  const vv = visualViewport!;
  return { left: vv.offsetLeft, top: vv.offsetTop, right: vv.offsetLeft + vv.width, bottom: vv.offsetTop + vv.height, scale: vv.scale };
}

const describeNode = (node: Element | null) => (node ? `<${node.localName}${node.getAttribute('part') ? ` part="${node.getAttribute('part')}"` : ''}${node.className ? ` class="${node.className}"` : ''}>` : 'nothing');

/** The element is wholly inside the visible part of the window. */
function expectInWindow(element: Element, what: string): void {
  const r = element.getBoundingClientRect();
  const view = visible();
  const inside = r.width > 0 && r.height > 0 && r.left >= view.left - 1 && r.top >= view.top - 1 && r.right <= view.right + 1 && r.bottom <= view.bottom + 1;
  expect(inside, `${what} at ${JSON.stringify(r.toJSON())} is inside ${JSON.stringify(view)}`).to.equal(true);
}

/** Nothing covers the element: hit testing at its centre (of its part inside `within`) finds it. */
function expectUncovered(chat: KagentChat, element: Element, what: string, within?: Element): void {
  const r = element.getBoundingClientRect();
  const clip = within?.getBoundingClientRect() ?? r;
  const x = (Math.max(r.left, clip.left) + Math.min(r.right, clip.right)) / 2;
  const y = (Math.max(r.top, clip.top) + Math.min(r.bottom, clip.bottom)) / 2;
  const hit = chat.getRootNode() === document ? chat.shadowRoot!.elementFromPoint(x, y) : null;
  expect(hit !== null && (hit === element || element.contains(hit)), `${what}: the point (${Math.round(x)}, ${Math.round(y)}) hits ${describeNode(hit)}`).to.equal(true);
}

/** A real click (the browser's own hit testing) at the element's centre. */
async function click(element: Element): Promise<void> {
  const r = element.getBoundingClientRect();
  const view = visible();
  // The mouse moves in screen pixels of the visible part of the window.
  const x = Math.round((r.left + r.width / 2 - view.left) * view.scale);
  const y = Math.round((r.top + r.height / 2 - view.top) * view.scale);
  await sendMouse({ type: 'click', position: [x, y] });
}

const activePart = (chat: KagentChat) => chat.shadowRoot!.activeElement?.getAttribute('part') ?? `outside: ${describeNode(document.activeElement)}`;

/** Checks the launcher sits `edge` screen pixels from the bottom-end corner of what the visitor sees, at its natural size. */
function expectLauncherInCorner(chat: KagentChat, corner: 'bottom-right' | 'bottom-left' = 'bottom-right'): void {
  const launcher = part(chat, 'launcher')!;
  const r = launcher.getBoundingClientRect();
  const view = visible();
  const gapX = corner === 'bottom-right' ? (view.right - r.right) * view.scale : (r.left - view.left) * view.scale;
  const gapBottom = (view.bottom - r.bottom) * view.scale;
  expect([Math.round(gapX), Math.round(gapBottom)], `launcher ${JSON.stringify(r.toJSON())} in ${JSON.stringify(view)}`).to.deep.equal([20, 20]);
  expect(Math.round(r.width * view.scale), 'launcher size on screen').to.equal(56);
  expectUncovered(chat, launcher, 'the launcher');
}

/** Header, transcript and question box of the open chat: inside the window and not covered. */
function expectChatUsable(chat: KagentChat): void {
  expectInWindow(part(chat, 'base')!, 'the chat');
  for (const name of ['header', 'transcript', 'input']) {
    expectInWindow(part(chat, name)!, name);
    expectUncovered(chat, part(chat, name)!, name);
  }
  // Its own sizes, whatever the page's root font size.
  expect(getComputedStyle(part(chat, 'input')!).fontSize).to.equal('15px');
  expect(getComputedStyle(part(chat, 'heading')!).fontStyle).to.equal('normal');
}

/** Types a question in the box (clicked for real), sends it with Enter, and reads the streamed answer. */
async function askByHand(chat: KagentChat, question: string): Promise<void> {
  await click(part(chat, 'input')!);
  expect(activePart(chat)).to.equal('input');
  await sendKeys({ type: question });
  await sendKeys({ press: 'Enter' });
  await waitFor(() => part(chat, 'question')?.textContent?.includes(question), 'the question in the transcript');
  await settled(chat);
  expect(lastAnswer(chat)!.textContent).to.contain('Reset your password from Settings');
  expect(parts(chat, 'source')).to.have.length(2);
  expectUncovered(chat, lastAnswer(chat)!, 'the answer', part(chat, 'transcript')!);
  // Focus stayed where the visitor left it.
  expect(activePart(chat)).to.equal('input');
}

describe('<kagent-chat> on hostile host pages', () => {
  before(loadAxe);
  beforeEach(async () => {
    localStorage.clear();
    clearPage();
    await setViewport({ width: 1000, height: 700 });
  });
  afterEach(async () => {
    clearPage();
    await executeServerCommand('emulate-device', { width: 1000, height: 700, mobile: false });
    await setViewport({ width: 1000, height: 700 });
  });

  for (const page of PAGES) {
    describe(page.name, () => {
      it('bubble: launcher in its corner above everything, the panel in the window, a streamed answer, Escape', async () => {
        const agent = uniqueAgent('host-bubble');
        const chat = await hostPage(page, { mode: 'bubble', 'agent-id': agent, endpoint: '/scripted/widget/answer' });
        // The host takes no room on the page, whatever the page's CSS says.
        expect(chat.getBoundingClientRect().height).to.equal(0);
        expectLauncherInCorner(chat);
        await expectNoViolations(chat, 'closed');

        await click(part(chat, 'launcher')!);
        await chat.updateComplete;
        expect(chat.opened).to.equal(true);
        // Focus went to the question box without scrolling the page to where the element sits.
        expect(scrollY).to.equal(0);
        expect(activePart(chat)).to.equal('input');
        expectChatUsable(chat);

        await askByHand(chat, 'How do I reset my password?');
        expectChatUsable(chat);
        await expectNoViolations(chat, 'open and answered');
        expect((await agentLog(agent)).posts).to.equal(1);

        await sendKeys({ press: 'Escape' });
        await chat.updateComplete;
        expect(chat.opened).to.equal(false);
        expect(getComputedStyle(part(chat, 'base')!).display).to.equal('none');
        expect(activePart(chat)).to.equal('launcher');
        expect(scrollY).to.equal(0);
        expectLauncherInCorner(chat);
      });

      it('inline: fills its box, in view, a streamed answer', async () => {
        // Tall enough that a 600-pixel chat fits above the page's 160-pixel banner.
        await setViewport({ width: 1000, height: 800 });
        const chat = await hostPage(page, { 'agent-id': uniqueAgent('host-inline'), endpoint: '/scripted/widget/answer' });
        part(chat, 'base')!.scrollIntoView({ block: 'start' });
        const base = part(chat, 'base')!.getBoundingClientRect();
        const box = chat.parentElement!.getBoundingClientRect();
        // The page chose the box (or, with a height on the element, the element's own height).
        expect(Math.round(base.width)).to.equal(Math.round(box.width));
        expect(Math.round(base.height)).to.equal(page.inlineHeight ?? Math.round(box.height));
        expectChatUsable(chat);
        await askByHand(chat, 'How do I reset my password?');
        await expectNoViolations(chat, 'inline, answered');
        // Escape means nothing to an inline chat.
        await sendKeys({ press: 'Escape' });
        expect(activePart(chat)).to.equal('input');
      });
    });
  }
});
