import {
  DONE_EVENT,
  EVENT_STREAM_HEADERS,
  answerEvent,
  checkAgentQuery,
  endpointResponseEvent,
  errorLine,
  type AgentQueryBody,
  type Source,
} from 'kagent-chat/protocol';
import { answerPieces, composeAnswer, holdsMeasure, intentOf } from '../answers/compose.js';
import { LanguageModelError, chatRequest, openCompletion } from '../answers/llm.js';
import { asksForPrice, statesPrice } from '../answers/price.js';
import { pickSources, retrieve, type Retrieved } from '../answers/retrieve.js';
import { HEADING_MATCH } from '../search/fragment-index.js';
import { questionRead } from '../search/terms.js';
import { fileUrlFor, reachable, type RequestContext } from '../context.js';
import { readJson, valid } from '../http/body.js';
import { HttpError, json } from '../http/responses.js';
import { newId } from '../ids.js';
import { yieldToRequests } from '../yield.js';
import type { AgentRow, Change, ConversationRow } from '../store/records.js';
import { datasourceFilter } from './datastores.js';

// `POST /agents/{id}/query` (4.1): retrieve from the agent's datastores,
// answer (extractively, or with the language model at `llmUrl`), and reply as
// JSON or as the event stream of wire-format.md.

const encoder = new TextEncoder();

/** What one answer needs once the request has been accepted. */
interface Turn {
  agent: AgentRow;
  body: AgentQueryBody;
  /** The part of the question that is read (`questionRead`): the search and the answer cost the same however long the question is. */
  question: string;
  conversation: ConversationRow;
  isNewConversation: boolean;
  hits: Retrieved[];
  /** No source scored above the threshold: `hits` holds the closest passage found. */
  closest: boolean;
  sources: Source[];
  messageId: string;
}

export async function queryAgent(context: RequestContext): Promise<Response> {
  const id = context.params.id!;
  const body = valid(checkAgentQuery(await readJson(context.request), { strictModelNames: true }));
  // Section 7: on agent query a refusal is reported as unauthorized.
  const agent = reachable(context.store.agents.get(id), context.caller, 'agent', id, 'read', 'UNAUTHORIZED');
  const owner = context.store.organizations.get(agent.organizationId)!;
  if (body.filters && owner.id !== context.caller.organization.id) {
    throw new HttpError(403, 'Filters may be used only on your own agents.', { code: 'UNAUTHORIZED' });
  }
  if (owner.agentQueries >= context.settings.usageLimit) {
    if (body.streaming && context.settings.usageLimitInStream) {
      return new Response(errorLine('USAGE_LIMIT'), { status: 200, headers: EVENT_STREAM_HEADERS });
    }
    throw new HttpError(402, `The usage limit of ${context.settings.usageLimit} agent queries has been reached.`, { code: 'USAGE_LIMIT' });
  }

  const turn = startTurn(context, agent, body);
  const llm = context.settings.llm;
  const abort = new AbortController();
  let pieces: AsyncIterable<string>;
  if (llm) {
    const history = turn.conversation.messages;
    const request = chatRequest(agent, body, turn.hits, history, llm.model ?? body.modelName ?? agent.modelName);
    try {
      pieces = await openCompletion(llm, request, abort.signal);
    } catch (error) {
      if (error instanceof LanguageModelError) throw new HttpError(502, error.message);
      throw error;
    }
  } else {
    pieces = paced(answerPieces(composeAnswer(turn.question, turn.hits, { closest: turn.closest })), context.settings.pace, abort.signal);
  }
  // A question longer than is read is journaled whole: a write of megabytes, in a turn after the search and the answer's composing.
  if (turn.question.length < body.query.length) await yieldToRequests();
  recordQuestion(context, turn);

  if (!body.streaming) {
    let answer = '';
    try {
      for await (const piece of pieces) answer += piece;
    } catch (error) {
      if (error instanceof LanguageModelError) throw new HttpError(502, error.message);
      throw error;
    }
    recordAnswer(context, turn, answer);
    return json({
      ...answerBody(turn, answer),
      usage: estimatedUsage(body.query, turn.hits, answer),
      approvals: [],
    });
  }
  return new Response(eventStream(context, turn, pieces, abort), { status: 200, headers: EVENT_STREAM_HEADERS });
}

