import { setFlagsFromString } from 'node:v8';

/**
 * What the `kagent-emulator` command's heap may grow to, beyond the data it holds. Left to
 * itself, V8 grows the young generation from 1 MB a semi-space to 16 MB (32 MB resident) under
 * any steady allocation, such as a stream of queries, and lets the old generation grow to
 * several times what survived its last full collection before the next one: a datastore of
 * 8 MB of text (35 MB of index and text) then held 190 to 210 MB resident, 60 of them empty
 * heap. The young generation stays at its first size, and the old one grows 20% past what
 * survived before it is collected again: about 130 MB, queries as fast (docs/benchmarks.md).
 */
export const HEAP_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=20'] as const;

/** Sets `HEAP_FLAGS` for this process: only in the emulator's own command (a program embedding the emulator keeps its own). */
export function keepHeapInProportion(): void {
  for (const flag of HEAP_FLAGS) setFlagsFromString(flag);
}
