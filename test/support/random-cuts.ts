/**
 * Cuts `text` into pseudo-random fragments of 1 to `most` characters (every
 * character boundary is a possible cut); the same seed gives the same cuts,
 * so a failing case can be replayed.
 */
export function randomCuts(text: string, seed: number, most = 12): string[] {
  let state = seed >>> 0 || 1;
  const fragments: string[] = [];
  for (let i = 0; i < text.length; ) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const size = 1 + ((state >>> 8) % most);
    fragments.push(text.slice(i, i + size));
    i += size;
  }
  return fragments;
}
