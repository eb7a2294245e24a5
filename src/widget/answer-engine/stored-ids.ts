// Part of the answer engine (the chat's second part): the ids a chat keeps for its queries (`visitorId`,
// `conversationId`), as its answers change them. Here, not in the first part: they change only with an answer, which
// only this part can fetch.
import { isValidQueryId, queryIdFieldsNamed, type QueryIdField } from '../../protocol/query-ids.js';
import { newId } from '../new-id.js';
import { askAgent, type AskOptions, type AskOutcome } from './answer-request.js';

/** Ids of a chat's queries that changed: for it to keep. */
export type ChangedIds = Partial<Record<QueryIdField, string>>;

/**
 * `askAgent` with the chat's stored ids, and `keep` given each change to them. An answer's ids are kept where the
 * proxy would let them through (adopting another would make every next question fail). An id the endpoint refuses
 * (400) refuses the stored id, not the question: it is replaced (kept at once, so a reload does not bring the refused
 * one back) and the question asked a last time, the one second POST. A second refusal is the outcome, never a loop.
 */
export async function askWithStoredIds(options: AskOptions, keep: (ids: ChangedIds) => void): Promise<AskOutcome> {
  let outcome = await askAgent(options);
  const refused = outcome.type === 'failed' && outcome.failure.status === 400 ? queryIdFieldsNamed(outcome.failure.detail).filter((field) => Boolean(options[field])) : [];
  if (refused.length && !options.signal.aborted) {
    const replaced: ChangedIds = {};
    for (const field of refused) replaced[field] = newId();
    console.warn(`kagent-chat: the endpoint refused the stored ${refused.join(' and ')}; asking again with a new one`);
    keep(replaced);
    outcome = await askAgent({ ...options, ...replaced });
  }
  if (outcome.type === 'answered') {
    const { conversationId, visitorId } = outcome.response ?? {};
    keep({ ...(isValidQueryId(conversationId) && { conversationId }), ...(isValidQueryId(visitorId) && { visitorId }) });
  }
  return outcome;
}
