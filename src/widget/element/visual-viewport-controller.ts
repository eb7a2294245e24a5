import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * While `target()` returns an element, keeps it laid over the visual
 * viewport, the part of the page the visitor sees, at the screen's own scale:
 * `--kagent-vv-left`, `--kagent-vv-top` (where the visual viewport is in the
 * layout viewport), `--kagent-vv-width`, `--kagent-vv-height` (its size in
 * screen pixels) and `--kagent-vv-zoom` (what scales screen pixels back to
 * the page's CSS pixels).
 *
 * A box sized and scaled by them covers exactly what is on screen, and what
 * it holds keeps its natural size: on a phone page without
 * `<meta name="viewport">` (drawn zoomed out, a 980-pixel page on a
 * 375-pixel screen) and when the visitor pinch-zooms. The on-screen keyboard
 * shrinks the visual viewport, so a panel filling the box keeps its question
 * box above the keyboard. Set through the CSSOM, which a strict
 * Content-Security-Policy allows.
 */
export class VisualViewportController implements ReactiveController {
  #host: ReactiveControllerHost & HTMLElement;
  #target: () => HTMLElement | null;
  #element: HTMLElement | null = null;

  constructor(host: ReactiveControllerHost & HTMLElement, target: () => HTMLElement | null) {
    this.#host = host;
    this.#target = target;
    host.addController(this);
  }

  hostUpdated(): void {
    const element = this.#host.isConnected ? this.#target() : null;
    if (element === this.#element) return;
    this.#stop();
    if (element) this.#listen(element);
  }

  hostDisconnected(): void {
    this.#stop();
  }

  #follow = (): void => {
    const viewport = window.visualViewport;
    const element = this.#element;
    if (!viewport || !element) return;
    // Screen pixels per CSS pixel of the page; 1 on a desktop page, below 1 on a zoomed-out phone page.
    const scale = viewport.scale > 0 ? viewport.scale : 1;
    element.style.setProperty('--kagent-vv-left', `${viewport.offsetLeft}px`);
    element.style.setProperty('--kagent-vv-top', `${viewport.offsetTop}px`);
    element.style.setProperty('--kagent-vv-width', `${viewport.width * scale}px`);
    element.style.setProperty('--kagent-vv-height', `${viewport.height * scale}px`);
    element.style.setProperty('--kagent-vv-zoom', String(1 / scale));
  };

  #listen(element: HTMLElement): void {
    // Only after an update in a page (never on a server), where `window` is.
    const viewport = window.visualViewport;
    if (!viewport) return;
    this.#element = element;
    viewport.addEventListener('resize', this.#follow);
    viewport.addEventListener('scroll', this.#follow);
    this.#follow();
  }

  #stop(): void {
    if (!this.#element) return;
    this.#element = null;
    window.visualViewport?.removeEventListener('resize', this.#follow);
    window.visualViewport?.removeEventListener('scroll', this.#follow);
  }
}
