import { citationsFrom, linkCitationMarkers } from './citations.js';
import { IncrementalMarkdown } from './markdown/incremental-markdown.js';
import type { Source } from '../protocol/index.js';
import type { ChatStrings } from './strings.js';

// Restored answers render one after another, a frame apart, so a long transcript never blocks the page.
let restoring: Promise<void> = Promise.resolve();
const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

/**
 * The rendered answer of one turn: a node the element's template places, whose
 * content the incremental markdown renderer owns while the answer streams.
 */
export class AnswerBody {
  readonly element: HTMLDivElement;
  #markdown: IncrementalMarkdown;

  constructor(onRender?: () => void) {
    this.element = document.createElement('div');
    this.element.className = 'markdown';
    this.element.setAttribute('part', 'answer-text');
    this.#markdown = new IncrementalMarkdown(this.element, onRender ? { onRender } : {});
  }

  append(fragment: string): void {
    this.#markdown.append(fragment);
  }

  /** Stops rendering for good (the element was removed); a pending `finish()` resolves. */
  stop(): void {
    this.#markdown.stop();
  }

  /** Renders the rest and, for a complete answer, links its `[n]` markers to `sources`. */
  async finish(sources: readonly Source[], strings: ChatStrings): Promise<void> {
    await this.#markdown.finish();
    linkCitationMarkers(this.element, citationsFrom(sources), strings);
  }

  /** An answer restored after a reload: it renders after the ones restored before it, a slice per frame. */
  static restored(text: string, sources: readonly Source[], strings: ChatStrings, onRender?: () => void): AnswerBody {
    const body = new AnswerBody(onRender);
    restoring = restoring
      .then(nextFrame)
      .then(() => {
        body.append(text);
        return body.finish(sources, strings);
      })
      // One answer that fails to render must not hold up the others.
      .catch((error: unknown) => console.error('kagent-chat: could not render a restored answer', error));
    return body;
  }
}
