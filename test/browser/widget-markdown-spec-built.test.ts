import { expect } from '@open-wc/testing';
// The renderer alone (it defines no element): the one-shot render to compare with.
import { renderMarkdown } from '../../src/widget/answer-engine/markdown/incremental-markdown.js';
import type { KagentAnswerDetail, KagentChat } from '../../src/widget/index.js';
import type { SpecExample } from '../support/spec-examples.js';
import { lastAnswer, part, removeAllChats, uniqueAgent } from './widget-helpers.js';

// A sample of the spec examples, asked of the built script-tag element: the
// scripted service streams each question back as the answer (`text-echo-<size>`)
// over real HTTP, in fragments of a few characters, and the element must show
// exactly what rendering that answer at once gives.

function wholeRender(text: string): string {
  const holder = document.createElement('div');
  holder.append(...renderMarkdown(text));
  return holder.innerHTML;
}

/** Resolves with `promise`, or fails saying `what` did not come. */
function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not come within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Asks `question` and resolves with the answer once `kagent-answer` says it is complete. */
async function askAndWait(chat: KagentChat, question: string): Promise<KagentAnswerDetail> {
  const answered = new Promise<KagentAnswerDetail>((resolve) => chat.addEventListener('kagent-answer', (event) => resolve(event.detail), { once: true }));
  (part(chat, 'input') as HTMLTextAreaElement).value = question;
  (part(chat, 'send') as HTMLButtonElement).click();
  return within(answered, `kagent-answer for ${JSON.stringify(question.slice(0, 60))}`);
}

describe('spec examples streamed through the built <kagent-chat>', () => {
  afterEach(removeAllChats);

  before(async () => {
    localStorage.clear();
    const script = document.createElement('script');
    script.type = 'module';
    script.src = '/dist/kagent-chat.js';
    await new Promise((resolve, reject) => {
      script.onload = resolve;
      script.onerror = () => reject(new Error('dist/kagent-chat.js did not load: run `npm run build`'));
      document.head.append(script);
    });
  });

  it('shows every GFM extension example, a seeded sample of CommonMark and two whole sections exactly as rendered at once', async function () {
    this.timeout(120_000);
    const examples: SpecExample[] = await (await fetch('/scripted/spec-examples')).json();
    let state = 2024;
    const pick = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % examples.length;
    const sample = [
      ...examples.filter((e) => e.section.includes('(extension)')).map((e) => e.markdown),
      ...Array.from({ length: 16 }, () => examples[pick()]!.markdown),
      ...['Emphasis and strong emphasis', 'Lists'].map((section) =>
        examples
          .filter((e) => e.spec === 'commonmark' && e.section === section)
          .slice(0, 40)
          .map((e) => e.markdown)
          .join('\n'),
      ),
    ]
      // The element trims the question; blank ones are not sent.
      .map((markdown) => markdown.trim())
      .filter(Boolean);
    expect(sample.length).to.be.above(40);

    // One chat per fragment size, so consecutive questions share a conversation as a visitor's would.
    const failures: string[] = [];
    for (const [index, markdown] of sample.entries()) {
      const size = [1, 2, 3, 5, 8][index % 5]!;
      let chat = document.querySelector<KagentChat>(`kagent-chat[data-size="${size}"]`);
      if (!chat) {
        chat = document.createElement('kagent-chat') as KagentChat;
        chat.dataset.size = String(size);
        chat.setAttribute('agent-id', uniqueAgent(`spec-${size}`));
        chat.setAttribute('endpoint', `/scripted/widget/text-echo-${size}`);
        document.body.append(chat);
        await chat.updateComplete;
      }
      const detail = await askAndWait(chat, markdown);
      expect(detail.answer).to.equal(markdown);
      const shown = lastAnswer(chat)!.innerHTML;
      if (shown !== wholeRender(markdown)) failures.push(`${JSON.stringify(markdown)} in ${size}-character fragments:\n  ${shown}\n  one-shot ${wholeRender(markdown)}`);
    }
    expect(failures, failures.slice(0, 3).join('\n')).to.deep.equal([]);
  });
});
