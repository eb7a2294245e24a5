import type { UploadMimeType } from 'kagent-chat/protocol';
import type { ExtractedDocument } from './document.js';
import { IngestError, reasonOf } from './errors.js';
import { extractJson } from './json.js';
import { extractMarkdown } from './markdown.js';
import { extractPlainText } from './text.js';
import { DEFAULT_TEXT_LIMITS, tooManyPages, tooMuchText, type TextLimits } from './text-limits.js';

export { DEFAULT_TEXT_LIMITS, type TextLimits } from './text-limits.js';

// A text format decodes to at least a character for every 4 bytes (UTF-8): a file far larger
// than the text cap is refused before it is decoded or parsed.
const TEXT_TYPES = new Set<UploadMimeType>(['text/plain', 'text/markdown', 'text/csv', 'application/json']);

/** An uploaded file: its bytes, the upload type it was accepted as, and its name. */
export interface UploadedFile {
  bytes: Uint8Array;
  mimeType: UploadMimeType;
  fileName: string;
}

// The parsers of binary and table formats (and their libraries: about 30 MB in memory together)
// are loaded when a file of their type is first read, not by every emulator at start.
const EXTRACTORS: Record<UploadMimeType, { label: string; extract: (bytes: Uint8Array, limits: TextLimits) => ExtractedDocument | Promise<ExtractedDocument> }> = {
  'text/plain': { label: 'text file', extract: extractPlainText },
  'text/markdown': { label: 'Markdown file', extract: extractMarkdown },
  'text/csv': { label: 'CSV file', extract: async (bytes) => (await import('./csv.js')).extractCsv(bytes) },
  'application/json': { label: 'JSON file', extract: extractJson },
  'application/pdf': { label: 'PDF file', extract: async (bytes, limits) => (await import('./pdf.js')).extractPdf(bytes, limits) },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': { label: '.docx file', extract: async (bytes) => (await import('./docx.js')).extractDocx(bytes) },
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': { label: '.pptx file', extract: async (bytes, limits) => (await import('./pptx.js')).extractPptx(bytes, limits) },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { label: '.xlsx file', extract: async (bytes) => (await import('./xlsx.js')).extractXlsx(bytes) },
};

/**
 * Extracts the readable text of `file` in the calling thread. Every failure, including a
 * parser's own crash, comes out as an `IngestError` whose message says why.
 */
export async function extractInThisThread(file: UploadedFile, limits: TextLimits = DEFAULT_TEXT_LIMITS): Promise<ExtractedDocument> {
  const extractor = EXTRACTORS[file.mimeType];
  if (!extractor) throw new IngestError(`unsupported file type: ${String(file.mimeType)}`);
  if (file.bytes.byteLength === 0) throw new IngestError(`the ${extractor.label} is empty`);
  if (TEXT_TYPES.has(file.mimeType) && file.bytes.byteLength > limits.maxTextChars * 4) throw tooMuchText(extractor.label, file.bytes.byteLength, limits, 'bytes');
  let document: ExtractedDocument;
  try {
    document = await extractor.extract(file.bytes, limits);
  } catch (error) {
    if (error instanceof IngestError) throw error;
    throw new IngestError(`could not read the ${extractor.label}: ${reasonOf(error)}`);
  }
  if (document.pages.length > limits.maxPages) throw tooManyPages(extractor.label, document.pages.length, limits);
  const characters = document.pages.reduce((sum, page) => sum + page.text.length, 0);
  if (characters > limits.maxTextChars) throw tooMuchText(extractor.label, characters, limits, 'characters of text');
  if (!document.pages.some((page) => page.text.trim())) {
    const hint = file.mimeType === 'application/pdf' ? ' (scanned pages are images; text recognition is not supported)' : '';
    throw new IngestError(`no readable text in the ${extractor.label}${hint}`);
  }
  return document;
}

