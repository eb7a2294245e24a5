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
  .chat {
    box-sizing: border-box;
  }
  /* A column, so the visitor's question lines up at the end and the answer at the start. */
  .turn {
    display: flex;
    flex-direction: column;
  }
  .header {
    align-items: center;
    gap: 8px;
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
  :focus-visible {
    outline: 2px solid var(--kagent-focus, var(--kagent-accent));
    outline-offset: 2px;
  }

  /* Bubble: a launcher fixed in a corner of the window, and the chat as a panel beside it. */
  :host([mode='bubble']) {
    --edge: var(--kagent-offset, 20px);
    --size: var(--kagent-launcher-size, 56px);
    display: contents;
  }
  :host([mode='bubble']) .launcher,
  :host([mode='bubble']) .chat {
    position: fixed;
    z-index: var(--kagent-z-index, 2147483000);
    inset-block-end: var(--edge);
    inset-inline-end: var(--edge);
  }
  .launcher {
    display: grid;
    place-items: center;
    width: var(--size);
    height: var(--size);
    padding: 0;
    border: 0;
    border-radius: 50%;
    background: var(--kagent-launcher-surface, var(--kagent-accent));
    color: var(--kagent-launcher-text, var(--kagent-accent-text));
    box-shadow: 0 4px 14px rgb(0 0 0 / 0.25);
  }
  .launcher svg {
    width: 55%;
    height: 55%;
  }
  :host([mode='bubble']) .chat {
    inset-block-end: calc(var(--edge) + var(--size) + 12px);
    width: min(var(--kagent-panel-width, 380px), calc(100vw - 2 * var(--edge)));
    height: min(var(--kagent-panel-height, 560px), calc(100dvh - 3 * var(--edge) - var(--size)));
    min-height: 0;
    max-height: none;
    box-shadow: 0 8px 30px rgb(0 0 0 / 0.25);
  }
  :host([mode='bubble'][position^='top']) .launcher {
    inset-block: var(--edge) auto;
  }
  :host([mode='bubble'][position^='top']) .chat {
    inset-block: calc(var(--edge) + var(--size) + 12px) auto;
  }
  :host([mode='bubble'][position$='start']) :is(.launcher, .chat) {
    inset-inline: var(--edge) auto;
  }
  :host([mode='bubble'][position$='left']) :is(.launcher, .chat) {
    left: var(--edge);
    right: auto;
  }
  :host([mode='bubble'][position$='right']) :is(.launcher, .chat) {
    right: var(--edge);
    left: auto;
  }

  /* A small screen: the open chat fills the visible part of it, above the on-screen keyboard. */
  @media (max-width: 480px) {
    :host([mode='bubble'][open]) .chat {
      inset: var(--kagent-viewport-top, 0) 0 auto 0;
      width: 100%;
      height: var(--kagent-viewport-height, 100dvh);
      border-radius: 0;
    }
    :host([mode='bubble'][open]) .launcher {
      display: none;
    }
  }

  @media (prefers-reduced-motion: reduce) {
    * {
      scroll-behavior: auto !important;
      transition: none !important;
    }
  }
`;
