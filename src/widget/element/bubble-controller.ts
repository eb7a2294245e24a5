import { html, nothing, svg, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatStrings } from './strings.js';
import { loadedAnswerEngine } from './answer-engine-loader.js';
import { VisualViewportController } from './visual-viewport-controller.js';

/** What the bubble needs of its element. */
export interface BubbleHost extends ReactiveControllerHost, HTMLElement {
  readonly mode: string;
  readonly opened: boolean;
  readonly hasUpdated: boolean;
  readonly renderRoot: HTMLElement | DocumentFragment;
  readonly strings: ChatStrings;
  close(): void;
  toggle(): void;
}

const chatIcon = svg`<path d="M4 4h16v12H9l-5 4z" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/>`;
const closeIcon = svg`<path d="M6 6l12 12M18 6L6 18" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>`;
const icon = (shape: TemplateResult) => html`<svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">${shape}</svg>`;

/**
 * The bubble's place above the page. Its launcher and panel live in one
 * layer shown as a manual popover: the browser's top layer, drawn above every
 * z-index of the page and positioned against the window whatever the page
 * does to the element or its ancestors (`display`, `contain`, `transform`,
 * `filter`, `overflow`, `position`). The layer covers the visual viewport
 * (see VisualViewportController) and lets clicks through where it shows
 * nothing.
 *
 * While the page shows a modal of its own, the layer steps back (is not
 * drawn) and comes back, open or closed as it was, after: watched by the
 * second part (watchSiteModals) once it is here, as it is when the panel opens.
 *
 * Also: opening moves focus to the question box and closing returns it to
 * the launcher, both without scrolling the page; Escape closes. It draws the
 * launcher, the layer around the chat and the header's Close button.
 */
export class BubbleController implements ReactiveController {
  #host: BubbleHost;
  #wasOpen = false;
  #refocusLauncher?: boolean;
  /** The page shows a modal of its own: the layer steps back. */
  #stepBack?: boolean;
  /** Stops watching for the page's modals. */
  #unwatch: (() => void) | undefined;

  constructor(host: BubbleHost) {
    this.#host = host;
    host.addController(this);
    new VisualViewportController(host, () => this.#layer);
  }

  /** The chat as the page shows it: inline as it is; as a bubble inside the layer, after its launcher. */
  render(chat: TemplateResult): TemplateResult {
    const host = this.#host;
    if (!this.#active) return chat;
    const s = host.strings;
    return html`
      <div class=${this.#stepBack ? 'layer stepped-back' : 'layer'} popover="manual">
        <button class="launcher" part="launcher" type="button" aria-expanded=${String(host.opened)} aria-controls="chat" aria-label=${host.opened ? s.closeChat : s.openChat} @click=${() => host.toggle()}>
          ${icon(host.opened ? closeIcon : chatIcon)}
        </button>
        ${chat}
      </div>
    `;
  }

  /** The header's Close button (a bubble's only). */
  renderClose(): TemplateResult | typeof nothing {
    const host = this.#host;
    return this.#active ? html`<button class="quiet icon" part="close" type="button" aria-label=${host.strings.closeChat} @click=${() => host.close()}>${icon(closeIcon)}</button>` : nothing;
  }

  get #active(): boolean {
    return this.#host.mode === 'bubble';
  }

  get #layer(): HTMLElement | null {
    return this.#active ? this.#host.renderRoot.querySelector<HTMLElement>('.layer') : null;
  }

  hostConnected(): void {
    this.#host.addEventListener('keydown', this.#onKeydown);
    // A popover is hidden when its element leaves the document: show it again when the element comes back.
    if (this.#host.hasUpdated) void this.#host.updateComplete.then(() => this.#show());
  }

  hostDisconnected(): void {
    this.#host.removeEventListener('keydown', this.#onKeydown);
    this.#watchModals(false);
  }

  #watchModals(on: boolean): void {
    if (on) {
      this.#unwatch ??= loadedAnswerEngine()?.watchSiteModals(this.#host, (open) => {
        this.#stepBack = open;
        this.#host.requestUpdate();
      });
    } else if (this.#unwatch) {
      this.#unwatch();
      this.#unwatch = undefined;
      this.#stepBack = false;
    }
  }

  hostUpdate(): void {
    // Focus inside a closing panel goes back to the launcher rather than being lost.
    // (The shadow root's activeElement: Chromium does not match :focus-within on a display: contents host.)
    if (this.#wasOpen && !this.#host.opened) this.#refocusLauncher = (this.#host.renderRoot as ShadowRoot).activeElement != null;
  }

  hostUpdated(): void {
    this.#show();
    this.#watchModals(this.#active && this.#host.isConnected);
    const open = this.#active && this.#host.opened;
    if (open !== this.#wasOpen && this.#host.isConnected) {
      const root = this.#host.renderRoot;
      // preventScroll: the panel is above the page, so the page has no reason to move.
      if (open) root.querySelector<HTMLElement>('textarea')?.focus({ preventScroll: true });
      else if (this.#refocusLauncher) root.querySelector<HTMLElement>('.launcher')?.focus({ preventScroll: true });
    }
    this.#wasOpen = open;
    this.#refocusLauncher = false;
  }

  /** Lifts the layer into the top layer (where the browser has one; otherwise it stays a fixed box with a high z-index). */
  #show(): void {
    const layer = this.#layer;
    // A browser without the Popover API has no showPopover (and would throw on :popover-open).
    if (!layer?.showPopover || !layer.isConnected || layer.matches(':popover-open')) return;
    try {
      layer.showPopover();
    } catch (error) {
      // Only in a document that cannot show one (not fully active); the fixed box still shows.
      console.warn('kagent-chat: the bubble could not be shown in the top layer', error);
    }
  }

  #onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape' && this.#active && this.#host.opened) {
      event.preventDefault();
      this.#host.close();
    }
  };
}
