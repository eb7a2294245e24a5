// How hard a session secret is to guess, estimated from the secret itself: a secret that a word list or a pattern
// finds lets anyone forge tokens, whatever else the proxy does (every signature can be checked against a guess).

/** The least estimated entropy a session secret must have: beyond any offline search. */
export const MIN_SECRET_BITS = 128;

/** How to make a secret that passes, for the start-up error. */
export const MAKE_A_SECRET = "make one with `openssl rand -base64 32` or `node -p \"crypto.randomBytes(32).toString('base64')\"`";

/** Written words (letters and separators, no digit): English text carries about 2 bits a character, however long. */
const WORDS = /^[\p{L}\s.,;:!?'_-]*$/u;

/**
 * Whether the secret reads as written words: only letters and separators, in the case runs words have (mostly one
 * case, or capitals one at a time as in `CorrectHorse`). Random base64 switches case about every other letter and
 * pairs capitals a quarter of the time; one secret in about 1,500 of `openssl rand -base64 32` has no digit, and the
 * case test keeps those from being rated as words.
 */
function isWrittenWords(secret: string): boolean {
  if (!WORDS.test(secret)) return false;
  const upper = [...secret].filter((c) => /\p{L}/u.test(c)).map((c) => c !== c.toLowerCase());
  let switches = 0;
  let capitalPairs = 0;
  for (let i = 1; i < upper.length; i++) {
    if (upper[i] !== upper[i - 1]) switches++;
    else if (upper[i]) capitalPairs++;
  }
  return switches <= upper.length / 4 || capitalPairs <= upper.length / 20;
}

/**
 * The secret's entropy in bits, estimated low: each character costs what its frequency in the secret says (a
 * secret of few distinct characters is cheap), at most 2 bits in written words; a stretch that repeats an earlier
 * one of 3 characters or more (`changemechangeme`) counts as one character, and so does a run that steps through
 * the alphabet (`abcdef`, `0123`), as a guesser who tries repetitions and runs pays for them.
 */
export function secretBits(secret: string): number {
  const chars = [...secret];
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / chars.length) * Math.log2(n / chars.length);
  return (isWrittenWords(secret) ? Math.min(2, perChar) : perChar) * novelCharacters(chars);
}

/** Characters left once each repeat of an earlier stretch (3 or more) counts as one (a greedy LZ77 parse). */
function novelCharacters(chars: readonly string[]): number {
  let novel = 0;
  for (let at = 0; at < chars.length; ) {
    let longest = 1;
    const step = (k: number) => (chars[k]!.codePointAt(0) ?? 0) - (chars[k - 1]!.codePointAt(0) ?? 0);
    // A run that steps by one (`cdef`, `3210`) after its first two characters.
    if (at >= 2 && Math.abs(step(at)) === 1 && step(at) === step(at - 1)) {
      at++;
      continue;
    }
    novel++;
    // From each earlier start, the stretch may run on into where it is now (as in `aaaa`).
    for (let from = 0; from < at; from++) {
      let length = 0;
      while (at + length < chars.length && chars[from + length] === chars[at + length]) length++;
      if (length >= 3 && length > longest) longest = length;
    }
    at += longest;
  }
  return novel;
}
