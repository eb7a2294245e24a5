// Part of the answer engine (the chat's second part): the styles of what only it draws (markdown's
// blocks, the `[n]` markers and their cards, the list of sources, the feedback buttons). Plain text, not Lit's `css`: the second part imports
// nothing the first does; each chat adopts the sheet once the engine is here (engine-ready.ts, `adopt`).
// `css` is only a name for the build's style minifier (vite.config.ts) to find the text by.
const css = String.raw;

export const answerCss = css`
  /* Markdown's elements are styled by tag alone: in the chat's shadow root only answers and the welcome message draw them. */
  /*
   * A code block or a table scrolls inside the chat and never widens it: inline-size containment leaves their
   * width out of the chat's own minimum (a column sized by its content would grow to a long line of code).
   * Code reads left to right from its start on a right-to-left page too.
   */
  pre {
    contain: inline-size;
    direction: ltr;
    text-align: left;
    overflow-x: auto;
    background: var(--kagent-code-surface);
    padding: 8px 10px;
    border-radius: 6px;
  }
  code {
    font-size: 0.9em;
    direction: ltr;
    unicode-bidi: isolate;
  }
  table {
    border-collapse: collapse;
    display: block;
    contain: inline-size;
    overflow-x: auto;
  }
  th,
  td {
    border: 1px solid var(--kagent-border);
    padding: 3px 8px;
    /* Words stay whole in a cell: a wide table scrolls rather than breaking them mid-letter. */
    overflow-wrap: normal;
  }
  /* Links are drawn only here: in answers, the welcome message's markdown and the list of sources. */
  a {
    color: var(--kagent-accent);
  }
  img {
    max-width: 100%;
  }
  blockquote {
    margin: 0;
    padding-inline-start: 10px;
    border-inline-start: 3px solid var(--kagent-border);
    color: var(--kagent-muted);
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
  /* "Helpful?" and its thumbs; the comment field opens on a line of its own below them. */
  .feedback {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px;
    margin-top: 6px;
    font-size: 13px;
    color: var(--kagent-muted);
  }
  .feedback [aria-pressed='true'] {
    border-color: var(--kagent-accent);
    background: var(--kagent-question-surface);
  }
  .feedback form:not([hidden]) {
    display: flex;
    flex-basis: 100%;
    gap: 6px;
  }
  .feedback label {
    flex: 1;
  }
  .feedback input {
    font: inherit;
    width: 100%;
    box-sizing: border-box;
  }
  :host([feedback='off']) .feedback {
    display: none;
  }
`;

let sheet: CSSStyleSheet | undefined;

/** The answer styles as one sheet, shared by every chat on the page (made on first call: importing stays SSR-safe). */
export function answerStyleSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(answerCss);
  }
  return sheet;
}
