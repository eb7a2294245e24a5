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
