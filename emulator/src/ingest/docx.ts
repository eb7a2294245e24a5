import mammoth from 'mammoth';
import type { ExtractedDocument } from './document.js';
import { IngestError, reasonOf } from './errors.js';
import { htmlToText } from './html-text.js';
import { openOfficePackage } from './office-package.js';

// Images carry no text; an empty source keeps mammoth from base64-encoding every picture.
const dropImages = mammoth.images.imgElement(async () => ({ src: '' }));

/** A Word document: its paragraphs, headings, lists and tables as readable text (via mammoth). */
export async function extractDocx(bytes: Uint8Array): Promise<ExtractedDocument> {
  const document = openOfficePackage(bytes, 'docx');
  let html: string;
  try {
    const result = await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }, { convertImage: dropImages });
    html = result.value;
  } catch (error) {
    throw new IngestError(`not a readable .docx file: ${reasonOf(error)}`);
  }
  const { text } = htmlToText(html);
  const title = document.title();
  return { pages: [{ text }], ...(title ? { title } : {}) };
}
