import { stemmer } from 'stemmer';
import { eng } from 'stopword';

// How text becomes search terms, for the index and for questions alike:
// words split where code names join them (camelCase, kebab-case, snake_case),
// lower-cased, British spellings read as American ones, stopwords dropped,
// stemmed (Porter). Questions also get the synonyms of their words.

// The package's English list lacks common question words; these complete it.
const MORE_STOPWORDS = 're ll ve does doing done when why will shall its not no nor so just us she hers ours yours mine whom whose am isn aren wasn weren don doesn didn won cannot off once again further few own ever every please tell know want need would could should might may can get got like way much many also'.split(' ');
/**
 * Stopwords typed in haste: contractions without their apostrophe ("whats", "dont"; with it,
 * their parts "what" and "s" are dropped already) and chat shorthand for words the lists drop
 * ("pls", "vs", "abt"). Kept, each was a word no document uses, and a question of a few words
 * holding one weighed as a question about something the documents never speak of.
 */
const SHORTHAND_STOPWORDS = 'whats hows whos wheres whens whys thats theres heres dont doesnt didnt isnt arent wasnt werent shouldnt couldnt wouldnt havent hasnt hadnt im ive youre youve theyre pls plz thx vs versus bc cuz tho ur abt btw wanna gonna gotta lemme gimme kinda idk imo fyi eg ie etc'.split(' ');
const STOPWORDS = new Set([...eng, ...MORE_STOPWORDS, ...SHORTHAND_STOPWORDS]);
/**
 * Words of a text: split at spaces, punctuation (so kebab-case and snake_case
 * are already words) and symbols, which MiniSearch's own tokenizer keeps
 * (`<kagent-chat>` would give `<kagent` and `chat>`, found by neither word).
 */
export function tokenize(text: string): string[] {
  const read = text.replace(VERSION_NUMBER, versionWords);
  // Most texts hold no rate: a plain search first, the pattern only where one may be.
  return (read.includes('/s') || read.includes('per second') ? read.replace(RATE, '$& speed') : read).split(/[\n\r\p{Z}\p{P}\p{S}]+/u).filter(Boolean);
}

/**
 * A rate: a unit per second ("MB/s", "req/s", "per second"). Split at its slash, it would be a
 * unit and the letter s: it is also read as the word "speed", so "How fast is reading a PDF?"
 * (fast, whose synonyms include speed) finds a table of MB/s that never says "fast".
 */
const RATE = /(?<=[A-Za-z])\/s(?:ec)?(?![A-Za-z\d])|\bper second\b/g;

/**
 * A version number: a dotted number after a name ("Node 20.19", "OpenAPI 3.1"), three dotted
 * parts (1.4.2, not an address's four), or v and a dotted number (v2.0); not a measure ("Safari
 * 48.6 KB") nor a share ("AUC 0.80"). Split at its dots, it would say nothing of what it is: it is
 * also read as the word "version", so "Which version do I need?" finds "With Node 20.19". A
 * number after a name, dotted or not ("Node 20.19", "Node 18"), is also read as that name's
 * version ("nodeversion"), which a question's "Node version" searches.
 */
const VERSION_NUMBER = /(?:\b([A-Z][\w+-]*(?:\.[a-z]+)?)\s+v?([1-9]\d*(?:\.\d+)*)|(?<![\d.])\d+\.\d+\.\d+|\bv\d+(?:\.\d+)+)(?![\d.]*\d)(?!\s?(?:[kKMGT]i?B|B|bytes?|ms|s|%|×)(?![\p{L}\d]))/gu;

/** A version number with the words it is also read as (`VERSION_NUMBER`). */
function versionWords(version: string, name?: string, number?: string): string {
  if (name === undefined) return `${version} version`;
  return `${version}${number!.includes('.') ? ' version' : ''} ${versionOf(name)}`;
}

/** The word a version of `name` is also read as: its first word and "version" joined ("Node.js": nodeversion). */
function versionOf(name: string): string {
  return `${(name.match(/[\p{L}\d]+/u)?.[0] ?? name).toLowerCase()}version`;
}

/** What a concept of everyday words counts for, against a word's 1 (in the search and in the quote chosen alike). */
export const LIGHT_WEIGHT = 1 / 3;

/**
 * Everyday words of questions that say little about what is asked ("what
 * happens", "how do I put", "show me"): a question's concept made of one
 * counts for a third of its weight, so a passage is not judged by them.
 */
const LIGHT_WORDS = new Set(
  'happen happens happened see say put add show work works working live lives point instead lot lots hit hits existing inside take takes took whole several change match kept keep survive long one new use using used make made go goes going give gives thing things something anything way ways look looks find found try trying actually really able possible exactly right sure start starting stop let lets mean means come comes call called case run runs running set setting'.split(' '),
);