/** Finds or opens the conversation and picks the sources, before anything is written. */
function startTurn(context: RequestContext, agent: AgentRow, body: AgentQueryBody): Turn {
  const conversationId = body.conversationId || newId();
  const existing = context.store.conversations.get(conversationId);
  if (existing && existing.agentId !== agent.id) {
    throw new HttpError(400, 'Invalid request: conversationId belongs to a conversation with another agent');
  }
  const now = new Date().toISOString();
  const conversation: ConversationRow = existing ?? {
    id: conversationId,
    agentId: agent.id,
    organizationId: agent.organizationId,
    visitorId: body.visitorId || newId(),
    createdAt: now,
    updatedAt: now,
    messages: [],
  };
  const datastoreIds = agent.datastoreIds.filter((datastoreId) => context.store.datastores.has(datastoreId));
  // A how-to question is answered by the section whose title names its task; "what is X" by the one whose title names X.
  const question = questionRead(body.query);
  const intent = intentOf(question);
  const headingMatch = intent.how || intent.overview ? HEADING_MATCH : 0;
  const found = retrieve(context.store, context.indexes, datastoreIds, question, datasourceFilter(context.store, body.filters), { headingMatch });
  // A question about money is answered only from passages that state a price (price.ts).
  const retrieved = asksForPrice(question) ? found.filter((hit) => statesPrice(hit.fragment.text)) : found;
  // A figure question's closest passage is one holding a measure (a number with its unit), when one came close.
  const answers = intent.figure ? (hit: Retrieved) => holdsMeasure(hit.fragment.text) : undefined;
  const { sources, hits, closest } = pickSources(retrieved, context.settings.sourceThreshold, fileUrlFor(context), context.settings.closestThreshold, answers, context.settings.answerableThreshold);
  return { agent, body, question, conversation, isNewConversation: !existing, hits, closest, sources, messageId: newId() };
}

/**
 * Writes the question and counts the query against the agent's organization. Both are read
 * again here: other requests may have run since the turn started (while a model was asked, or
 * a long question waited for its turn), counting queries or opening the same conversation.
 */
function recordQuestion(context: RequestContext, turn: Turn): void {
  const now = new Date().toISOString();
  const owner = context.store.organizations.get(turn.agent.organizationId)!;
  const changes: Change[] = [{ put: 'organization', row: { ...owner, agentQueries: owner.agentQueries + 1 } }];
  if (turn.isNewConversation && !context.store.conversations.has(turn.conversation.id)) changes.push({ put: 'conversation', row: { ...turn.conversation, messages: [] } });
  changes.push({
    append: 'message',
    conversationId: turn.conversation.id,
    message: { id: newId(), from: 'human', text: turn.body.query, createdAt: now },
    updatedAt: now,
  });
  context.store.commit(changes);
}

function recordAnswer(context: RequestContext, turn: Turn, answer: string): void {
  if (!answer) return;
  const now = new Date().toISOString();
  try {
    context.store.commit([
      {
        append: 'message',
        conversationId: turn.conversation.id,
        message: { id: turn.messageId, from: 'agent', text: answer, sources: turn.sources, createdAt: now },
        updatedAt: now,
      },
    ]);
  } catch (error) {
    // The emulator closed while the answer streamed.
    context.settings.log(`could not keep the answer of conversation ${turn.conversation.id}: ${(error as Error).message}`);
  }
}

/** The JSON answer (the body of a JSON reply, and the `endpoint_response` of a stream). */
function answerBody(turn: Turn, answer: string) {
  return {
    messageId: turn.messageId,
    answer,
    sources: turn.sources,
    conversationId: turn.conversation.id,
    visitorId: turn.conversation.visitorId,
    metadata: {},
  };
}

/**
 * The stream exactly as the service writes it: `answer` events of URI-encoded
 * pieces, one `endpoint_response` with the whole JSON answer, then `event: `
 * with `data: [DONE]`. A failure after it opened is a bare `data: [ERROR]...`
 * line. When the client goes away the answer stops and what was written is kept.
 */
function eventStream(context: RequestContext, turn: Turn, pieces: AsyncIterable<string>, abort: AbortController): ReadableStream<Uint8Array> {
  let answer = '';
  async function* wire(): AsyncGenerator<string> {
    try {
      for await (const piece of pieces) {
        answer += piece;
        yield answerEvent(piece);
      }
      yield endpointResponseEvent(JSON.stringify(answerBody(turn, answer)));
      yield DONE_EVENT;
    } catch (error) {
      if (abort.signal.aborted) return;
      if (!(error instanceof LanguageModelError)) context.settings.log(`answer stream failed: ${(error as Error).stack ?? String(error)}`);
      yield errorLine(error instanceof LanguageModelError ? error.message : 'INTERNAL_ERROR');
    } finally {
      recordAnswer(context, turn, answer);
    }
  }
  const lines = wire();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      abort.abort();
      await lines.return(undefined);
    },
  });
}

/** The pieces with `pace` milliseconds between them, as a model's deltas arrive. */
async function* paced(pieces: readonly string[], pace: number, signal: AbortSignal): AsyncGenerator<string> {
  for (const [i, piece] of pieces.entries()) {
    if (signal.aborted) return;
    if (i > 0 && pace > 0) await new Promise((resolve) => setTimeout(resolve, pace));
    yield piece;
  }
}

/** Token counts as a model would report them, estimated at four characters a token. */
function estimatedUsage(query: string, hits: readonly Retrieved[], answer: string) {
  const promptTokens = Math.ceil((query.length + hits.reduce((sum, hit) => sum + hit.fragment.text.length, 0)) / 4);
  const completionTokens = Math.ceil(answer.length / 4);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cost: 0 };
}
