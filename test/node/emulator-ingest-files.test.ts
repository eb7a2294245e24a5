import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { extractDocument, type ExtractedDocument } from '../../emulator/src/ingest/index.js';
import { refusal } from '../support/ingest-refusal.js';
import type { UploadMimeType } from '../../src/protocol/index.js';
import {
  MIME,
  UNIQUE,
  makeDocx,
  makeEncryptedOffice,
  makeEncryptedPdf,
  makeLegacyDoc,
  makePdf,
  makePptx,
  makeXlsx,
  prose,
  smallSamples,
  text,
  type SampleKind,
} from '../fixtures/ingest/samples.js';

const samples = await smallSamples();

const read = (kind: SampleKind, bytes: Uint8Array = samples[kind].bytes) =>
  extractDocument({ bytes, mimeType: MIME[kind], fileName: samples[kind].fileName });

const allText = (doc: ExtractedDocument) => doc.pages.map((page) => page.text).join('\n\n');


describe('extractDocument reads every upload type', () => {
  it('reads a PDF page by page, with page numbers, the page count and its title', async () => {
    const doc = await read('pdf');
    assert.equal(doc.totalPages, 2);
    assert.deepEqual(doc.pages.map((page) => page.pageNumber), [1, 2]);
    assert.ok(doc.pages[0]!.text.startsWith(UNIQUE.pdf));
    assert.ok(!doc.pages[1]!.text.includes(UNIQUE.pdf), 'the first page text stays on page 1');
    assert.ok(doc.pages[1]!.text.includes(prose(4, 3)[0]!));
    assert.equal(doc.title, 'Harbour log');
  });

  it('reads a Word document: heading, paragraphs and table rows, no markup', async () => {
    const doc = await read('docx');
    const body = allText(doc);
    assert.ok(body.startsWith('Results\n\n'), body);
    assert.ok(body.includes(UNIQUE.docx));
    assert.match(body, /^Region \| Growth$/m);
    assert.match(body, /^North \| 11%$/m);
    assert.doesNotMatch(body, /<[a-z]/);
    assert.equal(doc.title, 'Annual report');
  });

  it('reads a presentation slide by slide, with speaker notes, in presentation order', async () => {
    const doc = await read('pptx');
    assert.equal(doc.totalPages, 2);
    assert.deepEqual(doc.pages.map((page) => page.pageNumber), [1, 2]);
    assert.equal(doc.pages[0]!.text, `Roadmap\n${UNIQUE.pptx}\n\nNotes: Mention the staffing plan.`);
    assert.ok(doc.pages[1]!.text.startsWith('Risks\n'));
    assert.equal(doc.title, 'Roadmap 2025');
  });

  it('reads a workbook sheet by sheet, each row a line with its headers, dates as dates', async () => {
    const doc = await read('xlsx');
    assert.equal(doc.pages.length, 1, 'the empty sheet is left out');
    assert.equal(doc.pages[0]!.text, `Birds\nName | Seen | Count\nName: ${UNIQUE.xlsx}; Seen: 2024-03-05; Count: 3\nName: Robin; Seen: 2024-03-06; Count: 12`);
    assert.equal(doc.title, 'Animal census');
  });

  it('reads CSV rows as lines with their headers, quoted commas kept inside their cell', async () => {
    const doc = await read('csv');
    assert.equal(allText(doc), `name | habitat | count\nname: ${UNIQUE.csv}; habitat: cliffs, coast; count: 4\nname: Sparrow; habitat: town; count: 120`);
  });

  it('detects a semicolon-separated CSV and names columns without a header', async () => {
    const doc = await read('csv', text('city;country;;\nOslo;Norway;;extra\n'));
    assert.equal(allText(doc), 'city | country\ncity: Oslo; country: Norway; Column D: extra');
  });

  it('reads JSON as key paths and one line per record', async () => {
    const doc = await read('json');
    assert.equal(allText(doc), `zoo: City zoo\nanimals 1: name: ${UNIQUE.json}; age: 4\nanimals 2: name: Grey seal; age: 9`);
    const nested = await read('json', text(JSON.stringify({ shop: { name: 'Corner', tags: ['tea', 'cake'], open: true, owner: null } })));
    assert.equal(allText(nested), 'shop.name: Corner\nshop.tags: tea, cake\nshop.open: true');
  });

  it('reads JSON Lines as one line per record', async () => {
    const doc = await read('json', text('{"event":"login","user":"ada"}\n{"event":"logout","user":"ada"}\n'));
    assert.equal(allText(doc), 'event: login; user: ada\nevent: logout; user: ada');
  });

  it('reads Markdown as the text a reader sees, without markup but inline code in its backticks, and takes the first heading as title', async () => {
    const doc = await read('markdown');
    assert.equal(allText(doc), `Widget guide\n\n${UNIQUE.markdown.replace('script', '`script`')}\n\n- Docs`);
    assert.equal(doc.title, 'Widget guide');
    const table = await read('markdown', text('| Plan | Price |\n|---|---|\n| Pro | 20 |\n\n<div>Kept <script>alert(1)</script>text</div>\n'));
    assert.equal(allText(table), 'Plan | Price\nPlan: Pro; Price: 20\n\nKept text');
  });

  it('reads plain text with Windows line ends as text with \\n line ends', async () => {
    const doc = await read('text');
    assert.ok(allText(doc).startsWith(`${UNIQUE.text}\nGranite`));
    assert.ok(!allText(doc).includes('\r'));
  });

  it('reads UTF-16 text by its byte-order mark and Latin-1 text that is not valid UTF-8', async () => {
    const utf16 = new Uint8Array([0xff, 0xfe, ...new Uint8Array(Buffer.from('naïve café', 'utf16le'))]);
    assert.equal(allText(await read('text', utf16)), 'naïve café');
    assert.equal(allText(await read('text', new Uint8Array(Buffer.from('caf\xe9 cr\xe8me', 'latin1')))), 'café crème');
  });
});