/** British spellings and their American forms: a question may use either. */
const SPELLINGS: Record<string, string> = {
  colour: 'color', colours: 'colors', coloured: 'colored', behaviour: 'behavior', behaviours: 'behaviors', favour: 'favor',
  honour: 'honor', flavour: 'flavor', centre: 'center', licence: 'license', organisation: 'organization',
  organisations: 'organizations', organise: 'organize', customise: 'customize', customisation: 'customization',
  authorise: 'authorize', authorisation: 'authorization', normalise: 'normalize', normalised: 'normalized',
  serialise: 'serialize', recognise: 'recognize', initialise: 'initialize', sanitise: 'sanitize', sanitised: 'sanitized',
  analyse: 'analyze', catalogue: 'catalog', cancelled: 'canceled', artefact: 'artifact', grey: 'gray', optimise: 'optimize',
};

/**
 * Verbs whose base form is another verb's past: found (find), bound (bind), ground (grind), wound
 * (wind). Stemmed, their forms ("founded", "founding", "founder") would be that past ("documents
 * found"): a question about who founded something would match every passage that found something.
 * Those forms are kept whole (a plural, "bounds", is stemmed as before).
 */
const PAST_OF_ANOTHER_VERB = new Set(['found', 'bound', 'ground', 'wound']);

/**
 * Words and phrases that mean the same thing to someone asking about software.
 * A question holding one of them also searches the others (weighed a little
 * less than its own words).
 */
const SYNONYMS: string[][] = [
  ['rtl', 'right-to-left', 'arabic', 'hebrew'],
  ['refresh', 'reload'],
  ['history', 'transcript', 'conversation'],
  ['throttle', 'rate limit'],
  ['color', 'theme'],
  ['restyle', 'style', 'css'],
  ['translate', 'language', 'strings'],
  ['xss', 'sanitize', 'script injection'],
  ['secret', 'api key'],
  ['leak', 'expose'],
  ['latency', 'delay', 'overhead'],
  ['fast', 'quick', 'quickest', 'speed', 'latency'],
  ['big', 'biggest', 'size', 'large', 'largest'],
  ['ingest', 'read', 'upload'],
  ['file types', 'mime types', 'formats'],
  ['host', 'deploy', 'platform'],
  ['llm', 'language model'],
  ['screen reader', 'accessibility', 'a11y'],
  ['website', 'site'],
  ['repo', 'repository'],
  ['source code', 'code', 'source'],
  ['instance', 'server', 'replica'],
  ['support', 'accept'],
];

/** One word as it is indexed: lower case, spelled the American way, stemmed; stopwords and one-letter words are `null`. */
export function searchTerm(word: string): string | null {
  let lower = word.toLowerCase();
  if (lower.length < 2 && !/\d/.test(lower)) return null;
  if (STOPWORDS.has(lower)) return null;
  lower = SPELLINGS[lower] ?? lower;
  const stem = stemmer(lower);
  if (PAST_OF_ANOTHER_VERB.has(stem) && /(?:ed|ing|ers?)$/.test(lower)) return lower;
  // Porter turns a final y into i only while a suffix follows it ("deploy" → "deploi", yet "deployment" → "deploy"): one form for both.
  return stem.replace(/y$/, 'i');
}

/** The parts of a code name: `systemPrompt` → `system`, `prompt`; `HTMLElement` → `html`, `element`. */
export function codeNameParts(word: string): string[] {
  const parts = word.split(/(?<=[a-z\d])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[a-zA-Z])(?=\d)|(?<=\d)(?=[a-zA-Z])/);
  return parts.length > 1 ? parts : [];
}

/**
 * A word's index terms: itself, and the parts of a code name, so `systemPrompt`
 * is found by "system prompt" and by "systemPrompt".
 */
export function indexTerms(word: string): string[] {
  const terms = new Set<string>();
  const whole = searchTerm(word);
  if (whole) terms.add(whole);
  for (const part of codeNameParts(word)) {
    const term = searchTerm(part);
    if (term) terms.add(term);
  }
  return [...terms];
}

/** The terms of a text in reading order (code names give their parts after the whole), with duplicates. */
export function termSequence(text: string): string[][] {
  const sequence: string[][] = [];
  for (const word of tokenize(text)) {
    const terms = indexTerms(word);
    if (terms.length) sequence.push(terms);
  }
  return sequence;
}

/** The distinct indexed terms of a text. */
export function searchTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const word of tokenize(text)) for (const term of indexTerms(word)) terms.add(term);
  return [...terms];
}

