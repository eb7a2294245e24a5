import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentText, splitIntoFragments, type ExtractedDocument, type TextFragment } from '../../emulator/src/ingest/index.js';
import { extractMarkdown } from '../../emulator/src/ingest/markdown.js';
import { prose } from '../fixtures/ingest/samples.js';

const isSpace = (char: string | undefined) => char === undefined || /\s/.test(char);

/** Checks what every split must hold: text found at its offset, size bound, no edge spaces, no character left out. */
function checkSplit(doc: ExtractedDocument, fragments: TextFragment[], size: number): void {
  const whole = documentText(doc);
  const covered = new Uint8Array(whole.length);
  for (const fragment of fragments) {
    assert.equal(whole.slice(fragment.offset, fragment.offset + fragment.text.length), fragment.text, `fragment at ${fragment.offset} is not the text at its offset`);
    assert.ok(fragment.text.length <= size, `fragment at ${fragment.offset} has ${fragment.text.length} > ${size} characters`);
    assert.equal(fragment.text, fragment.text.trim(), 'fragments have no leading or trailing space');
    covered.fill(1, fragment.offset, fragment.offset + fragment.text.length);
  }
  for (let index = 0; index < whole.length; index++) {
    if (!covered[index] && !isSpace(whole[index])) assert.fail(`character ${index} (${JSON.stringify(whole.slice(index, index + 20))}) is in no fragment`);
  }
}

