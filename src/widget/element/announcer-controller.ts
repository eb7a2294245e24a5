import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';

/**
 * What a screen reader hears: one polite live region, and the latest thing
 * to say in it. The element places `render()` once; `announce()` replaces
 * what it says.
 */
export class AnnouncerController implements ReactiveController {
  #host: ReactiveControllerHost;
  #text = '';

  constructor(host: ReactiveControllerHost) {
    this.#host = host;
    host.addController(this);
  }

  announce(text: string): void {
    this.#text = text;
    this.#host.requestUpdate();
  }

  /** Says nothing (a new conversation: the last answer is no news). */
  clear(): void {
    this.announce('');
  }

  /** A chat taken off the page and put back does not say its last words again. */
  hostDisconnected(): void {
    this.clear();
  }

  render(): TemplateResult {
    return html`<div class="sr-only" role="status" aria-live="polite">${this.#text}</div>`;
  }
}