/**
 * What a question asks for: each of its words (or phrases found in the synonym
 * list) with every term that stands for it. A concept is found in a text when
 * any of its terms is.
 */
export interface Concept {
  /** The question's own words, as written. */
  words: string;
  /** Whether the words name something (a capitalised word inside the sentence, an acronym, a code name, a word with digits). */
  isName: boolean;
  /** Everyday words only (`LIGHT_WORDS`): the concept counts for a third. */
  isLight: boolean;
  /** Its own terms first, then its synonyms'. */
  terms: string[];
  /** How many of `terms` are its own (the rest are synonyms). */
  own: number;
  /** The synonyms, each a phrase of one or more terms: a phrase stands for the concept only where all its terms are. */
  synonyms: string[][];
  /** Part of a word written with hyphens ("fine-tune"): that word's parts' terms, joined by "-" ('' for none). */
  compound: string;
}

const VERSION_TERM = searchTerm('version');

const synonymPhrases: { terms: string[]; group: number }[] = SYNONYMS.flatMap((group, index) =>
  group.map((phrase) => ({ terms: termSequence(phrase).map((terms) => terms[0]!), group: index })),
);
/** The synonym phrases by their first term, in the list's order: a question's word looks up only those it may start. */
const phrasesByFirstTerm = new Map<string, typeof synonymPhrases>();
for (const phrase of synonymPhrases) {
  const first = phrase.terms[0];
  if (first !== undefined) phrasesByFirstTerm.set(first, [...(phrasesByFirstTerm.get(first) ?? []), phrase]);
}

/**
 * How much of a question is read: its first 1,000 words (in at most its first 10,000
 * characters). A question is a sentence or a paragraph; a longer one says nothing more to a
 * search, and reading all of a 5 MB one would hold the server for seconds.
 */
export const MAX_QUESTION_WORDS = 1_000;
const MAX_QUESTION_CHARS = 10_000;

/** The part of a question that is read: its first `MAX_QUESTION_CHARS` characters. */
export function questionRead(question: string): string {
  return question.length > MAX_QUESTION_CHARS ? question.slice(0, MAX_QUESTION_CHARS) : question;
}

/** Parts of question analysis that can be left out (the search bench measures what each adds). */
export interface ConceptOptions {
  /** A word of the synonym list also searches its synonyms (default true). */
  synonyms?: boolean;
  /** Everyday words count for a third (default true). */
  lightWords?: boolean;
}

/** A word of a question and the terms it is searched by. */
export interface QuestionWord {
  /** As the question writes it ("setup"; "cloud flare" for two words read as one). */
  written: string;
  /** The word it is read as: `written`, or what a reading of it gives ("set" and "up" for "setup"). */
  read: string;
  /** Its search terms (none for a stopword). */
  terms: string[];
}

/** The terms of a question's word: a proper name written in CamelCase (WordPress, PayPal) is one word; a code name (systemPrompt) is also its parts. */
export function questionTerms(word: string): string[] {
  return /^[A-Z]/.test(word) ? [searchTerm(word)].filter((term): term is string => term !== null) : indexTerms(word);
}

/** A word written with hyphens between letters or digits ("fine-tune", "on-premises", "kagent-chat"). */
const COMPOUND = /[\p{L}\d]+(?:[-‐][\p{L}\d]+)+/gu;

/**
 * The concepts of a question: its words, with phrases of the synonym list taken as one, and their
 * synonyms. `readWords` may read its words (stopwords included) as others first (readings.ts:
 * words the datastore does not hold, read as ones it does).
 */
