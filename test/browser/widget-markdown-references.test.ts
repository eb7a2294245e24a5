import './sanitizer-ready.js';
import { expect } from '@open-wc/testing';
import { IncrementalMarkdown, renderMarkdown } from '../../src/widget/index.js';
import '../../src/widget/index.js';
import { ConversationStore, type KagentAnswerDetail } from '../../src/widget/index.js';
import { LATE_DEFINITION, LATE_FOOTNOTE, footnotedAnswer } from '../support/markdown-answers.js';
import { ask, lastAnswer, mountChat, removeAllChats, uniqueAgent, waitFor } from './widget-helpers.js';

// Reference links whose definition comes after their use: the renderer shows
// blocks before it knows every definition, so a late one must cost a bounded
// render of the blocks that use it, and the answer must still finish.

/** A holder with the nodes of rendering `text` at once. */
function wholeRender(text: string): HTMLElement {
  const holder = document.createElement('div');
  holder.append(...renderMarkdown(text));
  return holder;
}

/** A holder with the nodes the renderer leaves once `text` is finished, healed at its end when `cutOff`. */
async function renderedAsFinished(text: string, cutOff: boolean): Promise<HTMLElement> {
  const holder = document.createElement('div');
  const view = new IncrementalMarkdown(holder);
  view.append(text);
  await view.finish({ cutOff });
  return holder;
}

/** Cuts `text` into fragments of `size` characters. */
function fragmentsOfSize(text: string, size: number): string[] {
  const fragments: string[] = [];
  for (let i = 0; i < text.length; i += size) fragments.push(text.slice(i, i + size));
  return fragments;
}

