import { expect } from '@open-wc/testing';
import { LitElement, html } from 'lit';
import { AnnouncerController } from '../../src/widget/element/announcer-controller.js';
import { AnswerEngineController } from '../../src/widget/element/answer-engine-controller.js';
import { loadAnswerEngine } from '../../src/widget/element/answer-engine-loader.js';
import { COPIED_MS, CopyFeedbackController } from '../../src/widget/element/copy-feedback-controller.js';
import { PinnedScrollController } from '../../src/widget/element/pinned-scroll-controller.js';
import { ENGLISH } from '../../src/widget/element/strings.js';
import { waitFor } from './widget-helpers.js';

// The element's behaviours, each a controller, on a small host of their own:
// what the chat does with them is tested through the chat in the other files.

/** A host with a scrolling box of `lines` lines, pinned to its end by the controller. */
class PinnedHost extends LitElement {
  static override properties = { lines: { attribute: false } };
  lines = 5;
  pinned = new PinnedScrollController(this, () => this.renderRoot.querySelector('.box'));
  override render() {
    return html`<div class="box" style="height: 100px; overflow: auto">${Array.from({ length: this.lines }, (_, i) => html`<p style="height: 30px; margin: 0">line ${i}</p>`)}</div>`;
  }
}
customElements.define('pinned-host', PinnedHost);

/** A host that announces and copies, as the chat does. */
class FeedbackHost extends LitElement {
  announcer = new AnnouncerController(this);
  copy = new CopyFeedbackController(this, () => this.announcer.announce('Copied'));
  override render() {
    return html`${this.announcer.render()}<button @click=${() => this.copy.copy('a', 'the answer')}>${this.copy.isCopied('a') ? 'Copied' : 'Copy'}</button>`;
  }
}
customElements.define('feedback-host', FeedbackHost);

/** A host whose second part loads as `loading` says (`interaction`: only when asked). */
class EngineHost extends LitElement {
  loading = 'interaction' as const;
  mode = 'inline' as const;
  opened = false;
  endpoint = '';
  strings = ENGLISH;
  engine = new AnswerEngineController(this);
  updates = 0;
  override updated() {
    this.updates++;
  }
}
customElements.define('engine-host', EngineHost);

async function mount<T extends LitElement>(tag: string): Promise<T> {
  const host = document.createElement(tag) as T;
  document.body.append(host);
  await host.updateComplete;
  return host;
}

/** Scrolls `box` to `top` and waits for the scroll event the browser fires for it. */
async function scrolled(box: HTMLElement, top: number): Promise<void> {
  const heard = new Promise((resolve) => box.addEventListener('scroll', resolve, { once: true }));
  box.scrollTop = top;
  await heard;
}

/** The host grown to `lines` lines and rendered. */
async function grown(host: PinnedHost, lines: number): Promise<HTMLElement> {
  host.lines = lines;
  await host.updateComplete;
  return host.renderRoot.querySelector<HTMLElement>('.box')!;
}

const atEnd = (box: HTMLElement) => box.scrollHeight - box.clientHeight;

describe('PinnedScrollController', () => {
  afterEach(() => document.querySelectorAll('pinned-host').forEach((host) => host.remove()));

  it('keeps the box at its end as it grows', async () => {
    const host = await mount<PinnedHost>('pinned-host');
    const box = host.renderRoot.querySelector<HTMLElement>('.box')!;
    expect(box.scrollTop).to.equal(atEnd(box));
    await grown(host, 20);
    expect(box.scrollTop).to.equal(atEnd(box));
  });

  it('leaves the box where the visitor scrolled up to, until they scroll back down to the end or it is pinned again', async () => {
    const host = await mount<PinnedHost>('pinned-host');
    const box = await grown(host, 20);
    await scrolled(box, 0);
    await grown(host, 30);
    host.pinned.follow();
    expect(box.scrollTop, 'not pulled down while reading').to.equal(0);

    // Near the end (within 40 px) counts as the end.
    await scrolled(box, atEnd(box) - 10);
    await grown(host, 40);
    expect(box.scrollTop).to.equal(atEnd(box));

    // Scrolled up again, then pinned (a question sent).
    await scrolled(box, 0);
    host.pinned.pin();
    await grown(host, 45);
    expect(box.scrollTop).to.equal(atEnd(box));
  });

  it('ignores other scrolling boxes inside the box', async () => {
    const host = await mount<PinnedHost>('pinned-host');
    const box = await grown(host, 20);
    // A wide code block scrolled sideways inside the box is not the visitor leaving the end.
    const inner = document.createElement('div');
    inner.style.cssText = 'width: 50px; overflow: auto; white-space: pre';
    inner.textContent = 'x'.repeat(500);
    box.append(inner);
    const heard = new Promise((resolve) => inner.addEventListener('scroll', resolve, { once: true }));
    inner.scrollLeft = 100;
    await heard;
    await grown(host, 30);
    expect(box.scrollTop).to.equal(atEnd(box));
  });
});

