import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { loadAnswerEngine, loadedAnswerEngine } from './answer-engine-loader.js';
import { isPlainText, plainTextNodes } from './plain-text.js';

/** When the chat fetches its second part: see the element's `loading` attribute. */
export type LoadingMode = 'eager' | 'idle' | 'interaction';

/** What the controller reads from the element. */
export interface AnswerEngineHost extends ReactiveControllerHost, HTMLElement {
  renderRoot: HTMLElement | DocumentFragment;
  loading: LoadingMode;
  mode: 'inline' | 'bubble';
  opened: boolean;
}

/** Longest an idle load waits, once the page has loaded, for the browser to be idle. */
const IDLE_TIMEOUT_MS = 5000;
/** Where `requestIdleCallback` is missing (Safari), the idle load starts this long after the page loaded. */
const WITHOUT_IDLE_CALLBACK_MS = 1000;

/**
 * Decides when the chat's second part (the answer engine: request, markdown,
 * sanitizer, citation links) is fetched, and shows the welcome message,
 * which may need it.
 *
 * - `eager`: at once;
 * - `idle` (default): once the page has loaded and the browser is idle, so
 *   opening the chat later is instant, without competing with the page's load;
 * - `interaction`: only when first needed.
 *
 * Whatever the mode, it is fetched on first need: the pointer over the chat or
 * focus in it (the launcher hovered or focused, the question box), the bubble
 * opened, a welcome message with markup shown; a question sent and a stored
 * answer to show fetch it themselves (`askOnceLoaded`, `AnswerBody`). After a
 * failed fetch, the pointer, focus and idle time no longer try again (a blocked
 * address would be asked on every move); opening the chat and a question do.
 */
export class AnswerEngineController implements ReactiveController {
  #host: AnswerEngineHost;
  #failed = false;
  #loading = false;
  #wasOpen = false;
  #scheduled = false;
  /** The welcome message as it renders. */
  #welcome: { text: string; nodes: Node[] } | undefined;

  constructor(host: AnswerEngineHost) {
    this.#host = host;
    host.addController(this);
    host.addEventListener('pointerover', this.#want);
    host.addEventListener('focusin', this.#want);
  }

  hostUpdate(): void {
    const host = this.#host;
    const open = host.mode === 'bubble' && host.opened;
    if (open && !this.#wasOpen) this.need();
    this.#wasOpen = open;
    // At the first update, once the page's attributes and a framework's properties are set.
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (host.loading === 'eager') this.need();
    else if (host.loading !== 'interaction') {
      const whenIdle = () =>
        typeof requestIdleCallback === 'function' ? requestIdleCallback(this.#want, { timeout: IDLE_TIMEOUT_MS }) : setTimeout(this.#want, WITHOUT_IDLE_CALLBACK_MS);
      if (document.readyState === 'complete') whenIdle();
      else addEventListener('load', whenIdle, { once: true });
    }
  }

  /** Once the second part is here, its styles (markdown blocks, citation markers) join the chat's. */
  hostUpdated(): void {
    const root = this.#host.renderRoot as ShadowRoot;
    const sheet = loadedAnswerEngine()?.answerStyleSheet();
    // (Where a browser cannot adopt sheets, Lit fell back to style elements; answers then go unstyled.)
    if (sheet && root.adoptedStyleSheets && !root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }

  /** Fetches the second part now, also after a failure. */
  need(): void {
    if (loadedAnswerEngine() || this.#loading) return;
    this.#loading = true;
    loadAnswerEngine().then(
      () => this.#settle(false),
      (error: unknown) => {
        if (!this.#failed) console.warn('kagent-chat: could not fetch its answer engine', error);
        this.#settle(true);
      },
    );
  }

  /**
   * The welcome message as nodes: plain text at once; markdown once the second
   * part is here (nothing until then; plain text if it cannot be fetched). A
   * closed bubble's welcome with markup waits: showing it would fetch the
   * second part for a chat nobody opened.
   */
  welcome(text: string): Node[] {
    if (this.#welcome?.text !== text) {
      const engine = loadedAnswerEngine();
      if (isPlainText(text)) this.#welcome = { text, nodes: plainTextNodes(text) };
      else if (engine) this.#welcome = { text, nodes: engine.renderMarkdown(text) };
      else if (this.#failed) return plainTextNodes(text);
      else {
        if (this.#host.mode !== 'bubble' || this.#host.opened) this.need();
        return [];
      }
    }
    return this.#welcome.nodes;
  }

  #want = (): void => {
    if (!this.#failed) this.need();
  };

  #settle(failed: boolean): void {
    this.#loading = false;
    this.#failed = failed;
    this.#host.requestUpdate();
  }
}
