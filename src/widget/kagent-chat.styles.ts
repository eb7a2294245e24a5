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
   * The chat's own box starts from scratch: a page that overrides the host's
   * \`all: initial\` (say \`* { all: revert }\`, or a font on the element) passes
   * nothing down. Sizes are in px, so \`html { font-size: 62.5% }\` changes nothing.
   */
  .chat {
    all: initial;
    color-scheme: inherit;
    visibility: visible;
    pointer-events: auto;
    color: var(--kagent-text);
    font: 15px/1.5 var(--kagent-font);
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  .chat {
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
  .header {
    display: flex;
    justify-content: flex-end;
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
  .markdown pre {
    overflow-x: auto;
    background: var(--kagent-code-surface);
    padding: 8px 10px;
    border-radius: 6px;
  }
  .markdown code {
    font-size: 0.9em;
  }
  .markdown table {
    border-collapse: collapse;
    display: block;
    overflow-x: auto;
  }
  .markdown th,
  .markdown td {
    border: 1px solid var(--kagent-border);
    padding: 3px 8px;
  }
  .markdown img {
    max-width: 100%;
  }
  .markdown blockquote {
    margin: 0;
    padding-inline-start: 10px;
    border-inline-start: 3px solid var(--kagent-border);
    color: var(--kagent-muted);
  }
  a {
    color: var(--kagent-accent);
  }
  .citation {
    position: relative;
    display: inline-block;
    min-width: 1.4em;
    margin: 0 1px;
    padding: 0 3px;
    border: 0;
    border-radius: 4px;
    background: var(--kagent-question-surface);
    color: var(--kagent-accent);
    font-size: 0.75em;
    line-height: 1.5;
    vertical-align: super;
    text-align: center;
    text-decoration: none;
  }
  .citation:focus-visible {
    outline: 2px solid var(--kagent-accent);
    outline-offset: 1px;
  }
  .citation-card {
    display: none;
    position: absolute;
    z-index: 1;
    inset-inline-start: 0;
    bottom: 1.8em;
    width: max-content;
    max-width: 260px;
    padding: 6px 8px;
    border-radius: 6px;
    background: var(--kagent-text);
    color: var(--kagent-surface);
    font-size: 12px;
    line-height: 1.4;
    text-align: start;
    white-space: normal;
  }
  .citation:hover .citation-card,
  .citation:focus-visible .citation-card {
    display: block;
  }
  .sources {
    margin: 6px 0 0;
    padding: 0;
    list-style: none;
    font-size: 13px;
    color: var(--kagent-muted);
  }
  .sources h3 {
    font-size: 12px;
    text-transform: uppercase;
    letter-spacing: 0.04em;
    margin: 8px 0 2px;
  }
  .sources ol {
    margin: 0;
    padding-inline-start: 1.4em;
  }
  .sources li:focus {
    outline: 2px solid var(--kagent-accent);
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
