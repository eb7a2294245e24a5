import * as v from 'valibot';
import { StrictAgentCreateBody, StrictAgentUpdateBody, checkEmptyBody, checkWith, jsonObject, textList, type ListResponse } from 'kagent-chat/protocol';
import { reachable, nowIso, type RequestContext } from '../context.js';
import { readJson, pageOf, valid } from '../http/body.js';
import { HttpError, json } from '../http/responses.js';
import { newId } from '../ids.js';
import { agentRecord } from '../present.js';
import type { AgentRow } from '../store/records.js';
import { cleanName } from '../http/names.js';

// Agents (AI Employees): 4.2 update, 4.3 delete, and the create, list and get
// operations section 4.10 leaves out, shaped like the others.

/** The agent's fields of `PATCH /agents/{id}`, plus the datastores it answers from. */
const AgentChangeBody = jsonObject({ ...StrictAgentUpdateBody.pipe[1].entries, datastoreIds: v.optional(textList()) }, 'must be a JSON object');


export const DEFAULT_MODEL_NAME = 'claude_4_5_haiku';

/** `GET /agents`: the organization's agents, oldest first. */
export function listAgents(context: RequestContext): Response {
  const { page, limit } = pageOf(context.url);
  const all = [...context.store.agents.values()].filter((row) => row.organizationId === context.caller.organization.id);
  const body: ListResponse<unknown> = { data: all.slice((page - 1) * limit, page * limit).map(agentRecord), meta: { page, limit, total: all.length } };
  return json(body);
}

/** `POST /agents`: 201 with the new agent. */
export async function createAgent(context: RequestContext): Promise<Response> {
  const body = valid(checkWith(StrictAgentCreateBody, await readJson(context.request)));
  const datastoreIds = ownDatastores(context, body.datastoreIds ?? []);
  const now = nowIso();
  const row: AgentRow = {
    id: newId(),
    organizationId: context.caller.organization.id,
    name: cleanName(body.name, 'Agent'),
    description: body.description ?? '',
    modelName: body.modelName ?? DEFAULT_MODEL_NAME,
    temperature: body.temperature ?? 0,
    visibility: body.visibility ?? 'private',
    systemPrompt: body.systemPrompt ?? '',
    userPrompt: body.userPrompt ?? '',
    promptType: body.promptType ?? 'raw',
    promptTemplate: body.promptTemplate ?? null,
    datastoreIds,
    createdAt: now,
    updatedAt: now,
  };
  context.store.commit([{ put: 'agent', row }]);
  return json(agentRecord(row), 201);
}

/** `GET /agents/{id}`: public agents can be read by any key. */
export function getAgent(context: RequestContext): Response {
  const id = context.params.id!;
  return json(agentRecord(reachable(context.store.agents.get(id), context.caller, 'agent', id, 'read')));
}

/** `PATCH /agents/{id}` (4.2): the updated agent. */
export async function updateAgent(context: RequestContext): Promise<Response> {
  const id = context.params.id!;
  const body = valid(checkWith(AgentChangeBody, await readJson(context.request)));
  const row = reachable(context.store.agents.get(id), context.caller, 'agent', id, 'write');
  const changed: AgentRow = { ...row, updatedAt: nowIso() };
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (field === 'datastoreIds') changed.datastoreIds = ownDatastores(context, value as string[]);
    else if (field === 'name') changed.name = cleanName(value as string, row.name);
    else (changed as unknown as Record<string, unknown>)[field] = value;
  }
  context.store.commit([{ put: 'agent', row: changed }]);
  return json(agentRecord(changed));
}

/** `DELETE /agents/{id}` (4.3): the deleted agent; its conversations go with it. */
export async function deleteAgent(context: RequestContext): Promise<Response> {
  const id = context.params.id!;
  valid(checkEmptyBody(await readJson(context.request, { optional: true })));
  const row = reachable(context.store.agents.get(id), context.caller, 'agent', id, 'write');
  const conversations = [...context.store.conversations.values()].filter((conversation) => conversation.agentId === id);
  context.store.commit([...conversations.map((conversation) => ({ delete: 'conversation' as const, id: conversation.id })), { delete: 'agent', id }]);
  return json(agentRecord(row));
}

/** Datastores an agent may answer from: the caller's own, or public ones. */
function ownDatastores(context: RequestContext, ids: readonly string[]): string[] {
  for (const [i, id] of ids.entries()) {
    const datastore = context.store.datastores.get(id);
    if (!datastore) throw new HttpError(400, `Invalid request: datastoreIds.${i} is not a datastore (${id})`);
    reachable(datastore, context.caller, 'datastore', id, 'read');
  }
  return [...new Set(ids)];
}
