import { loadAnswerEngine, loadedAnswerEngine, type AnswerEngine } from './answer-engine-loader.js';
import type { FeedbackConversation } from '../answer-engine/feedback/buttons.js';
import type { PageChat } from '../answer-engine/chat-in-use.js';
import type { IncrementalMarkdown } from '../answer-engine/markdown/incremental-markdown.js';
import { plainTextNodes } from './plain-text.js';
import type { Source } from '../../protocol/index.js';
import type { Turn } from './conversation-store.js';
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
  /** Where the second part draws what goes under the answer: its sources, its feedback buttons (a box of no layout of its own, `display: contents`). */
  readonly below: HTMLDivElement;
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
    this.below = document.createElement('div');
    this.below.className = 'below';
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

  /** Draws what goes under the answer: its sources, and under a finished one its feedback buttons; without the second part, nothing. */
  showBelow(chat: PageChat, turn: Turn, conversation: FeedbackConversation): void {
    loadedAnswerEngine()?.renderBelow(this.below, chat, turn, conversation);
  }

  /** Renders the rest and, for a complete answer, links its `[n]` markers to `sources` (a slice per frame); a cut-off one stays healed. */
  async finish(sources: readonly Source[], strings: ChatStrings, cutOff = false): Promise<void> {
    await this.#ready;
    const renderer = this.#renderer;
    // Without the renderer (it could not be fetched): the words, as text.
    if (!renderer) return this.element.replaceChildren(...plainTextNodes(this.#waiting));
    await renderer.markdown.finish({ cutOff });
    await renderer.engine.linkCitationMarkers(this.element, renderer.engine.citationLinks(sources, strings), this.below);
  }

  /** An answer restored after a reload: it renders after the ones restored before it, a slice per frame. */
  static restored(chat: PageChat, turn: Turn, conversation: FeedbackConversation, onRender?: () => void): AnswerBody {
    const body = new AnswerBody(onRender);
    const answered = turn.state === 'answered';
    restoring = restoring
      .then(nextFrame)
      .then(() => body.#ready)
      .then(() => {
        body.showBelow(chat, turn, conversation);
        body.append(turn.answer);
        return body.finish(answered ? turn.sources : [], chat.strings, !answered);
      })
      // One answer that fails to render must not hold up the others.
      .catch((error: unknown) => console.error('kagent-chat: could not render a restored answer', error));
    return body;
  }
}
