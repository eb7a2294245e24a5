import { css } from 'lit';

// Themes, the bubble mode, the parts added in part 2, focus and motion. Sizes
// are logical (inline-start/end), so right-to-left pages mirror the layout.
export const modeStyles = css`
  :host([theme='light']) {
    color-scheme: light;
  }
  :host([theme='dark']) {
    color-scheme: dark;
  }
  :host([mode='inline']) {
    height: 100%;
  }
  [hidden] {
    display: none !important;
  }
  /* A column, so the visitor's question lines up at the end and the answer at the start. */
  .turn {
    display: flex;
    flex-direction: column;
  }
  h2 {
    flex: 1;
    margin: 0;
    font-size: 15px;
    font-weight: 600;
  }
  .icon {
    display: inline-flex;
    padding: 2px;
  }
  .icon svg {
    width: 20px;
    height: 20px;
  }
  .welcome {
    overflow-wrap: anywhere;
  }
  .suggestions {
    display: flex;
    flex-wrap: wrap;
    justify-content: center;
    gap: 6px;
  }
  .suggestions button {
    padding: 4px 12px;
    border-radius: 999px;
    text-align: start;
  }
  .copy {
    align-self: flex-start;
    margin-top: 6px;
  }
  textarea::placeholder {
    color: var(--kagent-muted);
    opacity: 1;
  }

  /*
   * Bubble. The host has no box of its own, whatever the page's CSS says
   * (!important in a shadow root beats the page's rules, even its !important
   * ones); \`hidden\` still hides it. The launcher and the panel live in
   * .layer, a manual popover: the top layer, above every z-index of the page
   * and placed against the window, not against any ancestor. The layer covers
   * the visual viewport at the screen's scale (VisualViewportController) and
   * lets clicks through where it draws nothing.
   */
  :host([mode='bubble']:not([hidden])) {
    display: contents !important;
  }
  .layer {
    all: initial;
    color-scheme: inherit;
    position: fixed;
    left: var(--kagent-vv-left, 0px);
    top: var(--kagent-vv-top, 0px);
    width: var(--kagent-vv-width, 100%);
    height: var(--kagent-vv-height, 100%);
    transform: scale(var(--kagent-vv-zoom, 1));
    transform-origin: 0 0;
    pointer-events: none;
    z-index: var(--kagent-z-index, 2147483000);
    /* The small-screen layout below asks how wide the visible part of the page is, on screen. */
    container-type: size;
    --edge: var(--kagent-offset, 20px);
    --size: var(--kagent-launcher-size, 56px);
  }
  .layer::backdrop {
    display: none;
  }
  /* While the page shows its own modal. */
  .layer.stepped-back {
    display: none;
  }
  .launcher {
    all: initial;
    /* After all: initial, which would otherwise reset it: the launcher's colours follow the chat's theme. */
    color-scheme: inherit;
    box-sizing: border-box;
    display: grid;
    place-items: center;
    width: var(--size);
    height: var(--size);
    border-radius: 50%;
    background: var(--kagent-launcher-surface, var(--kagent-accent));
    color: var(--kagent-launcher-text, var(--kagent-accent-text));
    box-shadow: 0 4px 14px rgb(0 0 0 / 0.25);
    cursor: pointer;
  }
  .launcher svg {
    width: 55%;
    height: 55%;
  }
  /* After .launcher's \`all: initial\`, which would otherwise take the launcher's outline too. */
  :focus-visible,
  .launcher:focus-visible {
    outline: 2px solid var(--kagent-focus, var(--kagent-accent));
    outline-offset: 2px;
  }
  .layer > * {
    pointer-events: auto;
    position: absolute;
    inset-block-end: var(--edge);
    inset-inline-end: var(--edge);
  }
  .layer > .chat {
    inset-block-end: calc(var(--edge) + var(--size) + 12px);
    width: min(var(--kagent-panel-width, 380px), calc(100% - 2 * var(--edge)));
    height: min(var(--kagent-panel-height, 560px), calc(100% - 3 * var(--edge) - var(--size) - 12px));
    min-height: 0;
    max-height: none;
    box-shadow: 0 8px 30px rgb(0 0 0 / 0.25);
  }
  :host([position^='top']) .layer > .launcher {
    inset-block: var(--edge) auto;
  }
  :host([position^='top']) .layer > .chat {
    inset-block: calc(var(--edge) + var(--size) + 12px) auto;
  }
  :host([position$='start']) .layer > * {
    inset-inline: var(--edge) auto;
  }
  :host([position$='left']) .layer > * {
    left: var(--edge);
    right: auto;
  }
  :host([position$='right']) .layer > * {
    right: var(--edge);
    left: auto;
  }

  /* A small screen: the open chat fills what is visible of it, above the on-screen keyboard. */
  @container (max-width: 480px) {
    .layer > .chat {
      inset: 0;
      width: 100%;
      height: 100%;
      border: 0;
      border-radius: 0;
    }
    :host([open]) .layer > .launcher {
      display: none;
    }
  }

  @media print {
    :host([mode='bubble']) {
      display: none !important;
    }
  }

  @media (prefers-reduced-motion: reduce) {
    * {
      scroll-behavior: auto !important;
      transition: none !important;
    }
  }
`;
