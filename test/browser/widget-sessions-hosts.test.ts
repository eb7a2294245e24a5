import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import type { KagentChat } from '../../src/widget/index.js';
import { STAND_IN_LABEL } from '../support/turnstile-script-stand-in.js';
import { mountSessionChat, routes, sessionLog, standIn, STAND_IN_TOKEN } from './session-helpers.js';
import { agentLog, answerText, ask, part, removeAllChats, settled, uniqueAgent, waitFor } from './widget-helpers.js';

// The human check (Cloudflare Turnstile, here its stand-in: test/support/turnstile-script-stand-in.ts) of a chat
// that sits inside another custom element's shadow root, open or closed, inline or as a bubble the visitor opens:
// Turnstile renders only in the document itself, so the check must stay there and still be drawn in the chat's
// panel, and the question go once, with the token.

/** A page's own element that keeps what it holds in a shadow root (`inside`: open, or closed and known only to it). */
class NestingHost extends HTMLElement {
  readonly inside: ShadowRoot;
  constructor(mode: ShadowRootMode) {
    super();
    this.inside = this.attachShadow({ mode });
  }
}
customElements.define(
  'hosts-open',
  class extends NestingHost {
    constructor() {
      super('open');
    }
  },
);
customElements.define(
  'hosts-closed',
  class extends NestingHost {
    constructor() {
      super('closed');
    }
  },
);

/** The stand-in's box to tick, wherever the chat put it (the chat's light DOM, or the page's body). */
const checkButton = (chat: KagentChat) =>
  [...chat.querySelectorAll('button'), ...document.body.querySelectorAll(':scope > [slot="kagent-human-check"] button')].find((button) => button.textContent === STAND_IN_LABEL) as HTMLButtonElement | undefined;

/** Whether `inner` lies within `outer`, give or take a pixel. */
const within = (inner: DOMRect, outer: DOMRect) => inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1 && inner.left >= outer.left - 1 && inner.right <= outer.right + 1;

/** The topmost element at the middle of `element`'s box: `element` itself (or a child) when nothing covers it. */
const seenAt = (element: Element) => {
  const { left, top, width, height } = element.getBoundingClientRect();
  return document.elementFromPoint(left + width / 2, top + height / 2);
};

describe('<kagent-chat> inside another element\'s shadow root, with the human check on at the proxy', () => {
  afterEach(async () => {
    removeAllChats();
    for (const host of document.querySelectorAll('hosts-open, hosts-closed')) host.remove();
    // A check still under way stops once its chat is gone (within a second): the next test's check is then the only one.
    await waitFor(() => !document.querySelector('[slot="kagent-human-check"]'), 'the checks of removed chats to go');
  });

  for (const where of ['open', 'closed', 'document'] as const) {
    for (const mode of ['inline', 'bubble'] as const) {
      if (where === 'document' && mode === 'inline') continue; // widget-sessions.test.ts: "a check that needs the visitor"
      const place = where === 'document' ? 'in the page itself' : `in a ${where} shadow root`;

      it(`${place}, ${mode === 'bubble' ? 'a closed bubble the visitor opens' : 'inline'}: the check drawn in the chat's panel, in the document where Turnstile renders, and the question sent once with its token`, async () => {
        const scope = uniqueAgent(`hosts-${where}-${mode}`);
        let into: ParentNode = document.body;
        if (where !== 'document') {
          const host = document.createElement(`hosts-${where}`) as NestingHost;
          document.body.append(host);
          into = host.inside;
        }
        const chat = await mountSessionChat('turnstileInteractive', scope, { into, attributes: mode === 'bubble' ? { mode: 'bubble' } : {} });
        if (mode === 'bubble') {
          // Idle time solves the challenge; the check comes with the session, which the visitor starts by opening the chat.
          (part(chat, 'launcher') as HTMLButtonElement).click();
          await chat.updateComplete;
        }
        await ask(chat, 'Do you need me?');
        const button = await waitFor(() => checkButton(chat), 'the check to tick');
        expect(standIn()!.renders.at(-1)!.inDocument, 'rendered in the document itself').to.equal(true);
        const panel = part(chat, 'base')!;
        const input = part(chat, 'input')!;
        // Where it is drawn, uncovered, within the chat's panel, above the question box (the panel makes room for it).
        const drawn = () => within(button.getBoundingClientRect(), panel.getBoundingClientRect()) && seenAt(button) === button && button.getBoundingClientRect().bottom <= input.getBoundingClientRect().top + 1;
        await waitFor(drawn, "the check drawn, uncovered, within the chat's panel and above the question box");
        expect(button.getBoundingClientRect().height, 'visible').to.be.greaterThan(0);
        expect(routes(await sessionLog(scope)), 'no session asked for before the check').to.deep.equal(['challenge 200']);
        button.click();
        await settled(chat, 30_000);
        expect(answerText(chat)).to.contain('Reset your password');
        const log = await sessionLog(scope);
        expect(routes(log)).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
        expect(log.requests[1]!.token).to.match(STAND_IN_TOKEN);
        expect((await agentLog(scope)).posts, 'the question reached the service once').to.equal(1);
        expect(checkButton(chat), 'the check leaves once done').to.equal(undefined);
      });
    }
  }
});
