import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** How close to the end, in pixels, still counts as reading the newest words. */
const NEAR_END_PX = 40;

/**
 * Keeps a scrolling box pinned to its end while what it shows grows (an
 * answer coming in), unless the visitor scrolled up to read: then it stays
 * where they left it until they scroll back down to the end, or `pin()` is
 * called (a question sent).
 */
export class PinnedScrollController implements ReactiveController {
  #host: ReactiveControllerHost & { renderRoot: HTMLElement | DocumentFragment };
  #box: () => HTMLElement | null;
  #pinned = true;

  constructor(host: ReactiveControllerHost & { renderRoot: HTMLElement | DocumentFragment }, box: () => HTMLElement | null) {
    this.#host = host;
    this.#box = box;
    host.addController(this);
  }

  /** Follows the end again, from the next update on. */
  pin(): void {
    this.#pinned = true;
  }

  /** Scrolls to the end if pinned: after an update, and whenever the box's content grows outside one. */
  follow(): void {
    const box = this.#box();
    if (box && this.#pinned) box.scrollTop = box.scrollHeight;
  }

  hostConnected(): void {
    // `scroll` does not bubble: heard on its way down, in the capture phase.
    this.#host.renderRoot.addEventListener('scroll', this.#onScroll, { capture: true, passive: true });
  }

  hostDisconnected(): void {
    this.#host.renderRoot.removeEventListener('scroll', this.#onScroll, { capture: true });
  }

  hostUpdated(): void {
    this.follow();
  }

  #onScroll = (event: Event): void => {
    const box = this.#box();
    if (box && event.target === box) this.#pinned = box.scrollHeight - box.scrollTop - box.clientHeight < NEAR_END_PX;
  };
}
