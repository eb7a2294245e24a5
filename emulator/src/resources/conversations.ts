import { checkConversationsQuery, type ListResponse } from 'kagent-chat/protocol';
import { reachable, type RequestContext } from '../context.js';
import { valid } from '../http/body.js';
import { json } from '../http/responses.js';
import { conversationRecord } from '../present.js';

/**
 * `GET /v1/agents/{id}/conversations` (4.9): the agent's conversations with
 * their messages, oldest first; `after` (a date) keeps those started after
 * it, so the last one's `createdAt` fetches the next page; `limit` (default
 * 20, at most 100) caps the page. Only the agent's organization may read them.
 */
export function listConversations(context: RequestContext): Response {
  const id = context.params.id!;
  const raw = (name: string): unknown => {
    const value = context.url.searchParams.get(name);
    if (value === null) return undefined;
    return name === 'limit' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  };
  const query = valid(checkConversationsQuery({ limit: raw('limit'), after: raw('after') }));
  reachable(context.store.agents.get(id), context.caller, 'agent', id, 'write');
  const after = query.after === undefined ? Number.NEGATIVE_INFINITY : Date.parse(query.after);
  const limit = Math.min(query.limit ?? 20, 100);
  const matching = [...context.store.conversations.values()]
    .filter((row) => row.agentId === id && Date.parse(row.createdAt) > after)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const body: ListResponse<unknown> = { data: matching.slice(0, limit).map(conversationRecord), meta: { page: 1, limit, total: matching.length } };
  return json(body);
}
