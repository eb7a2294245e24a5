import { queryIdFieldsNamed, type QueryIdField } from '../../protocol/query-ids.js';
import type { AskOptions, AskOutcome } from '../answer-engine/answer-request.js';
import type { ChatFailure } from './failure-kinds.js';

/** The chat's second part, as `import('../answer-engine/index.js')` gives it. */
export type AnswerEngine = typeof import('../answer-engine/index.js');

// One load per page, shared by every <kagent-chat> on it.
let loading: Promise<AnswerEngine> | undefined;
let loaded: AnswerEngine | undefined;

/**
 * Fetches the chat's second part (the answer engine: streaming request,
 * markdown renderer, sanitizer, citation links), once per page. A failed
 * fetch (offline, blocked) is not remembered: the next call tries again.
 */
export function loadAnswerEngine(): Promise<AnswerEngine> {
  loading ??= import('../answer-engine/index.js').then(
    (engine) => (loaded = engine),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The answer engine if it has arrived, for code that can use it at once. */
export function loadedAnswerEngine(): AnswerEngine | undefined {
  return loaded;
}

export interface AskWithRecovery extends AskOptions {
  /**
   * Called when the request is refused (400) for the ids it named: returns
   * new ids to ask once more with. Without it a refusal is the outcome.
   */
  replaceIds?: (fields: QueryIdField[]) => Partial<Record<QueryIdField, string>>;
}

/**
 * `askAgent` from the second part, fetched first if need be. One POST per
 * call, made once the engine is here; none if the question was stopped
 * meanwhile (`askAgent` sends nothing for an aborted signal), or if the
 * engine could not be fetched: then the outcome says so, and Retry tries
 * again. The one second POST: a 400 naming an id the request carried
 * (`visitorId`, `conversationId`) refuses the id, not the question, so with
 * `replaceIds` the ids are replaced and the question asked a last time.
 * (This lives in the first part so that the id rule is bundled once.)
 */
export async function askOnceLoaded(options: AskWithRecovery): Promise<AskOutcome> {
  let engine: AnswerEngine;
  try {
    engine = await loadAnswerEngine();
  } catch (error) {
    return options.signal.aborted ? { type: 'stopped', partialAnswer: '' } : { type: 'failed', failure: { kind: 'not-loaded', detail: String(error) }, partialAnswer: '' };
  }
  const outcome = await engine.askAgent(options);
  const refused = outcome.type === 'failed' ? refusedIds(outcome.failure, options) : [];
  if (!refused.length || !options.replaceIds || options.signal.aborted) return outcome;
  // A second refusal is the outcome, never a loop.
  return engine.askAgent({ ...options, ...options.replaceIds(refused) });
}

/** The ids a failure says were refused, among those the request sent. */
function refusedIds(failure: ChatFailure, options: AskOptions): QueryIdField[] {
  if (failure.status !== 400) return [];
  return queryIdFieldsNamed(failure.detail).filter((field) => Boolean(options[field]));
}
