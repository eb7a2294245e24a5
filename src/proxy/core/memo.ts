// A function's results remembered by a string key, for the few keys a proxy
// sees again and again (its own paths, its visitors' addresses), so that each
// request does not work them out anew. Bounded, since the keys come from
// visitors: a flood of distinct keys starts the memo afresh rather than
// growing it, and long keys are never kept.

/** `work`, remembering its results for up to `maxKeys` keys of at most `maxKeyLength` characters. */
export function memoized<T>(work: (key: string) => T, { maxKeys, maxKeyLength }: { maxKeys: number; maxKeyLength: number }): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    const seen = known.get(key);
    if (seen !== undefined || known.has(key)) return seen as T;
    const result = work(key);
    if (known.size >= maxKeys) known.clear();
    if (key.length <= maxKeyLength) known.set(key, result);
    return result;
  };
}
