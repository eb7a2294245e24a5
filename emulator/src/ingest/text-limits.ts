import { IngestError } from './errors.js';

/** Work caps on reading one file, so no single file can hold a reader or the store for long. */
export interface TextLimits {
  /** Most characters of text one file may yield (default 10 million); a file with more is refused. */
  maxTextChars: number;
  /** Most pages (PDF pages, slides) one file may have (default 5,000); a file with more is refused. */
  maxPages: number;
}

export const DEFAULT_TEXT_LIMITS: TextLimits = { maxTextChars: 10_000_000, maxPages: 5_000 };

/** The refusal of a file that yields more text than `maxTextChars`. */
export function tooMuchText(label: string, amount: number, limits: TextLimits, unit: string): IngestError {
  return new IngestError(`the ${label} holds ${millions(amount)} million ${unit}, more than the ${millions(limits.maxTextChars)} million characters of text allowed`);
}

/** The refusal of a file with more than `maxPages` pages or slides. */
export function tooManyPages(label: string, pages: number, limits: TextLimits): IngestError {
  return new IngestError(`the ${label} has ${pages} pages, more than the ${limits.maxPages} allowed`);
}

function millions(amount: number): string {
  return String(Number((amount / 1e6).toFixed(1)));
}
