import type { AskOptions, AskOutcome } from '../answer-engine/answer-request.js';
import type { ChangedIds } from '../answer-engine/stored-ids.js';
import { chunkImport } from '../chunk-import.js';

/** The chat's second part, as `import('../answer-engine/index.js')` gives it. */
export type AnswerEngine = typeof import('../answer-engine/index.js');

/**
 * The script-tag build's second part with DOMPurify inside, for a browser without a sanitizer of its own (Safari
 * today): one file to fetch where it would fetch two in turn. That build names it here (scripts/script-tag-chunks.ts,
 * `secondPartWithDomPurify`); a bundler building the chat from npm gets the second part and DOMPurify's chunk.
 */
const WITH_DOMPURIFY: string | undefined = undefined;

/** The second part's module, imported once per page (shared by every <kagent-chat> on it). */
const importEngine = chunkImport(
  // (A browser with a `Sanitizer` whose shape the second part cannot use fetches DOMPurify's chunk after it, as before.)
  () => (WITH_DOMPURIFY && !('Sanitizer' in globalThis) ? (import(/* @vite-ignore */ WITH_DOMPURIFY) as Promise<AnswerEngine>) : import('../answer-engine/index.js')),
  'askAgent',
);
let loading: Promise<AnswerEngine> | undefined;
let loaded: AnswerEngine | undefined;

/**
 * Fetches the chat's second part (the answer engine: streaming request,
 * markdown renderer, sanitizer, citation links), once per page, with the
 * sanitizer it needs. After a failed fetch (offline, blocked) the next call
 * fetches again, in every browser (`chunkImport`), and runs the part once.
 */
export function loadAnswerEngine(): Promise<AnswerEngine> {
  loading ??= importEngine()
    // Ready once its sanitizer is (where the browser has none, DOMPurify comes in a chunk of its own); it starts on visitor sessions too.
    .then((engine) => engine.ready().then(() => (loaded = engine)))
    // (DOMPurify's chunk failing too: the next call asks for it again.)
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}

/** The answer engine if it has arrived, for code that can use it at once. */
export function loadedAnswerEngine(): AnswerEngine | undefined {
  return loaded;
}

/**
 * `askWithStoredIds` from the second part, fetched first if need be (`keep`
 * is given the ids that change). One POST (two where the endpoint refused a stored id),
 * made once the engine is here; none if the question was stopped
 * meanwhile (`askAgent` sends nothing for an aborted signal), or if the
 * engine could not be fetched: then the outcome says so, and Retry tries
 * again.
 */
export async function askOnceLoaded(options: AskOptions, keep: (ids: ChangedIds) => void): Promise<AskOutcome> {
  let engine: AnswerEngine;
  try {
    engine = await loadAnswerEngine();
  } catch (error) {
    // The developer's fix where the file is missing: the browser's error names its address (Chromium, Firefox), this where it belongs.
    const detail = `${error}: copy all the build's files (kagent-chat-*.js) beside kagent-chat.js`;
    return options.signal.aborted ? { type: 'stopped', partialAnswer: '' } : { type: 'failed', failure: { kind: 'not-loaded', detail }, partialAnswer: '' };
  }
  return engine.askWithStoredIds(options, keep);
}
