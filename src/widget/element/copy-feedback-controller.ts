import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** How long a Copy button says "Copied". */
export const COPIED_MS = 2000;

/**
 * Copies an answer to the clipboard and remembers, for a moment, which one:
 * its Copy button says "Copied" for two seconds, and
 * `onCopied` tells the visitor (the element announces it). A copy the
 * browser refuses changes nothing on screen and says why on the console.
 */
export class CopyFeedbackController implements ReactiveController {
  #host: ReactiveControllerHost;
  #onCopied: () => void;
  #copied: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: ReactiveControllerHost, onCopied: () => void) {
    this.#host = host;
    this.#onCopied = onCopied;
    host.addController(this);
  }

  /** Whether the copy button of `id` should say "Copied" now. */
  isCopied(id: string): boolean {
    return this.#copied === id;
  }

  async copy(id: string, text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
    } catch (error) {
      console.warn('kagent-chat: the answer could not be copied', error);
      return;
    }
    this.#copied = id;
    this.#onCopied();
    this.#host.requestUpdate();
    // A later copy has its own two seconds.
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.hostDisconnected(), COPIED_MS);
  }

  /** Back to "Copy" (also for a chat taken off the page: it says "Copy" when put back). */
  hostDisconnected(): void {
    clearTimeout(this.#timer);
    if (this.#copied === undefined) return;
    this.#copied = undefined;
    this.#host.requestUpdate();
  }
}
