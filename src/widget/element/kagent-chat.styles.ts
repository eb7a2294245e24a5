import { css } from 'lit';

export const styles = css`
  :host {
    /* Nothing the page's text styles would pass down (spacing, alignment, transforms) reaches the chat. */
    all: initial;
    /* Each colour is light-dark(light, dark); color-scheme (theme attribute or the visitor's setting) picks one. */
    color-scheme: light dark;
    --kagent-accent: light-dark(#2f5bea, #8ab4ff);
    --kagent-accent-text: light-dark(#fff, #0b1020);
    --kagent-text: light-dark(#1d2330, #e8eaf0);
    --kagent-muted: light-dark(#5b6475, #a9b1c1);
    --kagent-surface: light-dark(#fff, #16191f);
    --kagent-question-surface: light-dark(#eef2fd, #262d3d);
    --kagent-border: light-dark(#d9dde6, #3b4252);
    --kagent-danger: light-dark(#b42318, #ff9b8f);
    --kagent-code-surface: light-dark(#f5f6f8, #0f1115);
    --kagent-radius: 10px;
    --kagent-font: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    display: block;
    color: var(--kagent-text);
    font: 15px/1.5 var(--kagent-font);
    contain: content;
  }
  /*
   * Browsers without light-dark() (before Chrome 123, Safari 17.5, Firefox 120) would find every colour invalid
   * (a transparent panel): the light surface, text and accent there; the other colours fall back to the text's.
   */
  @supports not (color: light-dark(red, red)) {
    :host {
      --kagent-accent: #2f5bea;
      --kagent-accent-text: #fff;
      --kagent-text: #1d2330;
      --kagent-surface: #fff;
    }
  }
  /*
   * The chat's own box starts from scratch: a page that overrides the host's
   * \`all: initial\` (say \`* { all: revert }\`, or a font on the element) passes
   * nothing down. Sizes are in px, so \`html { font-size: 62.5% }\` changes nothing.
   */
  .chat {
    all: initial;
    color-scheme: inherit;
    color: var(--kagent-text);
    font: 15px/1.5 var(--kagent-font);
    box-sizing: border-box;
    display: flex;
    flex-direction: column;
    height: 100%;
    min-height: 320px;
    max-height: var(--kagent-max-height, 640px);
    background: var(--kagent-surface);
    border: 1px solid var(--kagent-border);
    border-radius: var(--kagent-radius);
    overflow: hidden;
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  .header {
    display: flex;
    align-items: center;
    gap: 8px;
    padding: 6px 8px;
    border-bottom: 1px solid var(--kagent-border);
  }
  button {
    font: inherit;
    cursor: pointer;
  }
  button:disabled {
    cursor: not-allowed;
    opacity: 0.55;
  }
  .quiet {
    border: 1px solid var(--kagent-border);
    background: transparent;
    color: var(--kagent-text);
    border-radius: 6px;
    padding: 2px 10px;
    font-size: 13px;
  }
  .transcript {
    flex: 1;
    overflow-y: auto;
    padding: 12px;
    display: flex;
    flex-direction: column;
    gap: 12px;
  }
  .empty {
    color: var(--kagent-muted);
    margin: auto;
    text-align: center;
    max-width: 30ch;
  }
  .question {
    align-self: flex-end;
    max-width: 85%;
    background: var(--kagent-question-surface);
    border-radius: var(--kagent-radius);
    padding: 8px 12px;
    white-space: pre-wrap;
    overflow-wrap: anywhere;
  }
  /* Holds what the second part draws under an answer (its sources, its feedback buttons), laid out as the turn's own children. */
  .below {
    display: contents;
  }
  .answer {
    max-width: 100%;
    overflow-wrap: anywhere;
  }
  .markdown > :first-child {
    margin-top: 0;
  }
  .markdown > :last-child {
    margin-bottom: 0;
  }
  .note {
    font-size: 13px;
    color: var(--kagent-muted);
    margin: 4px 0 0;
  }
  .failure {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 8px;
    color: var(--kagent-danger);
    font-size: 14px;
    margin: 4px 0 0;
  }
  form {
    display: flex;
    gap: 8px;
    padding: 10px;
    border-top: 1px solid var(--kagent-border);
  }
  textarea {
    flex: 1;
    resize: none;
    font: inherit;
    color: inherit;
    background: var(--kagent-surface);
    padding: 6px 10px;
    border: 1px solid var(--kagent-muted);
    border-radius: 6px;
    min-height: 2.5em;
    max-height: 8em;
  }
  .primary {
    border: 0;
    border-radius: 6px;
    padding: 0 16px;
    background: var(--kagent-accent);
    color: var(--kagent-accent-text);
  }
  .wait {
    margin: 0;
    padding: 0 12px 8px;
    font-size: 13px;
    color: var(--kagent-muted);
  }
`;
