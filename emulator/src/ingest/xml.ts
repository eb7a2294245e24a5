import { Parser } from 'htmlparser2';

/** Callbacks for reading an XML document in one pass, element names as written (with their prefix). */
export interface XmlReader {
  open?(name: string, attributes: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
}

/** Reads an XML document in one streaming pass (entities decoded, CDATA as text). */
export function readXml(xml: string, reader: XmlReader): void {
  const parser = new Parser(
    {
      onopentag: (name, attributes) => reader.open?.(name, attributes),
      onclosetag: (name) => reader.close?.(name),
      ontext: (text) => reader.text?.(text),
    },
    { xmlMode: true, decodeEntities: true, recognizeCDATA: true },
  );
  parser.write(xml);
  parser.end();
}

/** The text inside the elements `wanted` accepts, concatenated. */
export function xmlText(xml: string, wanted: (name: string) => boolean): string {
  let depth = 0;
  let text = '';
  readXml(xml, {
    open: (name) => {
      if (depth > 0 || wanted(name)) depth++;
    },
    close: () => {
      if (depth > 0) depth--;
    },
    text: (chunk) => {
      if (depth > 0) text += chunk;
    },
  });
  return text;
}

/** The `Id -> Target` map of an OPC relationships part (`_rels/*.rels`), targets resolved against `folder`. */
export function readRelationships(xml: string | undefined, folder: string): Map<string, { target: string; type: string }> {
  const relationships = new Map<string, { target: string; type: string }>();
  if (!xml) return relationships;
  readXml(xml, {
    open: (name, attributes) => {
      if (localName(name) !== 'Relationship' || !attributes.Id || !attributes.Target) return;
      if (attributes.TargetMode === 'External') return;
      relationships.set(attributes.Id, { target: resolvePartName(attributes.Target, folder), type: attributes.Type ?? '' });
    },
  });
  return relationships;
}

/** An element's name without its namespace prefix. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** A part name for `target` as seen from `folder` ("ppt/"), following "../" and a leading "/". */
function resolvePartName(target: string, folder: string): string {
  const segments = target.startsWith('/') ? [] : folder.split('/').filter(Boolean);
  for (const segment of target.split('/')) {
    if (segment === '..') segments.pop();
    else if (segment && segment !== '.') segments.push(segment);
  }
  return segments.join('/');
}
