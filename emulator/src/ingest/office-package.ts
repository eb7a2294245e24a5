import { IngestError } from './errors.js';
import { looksLikeSuffix, recogniseFileKind } from './file-kind.js';
import { xmlText } from './xml.js';
import { ZipError, inflateEntry, listZipEntries, type ZipEntry } from './zip-parts.js';

/** The three Office Open XML formats, by the folder their main part lives in. */
export type OfficeFormat = 'docx' | 'xlsx' | 'pptx';

const FORMAT_FOLDER: Record<OfficeFormat, string> = { docx: 'word/', xlsx: 'xl/', pptx: 'ppt/' };
const FORMAT_NAME: Record<OfficeFormat, string> = {
  docx: 'a Word document (.docx)',
  xlsx: 'an Excel workbook (.xlsx)',
  pptx: 'a PowerPoint presentation (.pptx)',
};

// An upload that unpacks to more than this is refused before anything is inflated (zip bombs).
export const MAX_UNPACKED_BYTES = 512 * 1024 * 1024;
// One XML part is read whole into a string and parsed: larger ones are refused (a 450 MB slide
// would hold a reader for minutes and gigabytes for text no one can search usefully).
export const MAX_XML_PART_BYTES = 64 * 1024 * 1024;
const MAX_ENTRIES = 50_000;

/** An Office Open XML file opened as the ZIP package it is, its parts read on demand. */
export interface OfficePackage {
  /** Every part's name, e.g. "ppt/slides/slide1.xml". */
  names: ReadonlySet<string>;
  /** The parts whose names pass `wanted`, decoded as UTF-8 text. */
  readParts(wanted: (name: string) => boolean): Map<string, string>;
  /** One part as text, or `undefined` when it does not exist. */
  readPart(name: string): string | undefined;
  /** The title in the package's core properties, when one is set. */
  title(): string | undefined;
}

/**
 * Opens `bytes` as an Office file of `format`, refusing with a clear reason anything else:
 * another file type, a password-protected or legacy Office file, a damaged ZIP, a ZIP of
 * another Office format, a package that would unpack to an unreasonable size.
 */
export function openOfficePackage(bytes: Uint8Array, format: OfficeFormat): OfficePackage {
  const label = `.${format} file`;
  if (recogniseFileKind(bytes)?.startsWith('an OLE')) throw new IngestError(oleReason(bytes, format));
  if (!(bytes[0] === 0x50 && bytes[1] === 0x4b)) throw new IngestError(`not a ${label}${looksLikeSuffix(bytes) || ': it is not a ZIP package'}`);

  let entries: ZipEntry[];
  try {
    entries = listZipEntries(bytes, MAX_ENTRIES);
  } catch (error) {
    throw new IngestError(`not a readable ${label}: the ZIP package is damaged (${(error as Error).message})`);
  }
  const names = new Set(entries.map((entry) => entry.name));
  const unpacked = entries.reduce((sum, entry) => sum + entry.declaredSize, 0);
  if (unpacked > MAX_UNPACKED_BYTES) {
    throw new IngestError(`the ${label} unpacks to ${Math.round(unpacked / 1048576)} MB, more than the ${MAX_UNPACKED_BYTES / 1048576} MB allowed`);
  }
  const oversized = entries.find((entry) => isMarkup(entry.name) && entry.declaredSize > MAX_XML_PART_BYTES);
  if (oversized) {
    throw new IngestError(
      `the ${label}'s part ${oversized.name} unpacks to ${Math.round(oversized.declaredSize / 1048576)} MB, more than the ${MAX_XML_PART_BYTES / 1048576} MB allowed for one part`,
    );
  }
  // Every part is inflated once under its declared size before any parser opens the package:
  // the parsers trust the declared sizes, so a package that lies about one is refused here.
  const byName = new Map<string, ZipEntry>();
  try {
    for (const entry of entries) {
      inflateEntry(bytes, entry);
      byName.set(entry.name, entry);
    }
  } catch (error) {
    if (error instanceof ZipError) throw new IngestError(`not a readable ${label}: ${error.message}`);
    throw error;
  }

  const found = formatOf(names);
  if (found !== format) {
    throw new IngestError(`not a ${label}: ${found ? `it is ${FORMAT_NAME[found]}` : 'it is a ZIP archive without an Office document inside'}`);
  }

  const readParts = (wanted: (name: string) => boolean): Map<string, string> => {
    const parts = new Map<string, string>();
    const decoder = new TextDecoder();
    for (const [name, entry] of byName) {
      if (wanted(name)) parts.set(name, decoder.decode(inflateEntry(bytes, entry)));
    }
    return parts;
  };
  const readPart = (name: string) => (names.has(name) ? readParts((candidate) => candidate === name).get(name) : undefined);
  return {
    names,
    readParts,
    readPart,
    title: () => {
      const core = readPart('docProps/core.xml');
      const title = core ? xmlText(core, (name) => name === 'dc:title') : '';
      return title.trim() || undefined;
    },
  };
}

function isMarkup(name: string): boolean {
  return /\.(?:xml|rels)$/i.test(name);
}

function formatOf(names: ReadonlySet<string>): OfficeFormat | undefined {
  for (const [format, folder] of Object.entries(FORMAT_FOLDER) as [OfficeFormat, string][]) {
    if ([...names].some((name) => name.startsWith(folder) && name.endsWith('.xml'))) return format;
  }
  return undefined;
}

// Office stores a password-protected .docx/.xlsx/.pptx inside an OLE compound file with an "EncryptedPackage" stream.
function oleReason(bytes: Uint8Array, format: OfficeFormat): string {
  const marker = Buffer.from('EncryptedPackage', 'utf16le');
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(marker)) {
    return `the .${format} file is password-protected: remove the password and upload it again`;
  }
  const legacy = { docx: '.doc', xlsx: '.xls', pptx: '.ppt' }[format];
  return `not a .${format} file: it looks like a legacy Office file (${legacy}); save it as .${format} and upload it again`;
}