describe('extractDocument refuses what it cannot read, with the reason', () => {
  const kinds = Object.keys(MIME) as SampleKind[];

  for (const kind of kinds) {
    it(`refuses an empty ${kind} file`, async () => {
      assert.match(await refusal(read(kind, new Uint8Array())), /is empty$/);
    });
  }

  for (const kind of kinds) {
    it(`refuses random bytes sent as ${kind}`, async () => {
      const garbage = new Uint8Array(20_000);
      for (let index = 0; index < garbage.length; index++) garbage[index] = (index * 7919 + 13) % 251;
      const reason = await refusal(read(kind, garbage));
      assert.match(reason, /^not (a|valid|a readable) /);
    });
  }

  it('says what a mislabelled file really is', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    assert.equal(await refusal(read('pdf', png)), 'not a PDF file: it looks like a PNG image');
    assert.equal(await refusal(read('docx', samples.xlsx.bytes)), 'not a .docx file: it is an Excel workbook (.xlsx)');
    assert.equal(await refusal(read('pptx', samples.docx.bytes)), 'not a .pptx file: it is a Word document (.docx)');
    assert.equal(await refusal(read('xlsx', samples.pdf.bytes)), 'not a .xlsx file: it looks like a PDF file');
    assert.equal(await refusal(read('csv', samples.xlsx.bytes)), 'not a CSV file: it looks like a ZIP archive');
    assert.equal(await refusal(read('docx', zipSync({ 'notes.txt': text('hello') }))), 'not a .docx file: it is a ZIP archive without an Office document inside');
  });

  it('refuses a password-protected PDF and says so', async () => {
    assert.equal(await refusal(read('pdf', await makeEncryptedPdf())), 'the PDF file is password-protected: remove the password and upload it again');
  });

  it('refuses password-protected and legacy Office files and says which', async () => {
    assert.equal(await refusal(read('xlsx', makeEncryptedOffice())), 'the .xlsx file is password-protected: remove the password and upload it again');
    assert.equal(await refusal(read('docx', makeLegacyDoc())), 'not a .docx file: it looks like a legacy Office file (.doc); save it as .docx and upload it again');
  });

  it('refuses damaged files: a PDF and Office files cut in half', async () => {
    const half = (bytes: Uint8Array) => bytes.slice(0, Math.floor(bytes.length / 2));
    assert.equal(await refusal(read('pdf', half(samples.pdf.bytes))), 'not a readable PDF file: its structure is damaged');
    for (const kind of ['docx', 'pptx', 'xlsx'] as const) {
      assert.match(await refusal(read(kind, half(samples[kind].bytes))), /^not a readable \.\w+ file: the ZIP package is damaged/);
    }
  });

  it('refuses invalid JSON with the parser reason', async () => {
    assert.match(await refusal(read('json', text('{"name": "unterminated'))), /^not valid JSON: /);
  });

  it('refuses a PDF without text (scanned pages) with a hint', async () => {
    assert.equal(await refusal(read('pdf', await makePdf([[]]))), 'no readable text in the PDF file (scanned pages are images; text recognition is not supported)');
  });

  it('refuses an Office file that claims to unpack to gigabytes before inflating anything', async () => {
    const zip = zipSync({ 'word/document.xml': text('<w:document/>') });
    // Rewrite the central directory's "uncompressed size" of the one entry to 2 GB.
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    const central = view.getUint32(zip.length - 22 + 16, true);
    view.setUint32(central + 24, 0x7fffffff, true);
    assert.match(await refusal(read('docx', zip)), /^the \.docx file unpacks to 2048 MB, more than the 512 MB allowed$/);
  });

  it('refuses a file larger than the size limit without reading it', async () => {
    assert.equal(await refusal(extractDocument({ ...samples.text }, { maxFileBytes: 10 })), `the file is ${(samples.text.bytes.length / 1048576).toFixed(1)} MB, more than the 0.0 MB allowed`);
  });

  it('gives up on a file that takes too long, and reads the next file normally', async () => {
    const pages = Array.from({ length: 40 }, (_, index) => prose(40, index + 10));
    const big = await makePdf(pages);
    const started = performance.now();
    assert.equal(await refusal(extractDocument({ bytes: big, mimeType: MIME.pdf, fileName: 'big.pdf' }, { timeoutMs: 30 })), 'reading the file took longer than 30 ms');
    assert.ok(performance.now() - started < 5_000, 'the timeout stops the work');
    const doc = await read('pdf');
    assert.ok(doc.pages[0]!.text.startsWith(UNIQUE.pdf));
  });

  it('refuses a file whose reading needs more memory than allowed, and stays usable', async () => {
    const rows = Array.from({ length: 60_000 }, (_, index) => [`row ${index} ${'x'.repeat(40)}`, index, index * 2]);
    const big = makeXlsx([{ name: 'Big', rows: [['Name', 'A', 'B'], ...rows] }]);
    assert.match(await refusal(extractDocument({ bytes: big, mimeType: MIME.xlsx, fileName: 'big.xlsx' }, { maxMemoryMb: 24 })), /^reading the file needs more than the 24 MB of memory allowed$/);
    const doc = await read('xlsx');
    assert.ok(allText(doc).includes(UNIQUE.xlsx));
  });

  it('refuses a type outside the eight', async () => {
    assert.equal(await refusal(extractDocument({ bytes: text('x'), mimeType: 'image/png' as UploadMimeType, fileName: 'x.png' })), 'unsupported file type: image/png');
  });
});

