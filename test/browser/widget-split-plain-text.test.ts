import { expect } from '@open-wc/testing';
import { isPlainText, plainTextNodes } from '../../src/widget/element/plain-text.js';
import { renderMarkdown } from '../../src/widget/answer-engine/markdown/incremental-markdown.js';

// The first part shows a welcome message without the markdown renderer when it is plain text:
// only if markdown would render it to exactly the same paragraph.
const html = (nodes: Node[]) => {
  const holder = document.createElement('div');
  holder.append(...nodes);
  // Spaces a browser collapses anyway (between tags, at a paragraph's ends) do not count.
  return holder.innerHTML.replace(/\s*(<[^>]+>)\s*/g, '$1').trim();
};

describe('welcome text shown without the markdown renderer', () => {
  it('is taken as plain only when markdown renders it to the same single paragraph', () => {
    const plain = [
      'Hello, ask me about the product.',
      'Hi! How can I help you today?',
      'Questions about invoices, plans or your account: ask away.',
      'Prices start at 10 € (VAT included); 2 plans - monthly or yearly.',
      'Bonjour, je réponds en français aussi.',
      '  Leading and trailing spaces are trimmed.  ',
    ];
    for (const text of plain) {
      expect(isPlainText(text), text).to.equal(true);
      expect(html(plainTextNodes(text)), text).to.equal(html(renderMarkdown(text)));
    }
  });

  it('leaves anything with markup to the renderer', () => {
    const markup = [
      '**Hello**',
      'Read [the docs](https://example.com)',
      'See https://example.com',
      'See www.example.com',
      'Mail help@example.com',
      '# Welcome',
      '- one item',
      '1. first',
      '> a quote',
      '    indented code',
      'Two\n\nparagraphs',
      'a line\nbreak',
      '<b>raw html</b>',
      'Fish &amp; chips',
      'a | table',
      '`code`',
      '~~struck~~',
      'snake_case_words',
      'back\\slash',
    ];
    for (const text of markup) expect(isPlainText(text), text).to.equal(false);
  });

  it('a fallback keeps every line as text, never as markup', () => {
    const nodes = plainTextNodes('**Settings** <img src=x onerror=alert(1)>\n\nSecond line');
    expect(nodes.map((node) => node.textContent)).to.deep.equal(['**Settings** <img src=x onerror=alert(1)>', 'Second line']);
    expect(nodes.every((node) => node.childNodes.length === 1 && node.firstChild!.nodeType === Node.TEXT_NODE)).to.equal(true);
  });
});
