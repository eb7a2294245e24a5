import { Parser } from 'htmlparser2';

/** The readable parts of an HTML page. */
export interface HtmlText {
  /** The `<title>`, else the first `<h1>`, whitespace collapsed; "" when neither exists. */
  title: string;
  /** The visible text, one block per line, paragraphs separated by a blank line. */
  text: string;
  /** Absolute `http(s)` addresses of `<a href>` links (fragment removed, first occurrence only, `rel="nofollow"` left out). */
  links: string[];
  /** `<meta name="robots">` asks not to index the page. */
  noIndex: boolean;
  /** `<meta name="robots">` asks not to follow its links. */
  noFollow: boolean;
}

// Elements whose content is never readable text.
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'canvas', 'iframe', 'object', 'embed', 'audio', 'video', 'select', 'button', 'nav', 'title']);
// Elements that start a new paragraph.
const PARAGRAPH = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'table', 'ul', 'ol', 'dl', 'figure', 'section', 'article', 'header', 'footer', 'main', 'aside', 'form', 'fieldset', 'details', 'address', 'hr']);
// Elements that start a new line.
const LINE = new Set(['div', 'li', 'tr', 'dt', 'dd', 'figcaption', 'summary', 'caption', 'legend', 'br', 'body', 'option', 'label']);

/**
 * The readable text, title and links of an HTML document. `baseUrl` resolves relative links
 * (a `<base href>` in the page takes precedence). Never runs anything in the page.
 */
export function htmlToText(html: string, baseUrl?: string): HtmlText {
  const parts: string[] = [];
  const links: string[] = [];
  const seenLinks = new Set<string>();
  let base = baseUrl;
  let hiddenDepth = 0;
  let preDepth = 0;
  let pendingBreak = 0;
  let atLineStart = true;
  let cellInRow = 0;
  let cellDepth = 0;
  let title = '';
  let inTitle = false;
  let titleDone = false;
  let firstHeading: string | undefined;
  let headingText: string[] | undefined;
  let noIndex = false;
  let noFollow = false;
  // Hidden elements are tracked by name so a stray close tag cannot end hiding early.
  const hiddenStack: string[] = [];

  const requestBreak = (size: number) => {
    // Inside a table cell, blocks run on with a space so each row stays on one line.
    if (cellDepth > 0) {
      if (parts.length > 0 && !/\s$/.test(parts[parts.length - 1]!)) parts.push(' ');
      return;
    }
    if (parts.length > 0) pendingBreak = Math.max(pendingBreak, size);
  };

  const write = (raw: string) => {
    let text = raw;
    if (preDepth === 0) {
      text = text.replace(/\s+/g, ' ');
      if (atLineStart || pendingBreak || /\s$/.test(parts[parts.length - 1] ?? '')) text = text.trimStart();
      if (text === '') return;
    }
    if (pendingBreak) {
      parts.push(pendingBreak >= 2 ? '\n\n' : '\n');
      pendingBreak = 0;
    }
    parts.push(text);
    atLineStart = text.endsWith('\n');
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        // Only the document's own <title> names it, not an SVG's.
        if (name === 'title' && hiddenDepth === 0 && !titleDone) inTitle = true;
        if (name === 'base' && attributes.href) base = resolve(attributes.href, base) ?? base;
        if (name === 'meta' && attributes.name?.toLowerCase() === 'robots') {
          const directives = (attributes.content ?? '').toLowerCase();
          noIndex ||= /\b(noindex|none)\b/.test(directives);
          noFollow ||= /\b(nofollow|none)\b/.test(directives);
        }
        if (hiddenDepth > 0 || HIDDEN.has(name) || 'hidden' in attributes || attributes['aria-hidden'] === 'true') {
          hiddenDepth++;
          hiddenStack.push(name);
          return;
        }
        if (name === 'a' && attributes.href && !/\bnofollow\b/i.test(attributes.rel ?? '')) {
          const address = resolve(attributes.href, base);
          if (address && !seenLinks.has(address)) {
            seenLinks.add(address);
            links.push(address);
          }
        }
        if (name === 'h1' && firstHeading === undefined) headingText = [];
        if (name === 'pre') preDepth++;
        if (PARAGRAPH.has(name)) requestBreak(2);
        else if (LINE.has(name)) requestBreak(1);
        if (name === 'tr') cellInRow = 0;
        if (name === 'td' || name === 'th') {
          if (cellInRow++ > 0) write(' | ');
          cellDepth++;
        }
        if (name === 'li') write('- ');
        if (name === 'img' && attributes.alt?.trim()) write(` ${attributes.alt.trim()} `);
      },
      ontext(text) {
        if (inTitle) {
          title += text;
          return;
        }
        if (hiddenDepth > 0) return;
        headingText?.push(text);
        write(text);
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          titleDone = true;
        }
        if (hiddenDepth > 0) {
          if (hiddenStack[hiddenStack.length - 1] === name) {
            hiddenStack.pop();
            hiddenDepth--;
          }
          return;
        }
        if (name === 'h1' && headingText) {
          firstHeading = collapse(headingText.join(''));
          headingText = undefined;
        }
        if (name === 'pre' && preDepth > 0) preDepth--;
        if ((name === 'td' || name === 'th') && cellDepth > 0) cellDepth--;
        if (PARAGRAPH.has(name)) requestBreak(2);
        else if (LINE.has(name)) requestBreak(1);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  const text = parts
    .join('')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: collapse(title) || firstHeading || '', text, links, noIndex, noFollow };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** An absolute http(s) address without its #fragment, or `undefined` for other schemes and bad addresses. */
function resolve(href: string, base?: string): string | undefined {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    // "page?" and "page" are the same request.
    if (!url.search) url.search = '';
    return url.href;
  } catch {
    return undefined;
  }
}
