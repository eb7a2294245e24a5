// Reads the parts of a ZIP package by its central directory, counting what each part really
// inflates to instead of trusting the sizes it declares: a part that inflates to more (or
// less) than it declares is a lying archive and is refused before any parser sees it.
import { inflateRawSync } from 'node:zlib';

/** One part as the central directory lists it. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** The size the package declares; only trusted after `inflateEntry` has checked it. */
  declaredSize: number;
  localHeaderOffset: number;
}

/** A package that cannot be read, or lies about itself; `message` says why, for the uploader. */
export class ZipError extends Error {
  override name = 'ZipError';
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

/** The parts a ZIP package lists, from its central directory (ZIP64 packages are refused: no Office file needs one). */
export function listZipEntries(bytes: Uint8Array, maxEntries: number): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  // The end record sits in the last 22 bytes plus a comment of at most 65,535.
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end === -1) throw new ZipError('the end of its directory is missing');
  const count = view.getUint16(end + 10, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw new ZipError('a ZIP64 package, which Office files never need');
  if (count > maxEntries) throw new ZipError(`more than ${maxEntries} parts`);
  const entries: ZipEntry[] = [];
  const decoder = new TextDecoder();
  let position = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (position + 46 > bytes.length || view.getUint32(position, true) !== CENTRAL_ENTRY) throw new ZipError('its directory is cut');
    const nameLength = view.getUint16(position + 28, true);
    const extraLength = view.getUint16(position + 30, true);
    const commentLength = view.getUint16(position + 32, true);
    entries.push({
      method: view.getUint16(position + 10, true),
      compressedSize: view.getUint32(position + 20, true),
      declaredSize: view.getUint32(position + 24, true),
      localHeaderOffset: view.getUint32(position + 42, true),
      name: decoder.decode(bytes.subarray(position + 46, position + 46 + nameLength)),
    });
    position += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * The bytes of one part, inflated under a real cap: inflation stops as soon as the output
 * passes the size the part declares, so a part that lies costs no more than its declared size.
 * Throws `ZipError` for a lie, a damaged part or an unknown compression method.
 */
export function inflateEntry(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const local = entry.localHeaderOffset;
  if (local + 30 > bytes.length || view.getUint32(local, true) !== LOCAL_HEADER) throw new ZipError(`its part ${entry.name} is damaged`);
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  if (start + entry.compressedSize > bytes.length) throw new ZipError(`its part ${entry.name} is cut short`);
  const compressed = bytes.subarray(start, start + entry.compressedSize);
  let data: Uint8Array;
  if (entry.method === STORED) data = compressed;
  else if (entry.method === DEFLATED) {
    try {
      // One byte more than declared is enough to prove a lie without inflating the rest.
      data = inflateRawSync(compressed, { maxOutputLength: Math.max(1, entry.declaredSize + 1) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw lie(entry, 'more');
      throw new ZipError(`its part ${entry.name} is damaged (${(error as Error).message})`);
    }
  } else throw new ZipError(`its part ${entry.name} uses a compression method (${entry.method}) Office files do not use`);
  if (data.byteLength > entry.declaredSize) throw lie(entry, 'more');
  if (data.byteLength < entry.declaredSize) throw lie(entry, 'less');
  return data;
}

function lie(entry: ZipEntry, direction: 'more' | 'less'): ZipError {
  return new ZipError(`its part ${entry.name} declares ${entry.declaredSize} bytes but holds ${direction}: the package is forged or damaged`);
}
