import { createInflate } from 'node:zlib';
import { getDocumentProxy } from 'unpdf';
import type { ExtractedDocument, ExtractedPage } from './document.js';
import { IngestError, reasonOf } from './errors.js';
import { DEFAULT_TEXT_LIMITS, tooManyPages, tooMuchText, type TextLimits } from './text-limits.js';
import { looksLikeSuffix, recogniseFileKind } from './file-kind.js';

/** A PDF: one page of text per PDF page, with its number, the page count and the title it declares. */
export async function extractPdf(bytes: Uint8Array, limits: TextLimits = DEFAULT_TEXT_LIMITS): Promise<ExtractedDocument> {
  if (recogniseFileKind(bytes) !== 'a PDF file' && !headerWithinFirstKilobyte(bytes)) {
    throw new IngestError(`not a PDF file${looksLikeSuffix(bytes) || ': it does not start with %PDF-'}`);
  }
  await checkStreamSizes(bytes);
  // pdf.js takes ownership of the buffer it is given, so it gets a copy.
  const data = bytes.slice();
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(data, { verbosity: 0, isEvalSupported: false, stopAtErrors: false });
  } catch (error) {
    throw new IngestError(pdfReason(error));
  }
  try {
    // The page count a PDF declares is checked before any page is read: a 200,000-page tree is refused at once.
    if (pdf.numPages > limits.maxPages) throw tooManyPages('PDF file', pdf.numPages, limits);
    const pages: ExtractedPage[] = [];
    let characters = 0;
    for (let pageNumber = 1; pageNumber <= pdf.numPages; pageNumber++) {
      const page = await pdf.getPage(pageNumber);
      // Streamed, so a page whose content stream holds millions of text runs is stopped at the
      // text cap instead of being read whole first.
      const reader = page.streamTextContent().getReader();
      let text = '';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const item of value.items) {
            if (!('str' in item)) continue;
            text += item.str;
            if (item.hasEOL) text += '\n';
          }
          if (characters + text.length > limits.maxTextChars) throw tooMuchText('PDF file', characters + text.length, limits, 'characters of text (or more)');
        }
      } finally {
        await reader.cancel().catch(() => {});
      }
      pages.push({ text: text.replace(/[ \t]+\n/g, '\n').trim(), pageNumber });
      page.cleanup();
      characters += text.length;
    }
    const title = await declaredTitle(pdf);
    return { pages, totalPages: pdf.numPages, ...(title ? { title } : {}) };
  } catch (error) {
    if (error instanceof IngestError) throw error;
    throw new IngestError(`not a readable PDF file: ${reasonOf(error)}`);
  } finally {
    await pdf.destroy();
  }
}

async function declaredTitle(pdf: { getMetadata(): Promise<{ info: unknown }> }): Promise<string | undefined> {
  try {
    const { info } = await pdf.getMetadata();
    const title = (info as { Title?: unknown } | undefined)?.Title;
    return typeof title === 'string' && title.trim() ? title.trim() : undefined;
  } catch {
    return undefined;
  }
}

// PDF readers accept a header preceded by junk within the first 1024 bytes.
function headerWithinFirstKilobyte(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-');
}

function pdfReason(error: unknown): string {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'PasswordException') return 'the PDF file is password-protected: remove the password and upload it again';
  if (name === 'InvalidPDFException') return 'not a readable PDF file: its structure is damaged';
  return `not a readable PDF file: ${reasonOf(error)}`;
}

/** Most bytes one compressed stream of a PDF may unpack to (as for a part of an office file). */
export const MAX_PDF_STREAM_BYTES = 64 * 1024 * 1024;
/** Most bytes all of a PDF's compressed streams together may unpack to. */
export const MAX_PDF_UNPACKED_BYTES = 256 * 1024 * 1024;

/**
 * Unpacks each Flate stream of the PDF once, counting what comes out and keeping none of it,
 * before pdf.js reads the file: pdf.js decodes a stream whole into memory (a 0.9 MB file held
 * 256 MB of one stream and ran into the time limit), so a stream unpacking to more than
 * `MAX_PDF_STREAM_BYTES`, or streams to more than `MAX_PDF_UNPACKED_BYTES` together, are
 * refused at once with the reason. Streams cannot sit inside other streams (object streams
 * hold no streams), so scanning the file's bytes finds them all; a stream zlib cannot read is
 * left to pdf.js.
 */
async function checkStreamSizes(bytes: Uint8Array): Promise<void> {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  let position = 0;
  for (;;) {
    const keyword = file.indexOf('stream', position);
    if (keyword === -1) return;
    position = keyword + 6;
    // "endstream" closes a stream; only a "stream" keyword after a dictionary opens one.
    if (keyword >= 3 && file.toString('latin1', keyword - 3, keyword) === 'end') continue;
    const dictionary = file.toString('latin1', Math.max(0, keyword - 2048), keyword);
    const object = dictionary.lastIndexOf(' obj');
    if (!/\/FlateDecode/.test(object === -1 ? dictionary : dictionary.slice(object))) continue;
    let start = position;
    if (file[start] === 0x0d) start++;
    if (file[start] === 0x0a) start++;
    const end = file.indexOf('endstream', start);
    if (end === -1) return;
    position = end + 9;
    const unpacked = await unpackedSize(file.subarray(start, end), Math.min(MAX_PDF_STREAM_BYTES, MAX_PDF_UNPACKED_BYTES - total));
    if (unpacked === 'too large') {
      const objectNumber = /(\d+)\s+\d+\s+obj(?![\s\S]*\bobj)/.exec(dictionary)?.[1];
      throw new IngestError(
        total + MAX_PDF_STREAM_BYTES > MAX_PDF_UNPACKED_BYTES
          ? `the PDF file's compressed streams unpack to more than the ${MAX_PDF_UNPACKED_BYTES / 1048576} MB allowed together`
          : `the PDF file's stream${objectNumber ? ` (object ${objectNumber})` : ''} unpacks to more than the ${MAX_PDF_STREAM_BYTES / 1048576} MB allowed for one stream`,
      );
    }
    total += unpacked;
  }
}

/** How many bytes `data` inflates to, counted without keeping them; 'too large' past `cap`; 0 when zlib cannot read it. */
function unpackedSize(data: Uint8Array, cap: number): Promise<number | 'too large'> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: 64 * 1024 });
    let size = 0;
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        inflate.destroy();
        resolve('too large');
      }
    });
    inflate.on('end', () => resolve(size));
    // Damaged or not zlib at all: pdf.js has its own ways with such streams.
    inflate.on('error', () => resolve(size > cap ? 'too large' : 0));
    inflate.end(data);
  });
}