export function questionConcepts(question: string, options: ConceptOptions = {}, readWords?: (words: QuestionWord[], question: string) => QuestionWord[]): Concept[] {
  const read = questionRead(question);
  const asked = tokenize(read)
    .slice(0, MAX_QUESTION_WORDS)
    .map((word) => ({ written: word, read: word, terms: questionTerms(word) }));
  const questionWords = (readWords ? readWords(asked, read) : asked).filter((word) => word.terms.length);
  const words = questionWords.map((word) => word.written);
  const terms = questionWords.map((word) => word.terms);
  const synonymsRead = options.synonyms !== false;
  // Words written with hyphens, as their terms: the question's words each is made of.
  const compoundAt: string[] = words.map(() => '');
  for (const [written] of read.matchAll(COMPOUND)) {
    const parts = written.split(/[-‐]/).flatMap((part) => questionTerms(part).slice(0, 1));
    if (parts.length < 2) continue;
    for (let k = 0; k + parts.length <= words.length; k++) {
      if (parts.every((term, j) => terms[k + j]![0] === term)) for (let j = 0; j < parts.length; j++) compoundAt[k + j] = parts.join('-');
    }
  }
  const concepts: Concept[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < words.length; ) {
    // The longest synonym phrase that starts here (the first of the list's order among as long).
    let best: { length: number; group: number } | undefined;
    for (const phrase of (synonymsRead && phrasesByFirstTerm.get(terms[i]![0]!)) || []) {
      const n = phrase.terms.length;
      if (i + n > words.length || (best && best.length >= n)) continue;
      if (phrase.terms.every((term, k) => terms[i + k]![0] === term)) best = { length: n, group: phrase.group };
    }
    const length = best?.length ?? 1;
    // The same concept twice ("key ... key") counts once: its first term is its first word's.
    if (!seen.has(terms[i]![0]!)) {
      seen.add(terms[i]![0]!);
      const span = questionWords.slice(i, i + length);
      const own = length === 1 ? [...terms[i]!] : [...new Set(span.flatMap((word) => word.terms))];
      // "Node version", "version of Node": also that name's version, as a version number beside the name is read.
      if (length === 1 && own[0] === VERSION_TERM) for (const name of [words[i - 2], words[i - 1], words[i + 1]]) if (name) own.push(searchTerm(versionOf(name))!);
      const ownKey = own.join(' ');
      const synonyms = best ? synonymPhrases.filter((phrase) => phrase.group === best.group && phrase.terms.join(' ') !== ownKey).map((phrase) => phrase.terms) : [];
      const written = length === 1 ? [words[i]!] : [...new Set(span.map((word) => word.written))];
      concepts.push({
        words: written.join(' '),
        terms: [...new Set(synonyms.length ? [...own, ...synonyms.flat()] : own)],
        own: own.length,
        synonyms,
        isName: written.some((word) => looksLikeName(word, read)),
        isLight: options.lightWords !== false && !best && span.every((word) => LIGHT_WORDS.has(word.read.toLowerCase())),
        compound: best ? '' : compoundAt[i]!,
      });
    }
    i += length;
  }
  return concepts;
}

/**
 * The system error codes Node reports (its "common system errors"): quoted in a question, one
 * says what the asker saw ("npm start fails with EADDRINUSE"), not what they ask about, which
 * documents say in words ("a port stays taken"). Not a name: where the documents never use it,
 * it weighs as an ordinary missing word, not as the rarest term.
 */
const SYSTEM_ERROR_CODES = new Set('EACCES EADDRINUSE EADDRNOTAVAIL EAI_AGAIN ECONNABORTED ECONNREFUSED ECONNRESET EEXIST EHOSTUNREACH EISDIR EMFILE ENETUNREACH ENOENT ENOMEM ENOSPC ENOTDIR ENOTEMPTY ENOTFOUND EPERM EPIPE ETIMEDOUT'.split(' '));

/** A word that names something: capitalised inside the sentence (WordPress, Paris), an acronym (GDPR), a code name (iOS, systemPrompt) or with digits (S3); not a system error code. */
export function looksLikeName(word: string, question: string): boolean {
  if (SYSTEM_ERROR_CODES.has(word)) return false;
  if (/\d/.test(word) || /[a-z][A-Z]/.test(word) || /^[A-Z]{2,}s?$/.test(word)) return true;
  if (!/^[A-Z][a-z]/.test(word)) return false;
  // A capital at the start of a sentence says nothing.
  const at = question.indexOf(word);
  return !/(^|[.!?:]\s*|["'“(]\s*)$/.test(question.slice(0, at));
}

/** "Name: value" at the start of a table row or after "; ": a cell of a row as ingestion writes it ("Header: value; Header: value"). */
const ROW_CELL = /(^|; )([^:;\n]{1,60}): (?=\S)/g;

/**
 * A fragment's text as the index reads it: table rows without their column
 * names. Ingestion writes each row as "Header: value; Header: value" so that a
 * row read alone keeps its meaning; indexed that way, a table of twenty rows
 * holds its column names twenty times, and a question using one of them
 * ("platform", "default") finds the table, however little of the rest it
 * matches. A column name is indexed once, where the text first gives it (its
 * header line, or its first row when the fragment starts inside the table).
 */
export function indexedText(text: string): string {
  const seen = new Set<string>();
  return text
    .split('\n')
    .map((line) => {
      const cells = [...line.matchAll(ROW_CELL)];
      // Only a line of two cells or more is a row: one "Name: value" is prose (or a heading's colon).
      if (cells.length < 2) {
        if (line.includes(' | ')) for (const name of line.split(' | ')) seen.add(name.trim());
        return line;
      }
      return line.replace(ROW_CELL, (whole, before: string, name: string) => {
        if (seen.has(name)) return before;
        seen.add(name);
        return whole;
      });
    })
    .join('\n');
}
