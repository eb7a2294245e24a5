// Shared by the size report (scripts/widget-size.ts) and the widget-load bench.
// Who owns the gzipped bytes of a built file: each generated character goes to the source module
// its source-map mapping points at (a mapping owns the characters up to the next one), and a
// module's or package's share is what the gzipped file loses without its characters. Shares are
// gzip-weighted, so a library's repeated phrases count as little as gzip makes them cost; they add
// up to about the whole (within a percent or two: the shares' contexts overlap).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import sourceMapJs from 'source-map-js';

const { SourceMapConsumer } = sourceMapJs;

export interface BuiltFile {
  /** The file's name in its folder. */
  name: string;
  code: string;
  /** `gzip -9` of the code (Node's zlib, level 9). */
  gzip: Buffer;
  /** For each character of `code`, the absolute path of the source it came from, or null (module glue). */
  owners: (string | null)[];
}

export const gzip9 = (text: string) => gzipSync(text, { level: 9 });

/** Reads `name` and `name.map` from `folder`; the map's sources are made absolute, so two builds' read alike. */
export function readBuilt(folder: URL, name: string): BuiltFile {
  const code = readFileSync(new URL(name, folder), 'utf8');
  const map = JSON.parse(readFileSync(new URL(`${name}.map`, folder), 'utf8'));
  const consumer = new SourceMapConsumer(map);
  const lineStarts = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === '\n') lineStarts.push(i + 1);
  const marks: { at: number; source: string | null }[] = [];
  consumer.eachMapping((m) => marks.push({ at: lineStarts[m.generatedLine - 1]! + m.generatedColumn, source: m.source ? new URL(m.source, folder).pathname : null }));
  marks.sort((a, b) => a.at - b.at);
  const owners = new Array<string | null>(code.length).fill(null);
  marks.forEach((mark, index) => owners.fill(mark.source, mark.at, marks[index + 1]?.at ?? code.length));
  return { name, code, gzip: gzip9(code), owners };
}

/** The package a source belongs to: `marked`, `@lit/reactive-element`, or for this repository's code `src/<folder>`. */
export function packageOf(source: string | null): string {
  if (!source) return 'module glue (exports, imports)';
  const inModules = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
  if (inModules) return inModules[1]!;
  const ours = /\/(src\/[^/]+)\//.exec(source);
  return ours ? ours[1]! : source;
}

/** The path a reader knows a source by: from inside `node_modules/`, or from `src/` on. */
export function moduleName(source: string | null): string {
  if (!source) return 'module glue (exports, imports)';
  const inModules = source.lastIndexOf('/node_modules/');
  if (inModules >= 0) return source.slice(inModules + '/node_modules/'.length);
  const ours = source.lastIndexOf('/src/');
  return ours >= 0 ? source.slice(ours + 1) : source;
}

/** Gzip-weighted share of each group (what the gzipped file loses without that group's characters), with its raw minified characters. */
export function shares(file: BuiltFile, groupOf: (source: string | null) => string): Map<string, { gzip: number; raw: number }> {
  const groups = file.owners.map(groupOf);
  const whole = file.gzip.length;
  const result = new Map<string, { gzip: number; raw: number }>();
  for (const group of new Set(groups)) {
    let without = '';
    let raw = 0;
    for (let i = 0; i < file.code.length; i++) {
      if (groups[i] === group) raw++;
      else without += file.code[i];
    }
    result.set(group, { gzip: whole - gzip9(without).length, raw });
  }
  return new Map([...result].sort((a, b) => b[1].gzip - a[1].gzip));
}
