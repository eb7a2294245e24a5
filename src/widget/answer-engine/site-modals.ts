// Part of the answer engine (the chat's second part, here by the time a visitor opens the bubble):
// noticing the page's own modal dialogs, so that the bubble steps back while one is open.

/**
 * Calls `onChange(true)` while the page shows a modal of its own outside
 * `chat`, and `onChange(false)` when none is left; returns a function that
 * stops watching. A modal is any of:
 * - a `<dialog>` opened with `showModal()`;
 * - a shown element with `aria-modal="true"` (Bootstrap, Headless UI, Radix
 *   and most modal libraries set it on theirs);
 * - an `inert` ancestor of the chat (what a page sets around its modal).
 */
export function watchSiteModals(chat: HTMLElement, onChange: (open: boolean) => void): () => void {
  let open = false;
  let frame = 0;
  const check = () => {
    frame = 0;
    if (siteModalOpen(chat) !== open) onChange((open = !open));
  };
  // Modals appear by attributes (open, aria-modal, inert), by being shown (class, style, hidden) or added;
  // checked once a frame at most, however many changes a page makes (animations write style every frame).
  const observer = new MutationObserver(() => (frame ||= requestAnimationFrame(check)));
  observer.observe(document.documentElement, { subtree: true, childList: true, attributeFilter: ['open', 'aria-modal', 'inert', 'class', 'style', 'hidden'] });
  check();
  return () => {
    observer.disconnect();
    cancelAnimationFrame(frame);
  };
}

/** A modal of the page's, outside `chat`, is open. */
export function siteModalOpen(chat: Element): boolean {
  if (chat.parentElement?.closest('[inert]')) return true;
  for (const element of document.querySelectorAll('dialog[open], [aria-modal="true"]')) {
    if (!element.contains(chat) && (element.localName === 'dialog' ? isModal(element) : element.getClientRects().length > 0)) return true;
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