describe('extractDocument runs readers side by side', () => {
  it('reads many files at once, each to its own text', async () => {
    const docs = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        extractDocument({ bytes: text(`file number ${index}`), mimeType: MIME.text, fileName: `f${index}.txt` }),
      ),
    );
    assert.deepEqual(docs.map(allText), Array.from({ length: 6 }, (_, index) => `file number ${index}`));
  });

  it('reads slides in the order the presentation lists them, not by file name', async () => {
    const slides = Array.from({ length: 12 }, (_, index) => ({ title: `Slide ${index + 1}`, body: [`Body ${index + 1}`] }));
    const parts = unzipSync(await makePptx(slides));
    // Reorder the slide list the way PowerPoint does when slides are dragged: reverse it.
    const presentation = strFromU8(parts['ppt/presentation.xml']!);
    const ids = presentation.match(/<p:sldId [^>]*\/>/g)!;
    assert.equal(ids.length, 12);
    const reordered = presentation.replace(ids.join(''), [...ids].reverse().join(''));
    assert.notEqual(reordered, presentation);
    parts['ppt/presentation.xml'] = strToU8(reordered);
    const doc = await read('pptx', zipSync(parts));
    assert.deepEqual(doc.pages.map((page) => page.text.split('\n')[0]), slides.map((slide) => slide.title).reverse());
    assert.deepEqual(doc.pages.map((page) => page.pageNumber), slides.map((_, index) => index + 1));
  });

  it('reads a Word document made of many paragraphs completely', async () => {
    const paragraphs = prose(400, 99);
    const doc = await read('docx', await makeDocx({ heading: 'Long', paragraphs }));
    assert.equal(allText(doc), ['Long', ...paragraphs].join('\n\n'));
  });
});
