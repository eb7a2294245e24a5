import { expect } from '@open-wc/testing';
import type { KagentChat } from '../../src/widget/index.js';
import { STRICT_CSP } from '../support/csp-page.js';
import { lastAnswer, part, parts, settled, uniqueAgent, waitFor } from './widget-helpers.js';

// The script-tag build on a page served with a strict Content-Security-Policy
// (no 'unsafe-inline', no nonce) that enforces Trusted Types: it asks, streams,
// renders markdown with citations and shows failures, and the page sees no
// securitypolicyviolation event.

type StrictWindow = Window & typeof globalThis & { violations: string[] };

async function strictPage(): Promise<{ frame: HTMLIFrameElement; win: StrictWindow }> {
  const frame = document.createElement('iframe');
  frame.style.cssText = 'width: 900px; height: 700px; border: 0';
  // Run with the browser's own sanitizer hidden (web-test-runner's dompurify group), the strict page hides it too.
  const native = 'setHTML' in Element.prototype;
  frame.src = `/scripted/csp/page?agent=${uniqueAgent('csp')}${native ? '' : '&sanitizer=dompurify'}`;
  document.body.append(frame);
  await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  const win = frame.contentWindow as StrictWindow;
  await waitFor(() => win.customElements?.get('kagent-chat'), 'the chat to be defined on the strict page');
  return { frame, win };
}

describe('<kagent-chat> on a page with a strict Content-Security-Policy and Trusted Types', () => {
  afterEach(() => {
    for (const frame of document.querySelectorAll('iframe')) frame.remove();
  });

  it('the page really enforces the policy, and the probe counts what it blocks', async () => {
    const { win } = await strictPage();
    const response = await fetch(win.location.href);
    expect(response.headers.get('content-security-policy')).to.equal(STRICT_CSP);
    const probe = win.document.createElement('div');
    // A string into an HTML sink: refused by Trusted Types (Chromium and WebKit name TrustedHTML, Firefox the violated sink).
    expect(() => {
      probe.innerHTML = '<b>bold</b>';
    }).to.throw(/TrustedHTML|Sink type mismatch/);
    // An inline style attribute: refused by style-src.
    probe.setAttribute('style', 'color: red');
    await waitFor(() => win.violations.length >= 2, 'the two violations to be reported');
    expect(win.violations.some((v) => v.startsWith('require-trusted-types-for'))).to.equal(true);
    expect(win.violations.some((v) => v.startsWith('style-src'))).to.equal(true);
  });

  it('asks, streams a cited markdown answer, shows a failure, opens the bubble: zero violations', async () => {
    const { win } = await strictPage();
    const inline = win.document.getElementById('inline') as KagentChat;
    await inline.updateComplete;
    // A welcome with markup is rendered once the chat's second part has arrived (under this same policy).
    await waitFor(() => part(inline, 'welcome')?.querySelector('strong'), 'the welcome rendered as markdown');
    expect(part(inline, 'welcome')!.querySelector('strong')?.textContent).to.equal('strict');
    // Its styles apply (adopted style sheets need no 'unsafe-inline'): the accent-coloured suggestion button is styled.
    expect(getComputedStyle(part(inline, 'send')!).backgroundColor).to.equal('rgb(47, 91, 234)');

    (part(inline, 'suggestion') as HTMLButtonElement).click();
    await waitFor(() => lastAnswer(inline)?.textContent?.includes('Reset your password'), 'the streamed answer');
    await settled(inline);
    const answer = lastAnswer(inline)!;
    expect(answer.querySelector('strong')?.textContent).to.equal('Settings');
    expect(answer.querySelectorAll('.citation').length).to.be.at.least(2);
    expect(parts(inline, 'source')).to.have.length(2);
    // The path under test: DOMPurify (in the second part with DOMPurify inside) only on a page without the browser's own sanitizer.
    const domPurifyFetched = win.performance.getEntriesByType('resource').some((entry) => /\/kagent-chat-answers-dompurify-[\w-]+\.js$/.test(entry.name));
    expect(domPurifyFetched).to.equal(!('setHTML' in win.Element.prototype));

    inline.endpoint = '/scripted/widget/status-500';
    await inline.updateComplete;
    inline.send('And now fail');
    await settled(inline);
    expect(part(inline, 'failure')!.dataset.kind).to.equal('server');

    const bubble = win.document.getElementById('bubble') as KagentChat;
    bubble.open();
    await bubble.updateComplete;
    const panel = part(bubble, 'base')!.getBoundingClientRect();
    expect(panel.width).to.be.above(300);
    expect(panel.right).to.be.at.most(win.innerWidth);
    bubble.send('From the bubble');
    await settled(bubble);
    expect(lastAnswer(bubble)!.textContent).to.contain('Invoices are monthly');

    expect(win.violations).to.deep.equal([]);
  });
});
