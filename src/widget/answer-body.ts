import { citationsFrom, linkCitationMarkers } from './citations.js';
import { IncrementalMarkdown } from './markdown/incremental-markdown.js';
import type { Source } from '../protocol/index.js';
import type { ChatStrings } from './strings.js';

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

  /** The markdown received so far. */
  get text(): string {
    return this.#markdown.text;
  }

  /** How much rendering work was done, for tests and benchmarks. */
  get stats() {
    return this.#markdown.stats;
  }

  append(fragment: string): void {
    this.#markdown.append(fragment);
  }

  /** Renders the rest and, for a complete answer, links its `[n]` markers to `sources`. */
  async finish(sources: readonly Source[], strings: ChatStrings): Promise<void> {
    await this.#markdown.finish();
    linkCitationMarkers(this.element, citationsFrom(sources), strings);
  }

  /** An answer shown whole, e.g. restored after a reload. */
  static complete(text: string, sources: readonly Source[], strings: ChatStrings): AnswerBody {
    const body = new AnswerBody();
    body.#markdown = IncrementalMarkdown.renderInto(body.element, text);
    linkCitationMarkers(body.element, citationsFrom(sources), strings);
    return body;
  }
}
