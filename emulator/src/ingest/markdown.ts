import { Lexer, type Token, type Tokens } from 'marked';
import { decodeText } from './decode-text.js';
import type { ExtractedDocument, SectionHeading } from './document.js';
import { htmlToText } from './html-text.js';

/**
 * A Markdown file as readable text: the words a reader sees, without the markup
 * (headings, list items, table rows and code kept; raw HTML reduced to its text, never run).
 * A paragraph is one line, a code block stays fenced and inline code keeps its backticks,
 * so a quote can tell prose from code and show code as code.
 * Headings, and bold labels opening a paragraph, are listed with their offsets, so fragments
 * can start at a section and carry its title.
 */
export function extractMarkdown(bytes: Uint8Array): ExtractedDocument {
  const source = decodeText(bytes, 'Markdown file');
  const tokens = new Lexer({ gfm: true }).lex(source);
  const blocks: string[] = [];
  const headings: SectionHeading[] = [];
  let length = 0;
  let depth = 0;
  let title: string | undefined;
  for (const token of tokens) {
    const block = blockText(token).trimEnd();
    if (!block.trim()) continue;
    const offset = blocks.length ? length + 2 : 0;
    if (token.type === 'heading') {
      const heading = token as Tokens.Heading;
      const text = inlineText(heading.tokens, false).trim();
      if (heading.depth === 1 && title === undefined) title = text;
      depth = heading.depth;
      headings.push({ offset, depth, title: text });
    } else if (token.type === 'paragraph') {
      const label = runInLabel(token as Tokens.Paragraph);
      if (label) headings.push({ offset, depth: Math.min(depth + 1, 7), title: label });
    }
    blocks.push(block);
    length = offset + block.length;
  }
  return { pages: [{ text: blocks.join('\n\n'), ...(headings.length ? { headings } : {}) }], ...(title ? { title } : {}) };
}

/** "**Search.** One index…": the bold words that name what a paragraph is about, without their stop. */
function runInLabel(paragraph: Tokens.Paragraph): string | undefined {
  const [first, second] = paragraph.tokens;
  if (first?.type !== 'strong' || !second) return undefined;
  const label = inlineText((first as Tokens.Strong).tokens, false).trim();
  if (!/[.:]$/.test(label) || label.length > 60) return undefined;
  return label.replace(/[.:]$/, '').trim() || undefined;
}

function blockText(token: Token): string {
  switch (token.type) {
    case 'space':
    case 'hr':
    case 'def':
      return '';
    case 'heading':
      // A title reads as words (it names a section); its code names lose their backticks.
      return inlineText((token as Tokens.Heading).tokens, false);
    case 'paragraph':
      return inlineText((token as Tokens.Paragraph).tokens);
    case 'code':
      return fencedCode(token as Tokens.Code);
    case 'blockquote':
      return (token as Tokens.Blockquote).tokens.map(blockText).filter((text) => text.trim()).join('\n\n');
    case 'list':
      return (token as Tokens.List).items.map((item) => listItemText(item)).join('\n');
    case 'table':
      return tableText(token as Tokens.Table);
    case 'html':
      return htmlToText((token as Tokens.HTML).text).text;
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inlineText(text.tokens) : unwrapped(text.text);
    }
    default:
      return 'tokens' in token && Array.isArray(token.tokens) ? token.tokens.map(blockText).join('\n') : String((token as { text?: unknown }).text ?? '');
  }
}

// The opening fence always names a language (`text` when the source gave none), so a bare
// fence is known to close a block, also in a fragment that starts inside the code.
function fencedCode(code: Tokens.Code): string {
  let longestRun = 0;
  for (const run of code.text.match(/`+/g) ?? []) longestRun = Math.max(longestRun, run.length);
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const language = /^[\w.+#-]+$/.test(code.lang?.trim() ?? '') ? code.lang!.trim() : 'text';
  return `${fence}${language}\n${code.text}\n${fence}`;
}

function listItemText(item: Tokens.ListItem): string {
  const body = item.tokens
    .map(blockText)
    .filter((text) => text.trim())
    .join('\n')
    .replace(/\n/g, '\n  ');
  const box = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
  return `- ${box}${body}`;
}

// Each body row becomes "Header: value; Header: value", so a row keeps its meaning on its own;
// the header line ("Header | Header") comes first, so an answer can show the rows as a table again.
function tableText(table: Tokens.Table): string {
  const headers = table.header.map((cell) => inlineText(cell.tokens, false).trim());
  const lines = [headers.filter(Boolean).join(' | ')];
  for (const row of table.rows) {
    const cells = row
      .map((cell, index) => {
        const value = inlineText(cell.tokens).trim();
        if (!value) return '';
        return headers[index] ? `${headers[index]}: ${value}` : value;
      })
      .filter(Boolean);
    if (cells.length) lines.push(cells.join('; '));
  }
  return lines.filter(Boolean).join('\n');
}

/** The words of inline tokens; `code`: inline code keeps its backticks (not in titles and column names). */
function inlineText(tokens: Token[] | undefined, code = true): string {
  if (!tokens) return '';
  return tokens.map((token) => inlineTokenText(token, code)).join('');
}

function inlineTokenText(token: Token, code: boolean): string {
  switch (token.type) {
    case 'br':
      return '\n';
    case 'codespan': {
      const text = unwrapped((token as Tokens.Codespan).text);
      return code ? codeSpan(text) : text;
    }
    case 'escape':
      return (token as Tokens.Escape).text;
    case 'image':
      return (token as Tokens.Image).text;
    case 'html':
      return htmlToText((token as Tokens.Tag).text).text;
    case 'checkbox':
      return '';
    case 'text':
      // A paragraph's wrapped source lines are one line of text; a hard break (`br`) stays a line end.
      return 'tokens' in token && Array.isArray(token.tokens) ? inlineText(token.tokens, code) : unwrapped((token as Tokens.Text).text);
    default:
      if ('tokens' in token && Array.isArray(token.tokens)) return inlineText(token.tokens, code);
      return String((token as { text?: unknown }).text ?? '');
  }
}

/** Inline code as Markdown: fenced by more backticks than any run inside, spaced when it starts or ends with one. */
export function codeSpan(text: string): string {
  let longestRun = 0;
  for (const run of text.match(/`+/g) ?? []) longestRun = Math.max(longestRun, run.length);
  const fence = '`'.repeat(longestRun + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Wrapped source lines joined into one. */
function unwrapped(text: string): string {
  return text.replace(/[ \t]*\n[ \t]*/g, ' ');
}