/** Resolves with `promise`, or fails saying `what` did not end. */
function within<T>(promise: Promise<T>, what: string, ms = 15_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Streams `text` in fragments of `size` characters with a render after each,
 * then finishes; later frames (the rest of a backlog, blocks rendered again)
 * run as soon as they are scheduled.
 */
async function streamed(text: string, size: number): Promise<{ holder: HTMLElement; view: IncrementalMarkdown }> {
  const holder = document.createElement('div');
  const view = new IncrementalMarkdown(holder, { schedule: (render) => setTimeout(render, 0) as unknown as number, cancel: clearTimeout, minInterval: 0 });
  for (const fragment of fragmentsOfSize(text, size)) {
    view.append(fragment);
    view.flush();
  }
  await within(view.finish(), `finish() of a ${text.length}-character answer in ${size}-character fragments`);
  return { holder, view };
}

function expectSameDom(holder: HTMLElement, text: string, what: string): void {
  const expected = wholeRender(text);
  if (holder.isEqualNode(expected)) return;
  expect(holder.innerHTML, what).to.equal(expected.innerHTML);
  expect.fail(`${what}: the HTML is right but the nodes differ`);
}

describe('incremental markdown, reference links defined late', () => {
  it('finishes the issue\'s two texts with the one-shot DOM, lexing a bounded multiple of their length', async () => {
    expect(LATE_FOOTNOTE.length).to.equal(6139);
    for (const text of [LATE_DEFINITION, LATE_FOOTNOTE]) {
      const { holder, view } = await streamed(text, 100);
      expectSameDom(holder, text, JSON.stringify(text.slice(0, 30)));
      expect(holder.querySelector('a')!.getAttribute('href')).to.match(/^https:\/\/e(xample)?\.com/);
      // Each fragment lexes the open block (a few hundred characters), and the block that uses the late definition is lexed once more.
      expect(view.stats.lexedChars, `characters lexed for ${text.length}`).to.be.below(3 * text.length);
    }
  });

  it('renders the blocks that use a late definition once more, not the answer again', async () => {
    // The same text with the definition first: what streaming costs without a late definition.
    const late = LATE_FOOTNOTE;
    const early = '[1]: https://example.com/guide\n\n' + late.replace('[1]: https://example.com/guide\n\n', '');
    const { view: lateView } = await streamed(late, 100);
    const { view: earlyView } = await streamed(early, 100);
    const user = 'See the guide [1].\n\n'.length;
    expect(lateView.stats.lexedChars - earlyView.stats.lexedChars).to.be.at.most(user + 200);
  });

  it('resolves definitions before, after and between their uses, nested in lists and quotes, to the one-shot DOM', async () => {
    const texts = [
      '[a]: https://a.example\n\nUse [a] and [A][] and [text][a].\n\nMore [a].',
      'Use [a] first.\n\n- item [b]\n- item\n\n> quote [c]\n\nMiddle [a] [b].\n\n[a]: https://a.example "A"\n\nBetween [a] [b] [c].\n\n[b]: https://b.example\n\n> [c]: https://c.example\n\nEnd [c].',
      'Label broken\nover lines: [Foo\nBar] and [foo bar].\n\n' + 'filler\n\n'.repeat(30) + '[FOO BAR]: https://foo.example',
      '> quoted [lbl\n> split] use\n\n' + 'filler words\n\n'.repeat(20) + '[lbl split]: https://split.example\n',
      '[x]\n\n[x]: https://first.example\n\n[x]: https://second.example\n\n[x]',
      '- [1] in a list\n- [2] too\n\n| a | b |\n| - | - |\n| [1] | [2] |\n\n[1]: https://one.example\n[2]: https://two.example',
    ];
    for (const [index, text] of texts.entries()) {
      for (const size of [1, 3, 17]) {
        const { holder } = await streamed(text, size);
        expectSameDom(holder, text, `text ${index} in ${size}-character fragments`);
      }
    }
  });

  it('finishes 50,000-character answers with footnotes defined at the end, in fragments of 1, 7, 100 and 4,000 characters', async function () {
    // 50,000 renders for the 1-character fragments alone.
    this.timeout(60_000);
    const text = footnotedAnswer(50_000, 3);
    expect(text.length).to.be.within(49_000, 50_000);
    // The same answer with its footnotes defined first: what streaming costs without late definitions.
    const definitions = text.slice(text.lastIndexOf('\n\n') + 2);
    const early = definitions + '\n' + text.slice(0, -definitions.length);
    for (const size of [1, 7, 100, 4000]) {
      const { holder, view } = await streamed(text, size);
      expectSameDom(holder, text, `${size}-character fragments`);
      expect(holder.querySelectorAll('a[href="https://example.com/two"]').length).to.be.above(10);
      const { holder: earlyHolder, view: earlyView } = await streamed(early, size);
      expectSameDom(earlyHolder, early, `${size}-character fragments, footnotes first`);
      // The late footnotes cost one more render of the blocks citing them, at most the answer's length once.
      expect(view.stats.lexedChars - earlyView.stats.lexedChars, `${size}-character fragments`).to.be.at.most(text.length);
    }
  });
});

/** Resolves once `frames` animation frames have passed. */
async function frames(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
}

describe('<kagent-chat> answers that define references late', () => {
  beforeEach(() => localStorage.clear());
  afterEach(removeAllChats);

  for (const [name, text] of [['late-footnote', LATE_FOOTNOTE], ['late-definition', LATE_DEFINITION]] as const) {
    it(`fires kagent-answer for the ${name} text streamed in 100-character fragments, showing the one-shot DOM`, async function () {
      const chat = await mountChat(uniqueAgent(name), `text-${name}-100`);
      const answered = new Promise<KagentAnswerDetail>((resolve) => chat.addEventListener('kagent-answer', (event) => resolve(event.detail), { once: true }));
      await ask(chat, 'Where is the guide?');
      const detail = await within(answered, 'kagent-answer');
      expect(detail.answer).to.equal(text);
      const shown = lastAnswer(chat)!;
      const expected = wholeRender(text);
      expect(shown.innerHTML).to.equal(expected.innerHTML);
      expect([...shown.childNodes].every((node, i) => node.isEqualNode(expected.childNodes[i]!))).to.equal(true);
    });
  }

  it('stops rendering once removed while a long answer is still being shown, and renders it whole again when put back', async function () {
    const agent = uniqueAgent('removed');
    // 50,000 characters in one fragment: shown a slice per frame, over many frames.
    const chat = await mountChat(agent, 'text-footnoted-50000');
    await ask(chat, 'Long answer?');
    const answer = await waitFor(() => lastAnswer(chat)?.querySelector('p') && lastAnswer(chat), 'the answer to start showing');
    let changes = 0;
    const observer = new MutationObserver((records) => (changes += records.length));
    observer.observe(answer, { childList: true, subtree: true, characterData: true });
    chat.remove();
    // Several render intervals (100 ms each) and frames: a renderer still at work would change the answer in them.
    await frames(10);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await frames(5);
    observer.disconnect();
    expect(changes, 'changes to a removed answer').to.equal(0);

    // Put back: the part that arrived renders whole again.
    document.body.append(chat);
    const kept = new ConversationStore('/scripted/widget/text-footnoted-50000', agent).load().turns.at(-1)!;
    // Removal stopped the answer, so it is shown again as a stopped answer is: its cut-off end healed.
    const expected = await renderedAsFinished(kept.answer, kept.state === 'stopped' || kept.state === 'failed');
    await waitFor(() => lastAnswer(chat) !== answer && lastAnswer(chat)!.innerHTML === expected.innerHTML, 'the answer to render again, whole');
    expect(lastAnswer(chat)!.querySelectorAll('p').length).to.be.above(answer.querySelectorAll('p').length);
  });
});
