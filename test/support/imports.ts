// The relative imports of the TypeScript sources, read from their text: what the tests of the code's shape
// (the widget's parts, no import cycles) walk.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Every `.ts` file under `folder`, in its subfolders too. */
export const sources = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );

export interface Import {
  file: string;
  /** The imported file, resolved (`.js` read as the `.ts` beside it). */
  target: string;
  /** `import type` / `export type`: erased, so no code crosses. */
  typeOnly: boolean;
  dynamic: boolean;
}

/** Every static `import`/`export ... from`, side-effect import and `import()` of a relative module in `file`. */
export function importsOf(file: string, code = readFileSync(file, 'utf8')): Import[] {
  const at = (specifier: string) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
  const found: Import[] = [];
  for (const match of code.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?['"](\.[^'"]+)['"]/gm)) {
    found.push({ file, target: at(match[3]!), typeOnly: Boolean(match[2]), dynamic: false });
  }
  for (const match of code.matchAll(/(typeof\s+)?\bimport\(\s*['"`](\.[^'"`]+)['"`]\s*\)/g)) {
    found.push({ file, target: at(match[2]!), typeOnly: Boolean(match[1]), dynamic: true });
  }
  return found;
}

/**
 * The import cycles among `imports`, each as the files around it, first file again at the end. Every kind of import
 * counts (a type-only or dynamic one too): a cycle means two modules that cannot be read, moved or tested apart.
 */
export function importCycles(imports: readonly Import[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { file, target } of imports) {
    if (!next.has(file)) next.set(file, new Set());
    next.get(file)!.add(target);
  }
  // Tarjan's strongly connected components: each with more than one file, or a file that imports itself, holds a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)?.has(file)) cycles.push(cycleThrough(component, next));
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** One cycle through a strongly connected `component`, from its first file (in name order) back to it. */
function cycleThrough(component: string[], next: Map<string, Set<string>>): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  // Breadth first from `start` within the component, to the shortest way back to it.
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    for (const target of [...(next.get(file) ?? [])].sort()) {
      if (!members.has(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      if (target === start) queue.length = 0;
      else queue.push(target);
    }
  }
  const between: string[] = [];
  for (let file = cameFrom.get(start)!; file !== start; file = cameFrom.get(file)!) between.unshift(file);
  return [start, ...between, start];
}
