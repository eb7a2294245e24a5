import { loadAnswerEngine, loadedAnswerEngine, type AnswerEngine } from './answer-engine-loader.js';
import type { IncrementalMarkdown } from '../answer-engine/markdown/incremental-markdown.js';
import { plainTextNodes } from './plain-text.js';
import type { Source } from '../../protocol/index.js';
import type { ChatStrings } from './strings.js';

// Restored answers render one after another, a frame apart, so a long transcript never blocks the page.
let restoring: Promise<void> = Promise.resolve();
const nextFrame = () => new Promise(requestAnimationFrame);

/**
 * The rendered answer of one turn: a node the element's template places, whose
 * content the incremental markdown renderer owns while the answer streams.
 *
 * The renderer is in the chat's second part: the node exists at once, and what
 * is appended before the second part arrives is rendered when it does. If it
 * cannot be fetched, the answer is shown as plain text (text nodes only).
 */
export class AnswerBody {
  readonly element: HTMLDivElement;
  /** Where the second part lists the answer's sources (a box of no layout of its own, `display: contents`). */
  readonly sources: HTMLDivElement;
  #renderer: { engine: AnswerEngine; markdown: IncrementalMarkdown } | undefined;
  /** Appended before the renderer arrived. */
  #waiting = '';
  /** Settles once the renderer is here, or could not be fetched. */
  #ready: Promise<void>;
  /** The element was removed: a renderer arriving later renders nothing. */
  #stopped?: boolean;

  constructor(onRender?: () => void) {
    const element = (this.element = document.createElement('div'));
    element.className = 'markdown';
    element.setAttribute('part', 'answer-text');
    // An answer reads in its own text's direction (an English answer on a right-to-left page, and the reverse).
    element.dir = 'auto';
    this.sources = document.createElement('div');
    this.sources.className = 'sources-box';
    this.#ready = loadAnswerEngine().then(
      (engine) => {
        this.#renderer = { engine, markdown: new engine.IncrementalMarkdown(element, onRender ? { onRender } : {}) };
        if (this.#stopped) this.#renderer.markdown.stop();
        else this.append(this.#waiting);
      },
      () => {},
    );
  }

  append(fragment: string): void {
    if (this.#renderer) this.#renderer.markdown.append(fragment);
    else this.#waiting += fragment;
  }

  /** Stops rendering for good (the element was removed); a pending `finish()` resolves. */
  stop(): void {
    this.#stopped = true;
    this.#renderer?.markdown.stop();
  }

  /** Lists the answer's sources (none: an empty list); without the second part, nothing. */
  showSources(sources: readonly Source[], strings: ChatStrings, turnId: string): void {
    loadedAnswerEngine()?.renderSources(this.sources, sources, strings, turnId);
  }

  /** Renders the rest and, for a complete answer, links its `[n]` markers to `sources` (a slice per frame); a cut-off one stays healed. */
  async finish(sources: readonly Source[], strings: ChatStrings, cutOff = false): Promise<void> {
    await this.#ready;
    const renderer = this.#renderer;
    // Without the renderer (it could not be fetched): the words, as text.
    if (!renderer) return this.element.replaceChildren(...plainTextNodes(this.#waiting));
    await renderer.markdown.finish({ cutOff });
    await renderer.engine.linkCitationMarkers(this.element, renderer.engine.citationLinks(sources, strings), this.sources);
  }

  /** An answer restored after a reload: it renders after the ones restored before it, a slice per frame. */
  static restored(text: string, sources: readonly Source[], strings: ChatStrings, turnId: string, cutOff: boolean, onRender?: () => void): AnswerBody {
    const body = new AnswerBody(onRender);
    restoring = restoring
      .then(nextFrame)
      .then(() => body.#ready)
      .then(() => {
        body.showSources(sources, strings, turnId);
        body.append(text);
        return body.finish(sources, strings, cutOff);
      })
      // One answer that fails to render must not hold up the others.
      .catch((error: unknown) => console.error('kagent-chat: could not render a restored answer', error));
    return body;
  }
}
