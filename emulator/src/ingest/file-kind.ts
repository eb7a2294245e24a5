// Recognises common file signatures so an error can say what a mislabelled upload really is.

interface Signature {
  kind: string;
  offset: number;
  bytes: readonly number[];
}

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

const SIGNATURES: readonly Signature[] = [
  { kind: 'a PDF file', offset: 0, bytes: ascii('%PDF-') },
  { kind: 'a ZIP archive', offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { kind: 'an empty ZIP archive', offset: 0, bytes: [0x50, 0x4b, 0x05, 0x06] },
  { kind: 'an OLE compound file (a legacy .doc/.xls/.ppt or a password-protected Office file)', offset: 0, bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1] },
  { kind: 'a PNG image', offset: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { kind: 'a JPEG image', offset: 0, bytes: [0xff, 0xd8, 0xff] },
  { kind: 'a GIF image', offset: 0, bytes: ascii('GIF8') },
  { kind: 'a WebP image', offset: 8, bytes: ascii('WEBP') },
  { kind: 'a WAV audio file', offset: 8, bytes: ascii('WAVE') },
  { kind: 'an MP4/MOV video', offset: 4, bytes: ascii('ftyp') },
  { kind: 'an MP3 audio file', offset: 0, bytes: ascii('ID3') },
  { kind: 'a gzip archive', offset: 0, bytes: [0x1f, 0x8b] },
  { kind: 'a 7-Zip archive', offset: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { kind: 'a RAR archive', offset: 0, bytes: ascii('Rar!') },
  { kind: 'an RTF document', offset: 0, bytes: ascii('{\\rtf') },
  { kind: 'a Linux executable', offset: 0, bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { kind: 'a Windows executable', offset: 0, bytes: ascii('MZ') },
  { kind: 'a SQLite database', offset: 0, bytes: ascii('SQLite format 3') },
];

/** What the bytes look like by their signature ("a PNG image"), or `undefined` when nothing known matches. */
export function recogniseFileKind(bytes: Uint8Array): string | undefined {
  const found = SIGNATURES.find(({ offset, bytes: signature }) =>
    bytes.length >= offset + signature.length && signature.every((byte, index) => bytes[offset + index] === byte),
  );
  return found?.kind;
}

/** ", but it looks like a PNG image" when the bytes are recognisably something else, else "". */
export function looksLikeSuffix(bytes: Uint8Array): string {
  const kind = recogniseFileKind(bytes);
  return kind ? `: it looks like ${kind}` : '';
}
