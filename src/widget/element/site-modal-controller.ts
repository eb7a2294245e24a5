import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * Notices the page's own modal dialogs, so that the bubble steps back while
 * one is open and comes back when it closes (the bubble is in the top layer,
 * above any modal the page draws with z-index, and a click into it would
 * fight the modal's focus trap). A modal is any of:
 * - a `<dialog>` opened with `showModal()`;
 * - a shown element with `aria-modal="true"` (Bootstrap, Foundation's Reveal,
 *   Headless UI, Radix and most modal libraries set it on theirs);
 * - an `inert` ancestor of the chat (what a page sets around its modal).
 * None counts when the chat itself is inside it.
 */
export class SiteModalController implements ReactiveController {
  #host: ReactiveControllerHost & HTMLElement;
  #observer: MutationObserver | undefined;
  #frame = 0;
  #open = false;

  constructor(host: ReactiveControllerHost & HTMLElement) {
    this.#host = host;
    host.addController(this);
  }

  /** A modal of the page's is open. */
  get open(): boolean {
    return this.#open;
  }

  hostConnected(): void {
    // Modals appear by attributes (open, aria-modal, inert) or by being shown (class, style, hidden) or added.
    this.#observer ??= new MutationObserver(this.#schedule);
    this.#observer.observe(document.documentElement, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['open', 'aria-modal', 'inert', 'class', 'style', 'hidden'],
    });
    this.#check();
  }

  hostDisconnected(): void {
    this.#observer?.disconnect();
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
  }

  // Once a frame at most, however many mutations a page makes (animations write style every frame).
  #schedule = (): void => {
    if (!this.#frame) this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#check();
    });
  };

  #check(): void {
    const open = siteModalOpen(this.#host);
    if (open === this.#open) return;
    this.#open = open;
    this.#host.requestUpdate();
  }
}

/** A modal of the page's, outside `chat`, is open. */
export function siteModalOpen(chat: Element): boolean {
  if (chat.parentElement?.closest('[inert]')) return true;
  const outside = (element: Element) => !element.contains(chat);
  for (const dialog of document.querySelectorAll('dialog[open]')) {
    if (outside(dialog) && isModal(dialog)) return true;
  }
  for (const element of document.querySelectorAll('[aria-modal="true"]')) {
    if (outside(element) && element.getClientRects().length > 0) return true;
  }
  return false;
}

/** `:modal`, where the browser knows it (Chrome 105, Safari 15.6, Firefox 103); else an open dialog is taken as one. */
function isModal(dialog: Element): boolean {
  try {
    return dialog.matches(':modal');
  } catch {
    return true;
  }
}
