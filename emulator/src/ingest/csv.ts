import Papa from 'papaparse';
import { decodeText } from './decode-text.js';
import type { ExtractedDocument } from './document.js';
import { IngestError } from './errors.js';
import { tableRowsToLines } from './table-rows.js';

/** A CSV file (delimiter detected: comma, semicolon, tab, pipe) as one readable line per row, with its headers. */
export function extractCsv(bytes: Uint8Array): ExtractedDocument {
  const source = decodeText(bytes, 'CSV file');
  const result = Papa.parse<string[]>(source, { skipEmptyLines: 'greedy', delimitersToGuess: [',', ';', '\t', '|'] });
  const rows = result.data;
  if (rows.length === 0) throw new IngestError('the CSV file has no rows');
  // Papa reports unclosed quotes but still returns its best reading; only a file it could not read at all is refused.
  const fatal = result.errors.find((error) => error.type === 'Quotes' && rows.length <= 1);
  if (fatal) throw new IngestError(`not a readable CSV file: ${fatal.message} (row ${fatal.row ?? 0})`);
  return { pages: [{ text: tableRowsToLines(rows).join('\n') }] };
}
