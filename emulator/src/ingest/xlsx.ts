import readXlsxFile from 'read-excel-file/node';
import type { ExtractedDocument, ExtractedPage } from './document.js';
import { IngestError, reasonOf } from './errors.js';
import { openOfficePackage } from './office-package.js';
import { tableRowsToLines } from './table-rows.js';

type CellValue = string | number | boolean | Date | null | undefined;

/** An Excel workbook: one page per non-empty sheet, its name first, then one readable line per row with the headers. */
export async function extractXlsx(bytes: Uint8Array): Promise<ExtractedDocument> {
  const workbook = openOfficePackage(bytes, 'xlsx');
  let sheets: { sheet: string; data: CellValue[][] }[];
  try {
    sheets = (await readXlsxFile(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) as typeof sheets;
  } catch (error) {
    throw new IngestError(`not a readable .xlsx file: ${reasonOf(error)}`);
  }
  const pages: ExtractedPage[] = [];
  for (const { sheet, data } of sheets) {
    const lines = tableRowsToLines(data.map((row) => row.map(cellText)));
    if (lines.length > 0) pages.push({ text: `${sheet}\n${lines.join('\n')}` });
  }
  const title = workbook.title();
  return { pages, ...(title ? { title } : {}) };
}

function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return dateText(value);
  // 15 significant digits is what Excel shows; it hides binary rounding such as 0.30000000000000004.
  if (typeof value === 'number') return String(Number(value.toPrecision(15)));
  return String(value);
}

function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.replace(/\.000Z$/, 'Z').replace('T', ' ');
}
