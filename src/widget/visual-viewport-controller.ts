import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * While `active()` holds, keeps `--kagent-viewport-height` and
 * `--kagent-viewport-top` on the host equal to the visual viewport: the part
 * of the page not covered by an on-screen keyboard. A full-screen panel sized
 * by them keeps its question box in sight while the visitor types.
 */
export class VisualViewportController implements ReactiveController {
  #host: ReactiveControllerHost & HTMLElement;
  #active: () => boolean;
  #listening = false;

  constructor(host: ReactiveControllerHost & HTMLElement, active: () => boolean) {
    this.#host = host;
    this.#active = active;
    host.addController(this);
  }

  hostUpdated(): void {
    if (this.#active() && this.#host.isConnected) this.#listen();
    else this.#stop();
  }

  hostDisconnected(): void {
    this.#stop();
  }

  #follow = (): void => {
    const viewport = window.visualViewport;
    if (!viewport) return;
    this.#host.style.setProperty('--kagent-viewport-height', `${viewport.height}px`);
    this.#host.style.setProperty('--kagent-viewport-top', `${viewport.offsetTop}px`);
  };

  #listen(): void {
    const viewport = typeof window === 'undefined' ? undefined : window.visualViewport;
    if (this.#listening || !viewport) return;
    this.#listening = true;
    viewport.addEventListener('resize', this.#follow);
    viewport.addEventListener('scroll', this.#follow);
    this.#follow();
  }

  #stop(): void {
    if (!this.#listening) return;
    this.#listening = false;
    window.visualViewport?.removeEventListener('resize', this.#follow);
    window.visualViewport?.removeEventListener('scroll', this.#follow);
    this.#host.style.removeProperty('--kagent-viewport-height');
    this.#host.style.removeProperty('--kagent-viewport-top');
  }
}
