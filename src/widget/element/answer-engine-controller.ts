import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ChatStrings } from './strings.js';
import { loadAnswerEngine, loadedAnswerEngine, type AnswerEngine } from './answer-engine-loader.js';

/** When the chat fetches its second part: see the element's `loading` attribute. */
export type LoadingMode = 'eager' | 'idle' | 'interaction';

/** What the controller reads from the element. */
export interface AnswerEngineHost extends ReactiveControllerHost, HTMLElement {
  renderRoot: HTMLElement | DocumentFragment;
  loading: LoadingMode;
  mode: 'inline' | 'bubble';
  opened: boolean;
  /** Read by the second part: where its visitor sessions are earned, and the words it says. */
  endpoint: string;
  strings: ChatStrings;
}

/** Longest an idle load waits, once the page has loaded, for the browser to be idle. */
const IDLE_TIMEOUT_MS = 5000;
/** Where `requestIdleCallback` is missing (Safari), the idle load starts this long after the page loaded. */
const WITHOUT_IDLE_CALLBACK_MS = 1000;

/** Where the second part is, in the shape of `@lit/task`'s `TaskStatus`: not asked for yet, on its way, here, or failed to arrive. */
export type AnswerEngineStatus = 'initial' | 'pending' | 'complete' | 'error';

/**
 * Decides when the chat's second part (the answer engine: request, markdown,
 * sanitizer, citation links) is fetched, and tells the element where it is
 * (`status`, `value`, `error`, as `@lit/task` does).
 *
 * - `eager`: at once;
 * - `idle` (default): once the page has loaded and the browser is idle, so
 *   opening the chat later is instant, without competing with the page's load;
 * - `interaction`: only when first needed.
 *
 * Whatever the mode, it is fetched on first need: the pointer over the chat or
 * focus in it (the launcher hovered or focused, the question box), the bubble
 * opened, a welcome message with markup shown (`need()`); a question sent and
 * a stored answer to show fetch it themselves (`askOnceLoaded`, `AnswerBody`).
 * After a failed fetch, the pointer, focus and idle time no longer try again
 * (a blocked address would be asked on every move); opening the chat and a
 * question do.
 */
export class AnswerEngineController implements ReactiveController {
  status: AnswerEngineStatus;
  /** The second part, once `complete`. */
  value: AnswerEngine | undefined;
  /** Why it could not be fetched, once `error`. */
  error: unknown;
  #host: AnswerEngineHost;
  /** The latest fetch: an earlier one that settles late (after the engine came another way) changes nothing. */
  #run = 0;
  #wasOpen?: boolean;
  #scheduled?: boolean;

  constructor(host: AnswerEngineHost) {
    // Set here, not as a field: with `useDefineForClassFields: false` a public field's initialiser moves every private field's into the constructor too.
    this.status = 'initial';
    this.#host = host;
    host.addController(this);
    host.addEventListener('pointerover', this.#want);
    host.addEventListener('focusin', this.#want);
    // A question fetches the engine itself (askOnceLoaded); this makes the chat take it in as it arrives, before the answer.
    host.addEventListener('kagent-send', this.#want);
  }

  hostUpdate(): void {
    this.#adoptLoaded();
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

  /** Once the second part is here, the chat takes it in: its styles (markdown blocks, citation markers), its visitor sessions. */
  hostUpdated(): void {
    this.value?.adopt(this.#host);
  }

  /** Fetches the second part now, also after a failure. */
  need(): void {
    if (this.#adoptLoaded(true) || this.status === 'pending') return;
    const run = ++this.#run;
    this.status = 'pending';
    loadAnswerEngine().then(
      (engine) => this.#settle(run, 'complete', engine),
      // Told on the console with the question it fails (askOnceLoaded), once, with what to copy where.
      (error: unknown) => this.#settle(run, 'error', undefined, error),
    );
  }

  /** A fetch made elsewhere (another chat on the page, a stored answer of this one) counts as this chat's own; `update` outside an update, so the chat takes it in now. */
  #adoptLoaded(update = false): boolean {
    const engine = loadedAnswerEngine();
    if (engine && this.status !== 'complete') this.#settle(++this.#run, 'complete', engine, undefined, update);
    return this.status === 'complete';
  }

  #want = (): void => {
    if (this.status !== 'error') this.need();
  };

  #settle(run: number, status: AnswerEngineStatus, value?: AnswerEngine, error?: unknown, update = true): void {
    if (run !== this.#run) return;
    this.status = status;
    this.value = value;
    this.error = error;
    if (update) this.#host.requestUpdate();
  }
}
