import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * The wait a 429 asks for: counts down by the second, updating the host, and
 * tells when asking is allowed again.
 */
export class CooldownController implements ReactiveController {
  #host: ReactiveControllerHost;
  #until = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: ReactiveControllerHost) {
    this.#host = host;
    host.addController(this);
  }

  /** Whole seconds left; 0 when asking is allowed. */
  get remaining(): number {
    return Math.max(0, Math.ceil((this.#until - Date.now()) / 1000));
  }

  get active(): boolean {
    return this.remaining > 0;
  }

  start(seconds: number): void {
    this.#until = Math.max(this.#until, Date.now() + seconds * 1000);
    this.#tick();
  }

  hostConnected(): void {
    if (this.active) this.#tick();
  }

  hostDisconnected(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #tick = (): void => {
    // Clears the tick pending, as on removal.
    this.hostDisconnected();
    this.#host.requestUpdate();
    const left = this.#until - Date.now();
    // Wake at the next whole second, when the shown number changes.
    if (left > 0) this.#timer = setTimeout(this.#tick, (left % 1000) || 1000);
  };
}
