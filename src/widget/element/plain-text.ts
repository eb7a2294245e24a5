// Text shown without the markdown renderer: a welcome message with no markup
// (so the first part shows it at once), and answers when the renderer could
// not be fetched (so they stay readable). Text nodes only, never markup.

/** Anything markdown could make more of than one paragraph of the same words: markup characters, line breaks, a list or code start, an autolink. */
const MARKDOWN_SIGNS = /[\\`*_~[\]<>&#|@\n\r]|:\/\/|www\.|^\s{4}|^\s*([-+]|\d+[.)])(\s|$)/;

/** Whether `text` renders as markdown to one paragraph of the same words. */
export const isPlainText = (text: string): boolean => !MARKDOWN_SIGNS.test(text);

/** `text` as paragraphs, one per line. */
export const plainTextNodes = (text: string): Node[] =>
  text
    .split(/[\r\n]+/)
    .filter((line) => line.trim())
    .map((line) => {
      const paragraph = document.createElement('p');
      paragraph.textContent = line.trim();
      return paragraph;
    });
