import './sanitizer-ready.js';
import { expect } from '@open-wc/testing';
import { IncrementalMarkdown, renderMarkdown } from '../../src/widget/index.js';
import { markdownAnswer } from '../support/scripted-service.js';

// What a visitor sees while an answer streams: unfinished markdown of the
// last block is shown as it will end. Cut at every character, no render may
// show a marker the finished answer does not show at that place, nor a link
// to an address not yet complete.

/** Characters markdown uses as markers; shown mid-stream, each must be one the finished answer shows too. */
const MARKERS = /[*_`~[\]()|<>\\&#=!-]/g;

const markers = (text: string) => (text.match(MARKERS) ?? []).join('');

// Answers as models write them (reference links defined before use: a later definition cannot be known in advance).
const ANSWERS = [
  'To reset your password, open **Settings** and choose *Security*. Then click `Reset password` and follow the link in the e-mail.\n\n' +
    'If nothing arrives, check [the help page](https://example.com/help "Help") or write to support@example.com. See also ~~the old form~~ the new one [1].',
  '## Steps\n\n1. Open the **Account** page\n2. Choose *Billing* > `Invoices`\n3. Click [Export](https://example.com/export?format=csv&year=2024)\n\n' +
    '- [ ] check the totals\n- [x] send the file\n\nDone: ***all*** set, and _underscored_ words too.',
  '| Plan | Price | Notes |\n| :--- | ---: | --- |\n| Free | $0 | **basic** use |\n| Pro | $12 | `api` access |\n| Team | $40 | [details](https://example.com/team) |\n\nPrices are per month.',
  'Here is the code:\n\n```ts\nconst total = items.reduce((sum, item) => sum + item.price * item.count, 0);\nconsole.log(`total: ${total}`);\n```\n\n' +
    '> **Note:** the `reduce` call needs a start value.\n> Without it, an empty list throws.\n\nMore at https://developer.example.com/docs/reduce or www.example.org.',
  '[guide]: https://example.com/guide\n\nRead the [guide] first, then the [setup part][guide]. AT&T users: use &lt;port&gt; 8080 &amp; 8443.\n\n' +
    'Escapes like \\*this\\* stay literal; a line ends with two spaces  \nand goes on. ![Diagram](https://example.com/d.png) shows it.',
  'Intro paragraph with a footnote-like marker [2] and a nested **bold with *italic* inside** and `code with **stars**`.\n\n' +
    '* star list item with [a link](https://example.com/a_b_c)\n* another with ~single~ tilde\n\n---\n\nLast line with a trailing link [end](https://example.com/end).',
];

/** A holder with the nodes of rendering `text` at once. */
function wholeRender(text: string): HTMLElement {
  const holder = document.createElement('div');
  holder.append(...renderMarkdown(text));
  return holder;
}

/** Streams `text` a character at a time with a render after each, checking every render against the finished answer. */
function checkEveryCut(text: string): string[] {
  const problems: string[] = [];
  const finished = wholeRender(text);
  const finalMarkers = markers(finished.textContent!);
  const finalLinks = new Set([...finished.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')));
  const holder = document.createElement('div');
  const view = new IncrementalMarkdown(holder, { schedule: () => 0, cancel: () => {} });
  for (const character of text) {
    view.append(character);
    view.flush();
    const shown = markers(holder.textContent!);
    if (!finalMarkers.startsWith(shown)) problems.push(`after ${JSON.stringify(view.text.slice(-60))}: shows markers ${JSON.stringify(shown.slice(-12))}, the answer ${JSON.stringify(finalMarkers.slice(Math.max(0, shown.length - 12), shown.length))}\n   ${holder.innerHTML.slice(-200)}`);
    for (const link of holder.querySelectorAll('a[href]')) {
      if (!finalLinks.has(link.getAttribute('href'))) problems.push(`after ${JSON.stringify(view.text.slice(-60))}: a link to ${link.getAttribute('href')} before its address is complete`);
    }
  }
  return problems;
}

describe('incremental markdown, unfinished constructs shown as they will end', () => {
  it('never shows, at any cut, a marker the finished answer does not show there, nor a link to a partial address', function () {
    this.timeout(60_000);
    const answers = [...ANSWERS, ...[1, 2, 3].map((seed) => markdownAnswer(2000, seed))];
    const problems = answers.flatMap((text) => checkEveryCut(text).slice(0, 3));
    expect(problems, problems.slice(0, 12).join('\n')).to.deep.equal([]);
  });

  it('shows bold, code, struck text and a link text as such while their closing markers are still to come', () => {
    const holder = document.createElement('div');
    const view = new IncrementalMarkdown(holder, { schedule: () => 0, cancel: () => {} });
    const shownAfter = (fragment: string) => {
      view.append(fragment);
      view.flush();
      return holder.innerHTML;
    };
    expect(shownAfter('Open **Sett')).to.equal('<p>Open <strong>Sett</strong></p>\n');
    expect(shownAfter('ings** and `Res')).to.equal('<p>Open <strong>Settings</strong> and <code>Res</code></p>\n');
    expect(shownAfter('et` ~~old')).to.contain('<del>old</del>');
    expect(shownAfter('~~ [the help page](https://exa')).to.match(/the help page<\/p>\n$/);
    expect(holder.querySelector('a')).to.equal(null);
    expect(shownAfter('mple.com/help)')).to.contain('<a href="https://example.com/help"');
  });

  it('shows a table once its delimiter row is complete, and its rows as they complete', () => {
    const holder = document.createElement('div');
    const view = new IncrementalMarkdown(holder, { schedule: () => 0, cancel: () => {} });
    const after = (fragment: string) => {
      view.append(fragment);
      view.flush();
    };
    after('Prices:\n\n| Plan | Price |\n| --- | -');
    expect(holder.textContent).not.to.contain('|');
    after('-- |\n| Free | $');
    expect(holder.querySelectorAll('th')).to.have.length(2);
    expect(holder.querySelectorAll('td')).to.have.length(0);
    const header = holder.querySelector('thead');
    after('0 |\n| Pro');
    expect([...holder.querySelectorAll('td')].map((td) => td.textContent)).to.deep.equal(['Free', '$0']);
    // The rows shown before stay the same nodes.
    expect(holder.querySelector('thead')).to.equal(header);
  });
});