describe('AnnouncerController', () => {
  afterEach(() => document.querySelectorAll('feedback-host').forEach((host) => host.remove()));

  it('says the latest announcement in one polite live region, and nothing once cleared or taken off the page', async () => {
    const host = await mount<FeedbackHost>('feedback-host');
    const region = () => host.renderRoot.querySelector('[role="status"]')!;
    expect(region().getAttribute('aria-live')).to.equal('polite');
    expect(region().textContent).to.equal('');
    host.announcer.announce('The assistant is answering…');
    await host.updateComplete;
    expect(region().textContent).to.equal('The assistant is answering…');
    host.announcer.announce('Assistant: done');
    await host.updateComplete;
    expect(region().textContent).to.equal('Assistant: done');
    expect(host.renderRoot.querySelectorAll('[role="status"]')).to.have.length(1);

    host.remove();
    document.body.append(host);
    await host.updateComplete;
    expect(region().textContent, 'not said again when put back').to.equal('');
  });
});

describe('CopyFeedbackController', () => {
  const clipboard = Object.getOwnPropertyDescriptor(Navigator.prototype, 'clipboard')!;
  let copied: string[];
  let refuse = false;
  beforeEach(() => {
    copied = [];
    refuse = false;
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: {
        writeText: async (text: string) => {
          if (refuse) throw new DOMException('Not allowed', 'NotAllowedError');
          copied.push(text);
        },
      },
    });
  });
  afterEach(() => {
    delete (navigator as { clipboard?: unknown }).clipboard;
    Object.defineProperty(Navigator.prototype, 'clipboard', clipboard);
    document.querySelectorAll('feedback-host').forEach((host) => host.remove());
  });

  it('copies, says "Copied" and announces it, then says "Copy" again after two seconds', async () => {
    const host = await mount<FeedbackHost>('feedback-host');
    const button = host.renderRoot.querySelector('button')!;
    const started = performance.now();
    button.click();
    await waitFor(() => button.textContent === 'Copied', 'the button to say Copied');
    expect(copied).to.deep.equal(['the answer']);
    expect(host.renderRoot.querySelector('[role="status"]')!.textContent).to.equal('Copied');
    await waitFor(() => button.textContent === 'Copy', 'the button to say Copy again', COPIED_MS + 30_000);
    expect(performance.now() - started).to.be.at.least(COPIED_MS - 50);
  });

  it('changes nothing on screen when the browser refuses the copy', async () => {
    const host = await mount<FeedbackHost>('feedback-host');
    refuse = true;
    const warned: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warned.push(args);
    try {
      await host.copy.copy('a', 'the answer');
    } finally {
      console.warn = warn;
    }
    await host.updateComplete;
    expect(host.renderRoot.querySelector('button')!.textContent).to.equal('Copy');
    expect(host.renderRoot.querySelector('[role="status"]')!.textContent).to.equal('');
    expect(String(warned[0]?.[0])).to.contain('could not be copied');
  });

  it('says "Copy" again at once when taken off the page', async () => {
    const host = await mount<FeedbackHost>('feedback-host');
    await host.copy.copy('a', 'the answer');
    await host.updateComplete;
    expect(host.copy.isCopied('a')).to.equal(true);
    host.remove();
    expect(host.copy.isCopied('a')).to.equal(false);
  });
});

describe('AnswerEngineController', () => {
  afterEach(() => document.querySelectorAll('engine-host').forEach((host) => host.remove()));

  it('goes from initial to pending to complete in one status, with the engine as its value', async () => {
    const host = await mount<EngineHost>('engine-host');
    const controller = host.engine;
    // Another test file may have loaded it already on this page: then it is complete from the start.
    if (controller.status === 'initial') {
      expect(controller.value).to.equal(undefined);
      controller.need();
      expect(controller.status).to.equal('pending');
      await waitFor(() => controller.status === 'complete', 'the engine');
    }
    expect(controller.value).to.equal(await loadAnswerEngine());
    expect(controller.error).to.equal(undefined);
  });

  it('adopts an engine another chat fetched, without a fetch of its own', async () => {
    await loadAnswerEngine();
    const host = await mount<EngineHost>('engine-host');
    expect(host.engine.status).to.equal('complete');
    expect(host.engine.value).to.equal(await loadAnswerEngine());
  });
});
