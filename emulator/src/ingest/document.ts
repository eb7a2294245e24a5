/** One page of extracted text; `pageNumber` only for formats that have pages (PDF pages, PPTX slides). */
export interface ExtractedPage {
  text: string;
  pageNumber?: number;
  /** Where the page's sections start (formats that mark them: Markdown), in reading order. */
  headings?: SectionHeading[];
}

/** A heading, or the bold label that opens a paragraph ("**Search.** One index…"), and where its line starts in the page's text. */
export interface SectionHeading {
  offset: number;
  /** 1 to 6 for headings; a run-in label is one level below the heading above it. */
  depth: number;
  title: string;
}

/** The readable text of an uploaded file, page by page. */
export interface ExtractedDocument {
  pages: ExtractedPage[];
  /** How many pages the file has (PDF pages, PPTX slides). */
  totalPages?: number;
  /** The title the file declares about itself, when it has one. */
  title?: string;
}

/** What separates pages in the document text that fragment offsets count in. */
export const PAGE_SEPARATOR = '\n\n';

/** The whole text of a document, pages joined by `PAGE_SEPARATOR`; fragment offsets are positions in it. */
export function documentText(doc: ExtractedDocument): string {
  return doc.pages.map((page) => page.text).join(PAGE_SEPARATOR);
}