describe('splitIntoFragments', () => {
  const article: ExtractedDocument = { pages: [{ text: prose(300, 7).join(' ') + '\n\n' + prose(200, 8).join('\n') }] };

  it('covers the whole document with fragments found at their offsets, none longer than the size', () => {
    for (const [size, overlap] of [[1000, 200], [300, 50], [120, 0], [64, 16]] as const) {
      checkSplit(article, splitIntoFragments(article, { size, overlap }), size);
    }
  });

  it('uses 1000 characters with 200 of overlap by default', () => {
    const fragments = splitIntoFragments(article);
    checkSplit(article, fragments, 1000);
    assert.ok(fragments.every((fragment, index) => index === fragments.length - 1 || fragment.text.length > 500));
    const first = fragments[0]!;
    const second = fragments[1]!;
    const shared = first.offset + first.text.length - second.offset;
    assert.ok(shared > 100 && shared <= 200, `fragments share ${shared} characters`);
  });

  it('repeats the end of each fragment at the start of the next', () => {
    const fragments = splitIntoFragments(article, { size: 300, overlap: 60 });
    for (let index = 1; index < fragments.length; index++) {
      const previous = fragments[index - 1]!;
      const end = previous.offset + previous.text.length;
      assert.ok(fragments[index]!.offset < end, `fragment ${index} does not overlap the one before`);
      assert.ok(fragments[index]!.offset > previous.offset, 'fragments move forward');
    }
  });

  it('without overlap, fragments follow each other without sharing text', () => {
    const fragments = splitIntoFragments(article, { size: 300, overlap: 0 });
    for (let index = 1; index < fragments.length; index++) {
      const previous = fragments[index - 1]!;
      assert.ok(fragments[index]!.offset >= previous.offset + previous.text.length);
    }
  });

  it('ends fragments at sentence ends and starts them at word starts', () => {
    const text = prose(200, 3).join(' ');
    const doc = { pages: [{ text }] };
    const fragments = splitIntoFragments(doc, { size: 400, overlap: 80 });
    for (const fragment of fragments.slice(0, -1)) assert.ok(fragment.text.endsWith('.'), `ends mid-sentence: …${fragment.text.slice(-30)}`);
    for (const fragment of fragments) assert.ok(isSpace(text[fragment.offset - 1]), `starts mid-word: ${fragment.text.slice(0, 30)}…`);
  });

  it('prefers a paragraph break to a sentence end', () => {
    const first = prose(5, 1).join(' ');
    const doc = { pages: [{ text: `${first}\n\n${prose(20, 2).join(' ')}` }] };
    const fragments = splitIntoFragments(doc, { size: first.length + 60, overlap: 0 });
    assert.equal(fragments[0]!.text, first);
  });

  it('keeps fragments within a page and gives each its page number', () => {
    const doc: ExtractedDocument = {
      pages: [
        { text: prose(30, 1).join(' '), pageNumber: 1 },
        { text: '   ', pageNumber: 2 },
        { text: prose(30, 2).join(' '), pageNumber: 3 },
      ],
      totalPages: 3,
    };
    const fragments = splitIntoFragments(doc, { size: 200, overlap: 40 });
    checkSplit(doc, fragments, 200);
    const whole = documentText(doc);
    const pageStart = whole.indexOf(doc.pages[2]!.text);
    for (const fragment of fragments) {
      assert.equal(fragment.pageNumber, fragment.offset >= pageStart ? 3 : 1);
      assert.ok(fragment.offset >= pageStart || fragment.offset + fragment.text.length <= doc.pages[0]!.text.length, 'a fragment spans two pages');
    }
    assert.ok(!fragments.some((fragment) => fragment.pageNumber === 2), 'a blank page makes no fragment');
  });

  it('leaves out page numbers for documents without pages', () => {
    const fragments = splitIntoFragments({ pages: [{ text: 'short note' }] });
    assert.deepEqual(fragments, [{ text: 'short note', offset: 0 }]);
  });

  it('cuts text without any space at the size, never inside a character', () => {
    const emoji = '😀'.repeat(500);
    const doc = { pages: [{ text: emoji }] };
    const fragments = splitIntoFragments(doc, { size: 101, overlap: 11 });
    checkSplit(doc, fragments, 101);
    for (const fragment of fragments) assert.ok(!/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(fragment.text), 'a fragment splits a surrogate pair');
  });

  it('makes no fragment from an empty or blank document', () => {
    assert.deepEqual(splitIntoFragments({ pages: [] }), []);
    assert.deepEqual(splitIntoFragments({ pages: [{ text: ' \n\t ' }] }), []);
  });

  it('refuses options that cannot make progress', () => {
    assert.throws(() => splitIntoFragments(article, { size: 0 }), RangeError);
    assert.throws(() => splitIntoFragments(article, { size: 100, overlap: 100 }), RangeError);
    assert.throws(() => splitIntoFragments(article, { size: 10.5 }), RangeError);
    assert.throws(() => splitIntoFragments(article, { overlap: -1 }), RangeError);
  });

  it('splits a few megabytes of text in one paragraph', () => {
    const big = { pages: [{ text: prose(40_000, 5).join(' ') }] };
    checkSplit(big, splitIntoFragments(big), 1000);
  });
});

describe('splitIntoFragments with sections (Markdown headings)', () => {
  const split = (markdown: string) => splitIntoFragments(extractMarkdown(new TextEncoder().encode(markdown)));

  it('starts every section with a fragment of its own that carries its titles, however short the section before', () => {
    const fragments = split(`# Guide\n\n${prose(3, 1).join(' ')}\n\n## Vercel\n\nDeploy it with the Vercel command.\n\n## Bun\n\nServe it with Bun.\n`);
    assert.deepEqual(
      fragments.map((fragment) => fragment.section),
      [['Guide'], ['Guide', 'Vercel'], ['Guide', 'Bun']],
    );
    assert.match(fragments[1]!.text, /^Vercel\s+Deploy it with the Vercel command\.$/);
    assert.match(fragments[2]!.text, /^Bun\s+Serve it with Bun\.$/);
  });

  it('keeps a heading with the subheading right under it, and gives the fragment the subheading\'s titles', () => {
    const fragments = split('# Guide\n\n## Install\n\nRun the installer.\n\n## Use\n\nCall it.\n');
    assert.deepEqual(
      fragments.map((fragment) => [fragment.section, fragment.text.replace(/\s+/g, ' ')]),
      [
        [['Guide', 'Install'], 'Guide Install Run the installer.'],
        [['Guide', 'Use'], 'Use Call it.'],
      ],
    );
  });
});
