// Geometry and focus checks shared by the host-page suites (not a test file itself):
// where the chat's parts are, that nothing covers them, real clicks at their centres.
import { expect } from '@open-wc/testing';
import { sendMouse } from '@web/test-runner-commands';
import type { KagentChat } from '../../src/widget/index.js';
import { part } from './widget-helpers.js';

/** The part of the page the visitor sees, in the page's CSS pixels (and screen pixels per CSS pixel). */
export function visible() {
  const vv = visualViewport!;
  return { left: vv.offsetLeft, top: vv.offsetTop, right: vv.offsetLeft + vv.width, bottom: vv.offsetTop + vv.height, scale: vv.scale };
}

export const describeNode = (node: Element | null) => (node ? `<${node.localName}${node.getAttribute('part') ? ` part="${node.getAttribute('part')}"` : ''}${node.className ? ` class="${node.className}"` : ''}>` : 'nothing');

/** The element is wholly inside the visible part of the window. */
export function expectInWindow(element: Element, what: string): void {
  const r = element.getBoundingClientRect();
  const view = visible();
  const inside = r.width > 0 && r.height > 0 && r.left >= view.left - 1 && r.top >= view.top - 1 && r.right <= view.right + 1 && r.bottom <= view.bottom + 1;
  expect(inside, `${what} at ${JSON.stringify(r.toJSON())} is inside ${JSON.stringify(view)}`).to.equal(true);
}

/** Nothing covers the element: hit testing at its centre (of its part inside `within`) finds it. */
export function expectUncovered(chat: KagentChat, element: Element, what: string, within?: Element): void {
  const r = element.getBoundingClientRect();
  const clip = within?.getBoundingClientRect() ?? r;
  const x = (Math.max(r.left, clip.left) + Math.min(r.right, clip.right)) / 2;
  const y = (Math.max(r.top, clip.top) + Math.min(r.bottom, clip.bottom)) / 2;
  const hit = chat.getRootNode() === document ? chat.shadowRoot!.elementFromPoint(x, y) : null;
  expect(hit !== null && (hit === element || element.contains(hit)), `${what}: the point (${Math.round(x)}, ${Math.round(y)}) hits ${describeNode(hit)}`).to.equal(true);
}

/**
 * The element's box once it is the same in two successive frames. A page's own opening transition can still be moving
 * an element after the page says it is shown (Bootstrap's modal fires `shown` on a timer of its transition's length,
 * which a loaded machine outruns): a click aimed at where it was lands on whatever moved in under that point. So a
 * click waits, as a person's eye does (and Playwright's "stable" check), until the target stops moving.
 */
export async function stableBox(element: Element, timeout = 10_000): Promise<DOMRect> {
  const started = performance.now();
  let last = element.getBoundingClientRect();
  for (;;) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const box = element.getBoundingClientRect();
    if (box.x === last.x && box.y === last.y && box.width === last.width && box.height === last.height) return box;
    if (performance.now() - started > timeout) throw new Error(`${describeNode(element)} kept moving for ${timeout} ms (${JSON.stringify(last.toJSON())}, then ${JSON.stringify(box.toJSON())})`);
    last = box;
  }
}

/** A real click (the browser's own hit testing) at the element's centre, once it stands still. */
export async function click(element: Element): Promise<void> {
  const r = await stableBox(element);
  const view = visible();
  // The mouse moves in CSS pixels from the corner of the visible part of the window.
  const x = Math.round(r.left + r.width / 2 - view.left);
  const y = Math.round(r.top + r.height / 2 - view.top);
  await sendMouse({ type: 'click', position: [x, y] });
}

export const activePart = (chat: KagentChat) => chat.shadowRoot!.activeElement?.getAttribute('part') ?? `outside: ${describeNode(document.activeElement)}`;

/** Checks the launcher sits `edge` screen pixels from the bottom-end corner of what the visitor sees, at its natural size. */
export function expectLauncherInCorner(chat: KagentChat, corner: 'bottom-right' | 'bottom-left' = 'bottom-right'): void {
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
export function expectChatUsable(chat: KagentChat): void {
  expectInWindow(part(chat, 'base')!, 'the chat');
  for (const name of ['header', 'transcript', 'input']) {
    expectInWindow(part(chat, name)!, name);
    expectUncovered(chat, part(chat, name)!, name);
  }
  // Its own sizes, whatever the page's root font size.
  expect(getComputedStyle(part(chat, 'input')!).fontSize).to.equal('15px');
  expect(getComputedStyle(part(chat, 'heading')!).fontStyle).to.equal('normal');
}

