import type { ExtractedDocument, ExtractedPage } from './document.js';
import { IngestError } from './errors.js';
import { DEFAULT_TEXT_LIMITS, tooManyPages, type TextLimits } from './text-limits.js';
import { openOfficePackage } from './office-package.js';
import { localName, readRelationships, readXml } from './xml.js';

const NOTES_TYPE = /\/notesSlide$/;

/** A PowerPoint presentation: one page per slide in presentation order, its speaker notes after it. */
export function extractPptx(bytes: Uint8Array, limits: TextLimits = DEFAULT_TEXT_LIMITS): ExtractedDocument {
  const presentation = openOfficePackage(bytes, 'pptx');
  const slideNames = slideOrder(presentation.readPart('ppt/presentation.xml'), presentation.readPart('ppt/_rels/presentation.xml.rels'), presentation.names);
  if (slideNames.length === 0) throw new IngestError('the .pptx file has no slides');
  if (slideNames.length > limits.maxPages) throw tooManyPages('.pptx file', slideNames.length, limits);

  const relsName = (slide: string) => slide.replace(/([^/]+)$/, '_rels/$1.rels');
  const rels = presentation.readParts((name) => slideNames.some((slide) => relsName(slide) === name));
  const notesNames = new Map<string, string>();
  for (const slide of slideNames) {
    const folder = slide.slice(0, slide.lastIndexOf('/') + 1);
    for (const { target, type } of readRelationships(rels.get(relsName(slide)), folder).values()) {
      if (NOTES_TYPE.test(type)) notesNames.set(slide, target);
    }
  }
  const wanted = new Set([...slideNames, ...notesNames.values()]);
  const parts = presentation.readParts((name) => wanted.has(name));

  const pages: ExtractedPage[] = slideNames.map((slide, index) => {
    const text = drawingText(parts.get(slide) ?? '');
    const notesName = notesNames.get(slide);
    const notes = notesName ? drawingText(parts.get(notesName) ?? '') : '';
    return { text: notes ? `${text}\n\nNotes: ${notes}`.trim() : text, pageNumber: index + 1 };
  });
  const title = presentation.title();
  return { pages, totalPages: pages.length, ...(title ? { title } : {}) };
}

// Slides in the order the presentation lists them; by file number when that list is missing.
function slideOrder(presentationXml: string | undefined, relsXml: string | undefined, names: ReadonlySet<string>): string[] {
  const relationships = readRelationships(relsXml, 'ppt/');
  const ordered: string[] = [];
  if (presentationXml) {
    readXml(presentationXml, {
      open: (name, attributes) => {
        if (localName(name) !== 'sldId') return;
        const target = relationships.get(attributes['r:id'] ?? '')?.target;
        if (target && names.has(target)) ordered.push(target);
      },
    });
  }
  if (ordered.length > 0) return ordered;
  const number = (name: string) => Number(name.match(/(\d+)\.xml$/)?.[1] ?? 0);
  return [...names].filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name)).sort((a, b) => number(a) - number(b));
}

// DrawingML text: runs joined, one line per paragraph; fields (slide numbers, dates) left out.
function drawingText(xml: string): string {
  const lines: string[] = [];
  let line = '';
  let inText = 0;
  let inField = 0;
  readXml(xml, {
    open: (name) => {
      const local = localName(name);
      if (local === 't') inText++;
      else if (local === 'fld') inField++;
      else if (local === 'br') line += '\n';
      else if (local === 'tab') line += '\t';
    },
    close: (name) => {
      const local = localName(name);
      if (local === 't') inText--;
      else if (local === 'fld') inField--;
      else if (local === 'p') {
        if (line.trim()) lines.push(line.trim());
        line = '';
      }
    },
    text: (text) => {
      if (inText > 0 && inField === 0) line += text;
    },
  });
  if (line.trim()) lines.push(line.trim());
  return lines.join('\n');
}
