import { createParser } from 'eventsource-parser';
import type { AgentQueryBody } from 'kagent-chat/protocol';
import type { Settings } from '../context.js';
import type { AgentRow, MessageRow } from '../store/records.js';
import type { Retrieved } from './retrieve.js';

// Answers written by an OpenAI-compatible server (Ollama, llama.cpp, vLLM...)
// through `POST /v1/chat/completions` with `stream: true`, grounded in the
// sources the emulator retrieved.

/** The server could not be reached or refused the request. */
export class LanguageModelError extends Error {}

type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** Previous turns sent with a question, at most. */
const HISTORY_MESSAGES = 10;

const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant that answers questions from the documents of a knowledge base.';

/** The chat request for a question: instructions and numbered sources, the conversation so far, the question. */
export function chatRequest(
  agent: AgentRow,
  query: AgentQueryBody,
  sources: readonly Retrieved[],
  history: readonly MessageRow[],
  model: string,
): Record<string, unknown> {
  const context = sources.map((hit, i) => `[${i + 1}] ${hit.datasource.name}\n${hit.fragment.text}`).join('\n\n');
  const system = [
    query.systemPrompt || agent.systemPrompt || DEFAULT_SYSTEM_PROMPT,
    sources.length
      ? `Answer from the numbered sources below only. After each statement, cite its source as [1], [2] and so on. If the sources do not hold the answer, say that you don't know.\n\nSources:\n\n${context}`
      : "No document matches this question: say that you don't know rather than guess.",
  ].join('\n\n');
  const template = query.userPrompt || query.promptTemplate || agent.userPrompt || agent.promptTemplate || '';
  const user = template.includes('{query}') ? template.replaceAll('{query}', query.query).replaceAll('{context}', context) : query.query;
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    ...history.slice(-HISTORY_MESSAGES).map((m): ChatMessage => ({ role: m.from === 'human' ? 'user' : 'assistant', content: m.text })),
    { role: 'user', content: user },
  ];
  const body: Record<string, unknown> = { model, messages, stream: true, temperature: query.temperature ?? agent.temperature };
  // The query's sampling fields under their OpenAI-compatible names.
  if (query.topP !== undefined) body.top_p = query.topP;
  if (query.presencePenalty !== undefined) body.presence_penalty = query.presencePenalty;
  if (query.frequencyPenalty !== undefined) body.frequency_penalty = query.frequencyPenalty;
  if (query.maxCompletionTokens !== undefined) body.max_completion_tokens = query.maxCompletionTokens;
  if (query.maxTokens !== undefined) body.max_tokens = query.maxTokens;
  return body;
}

/**
 * Sends the chat request; resolves once the server accepted it (so a refusal
 * can still be answered with a status), with the answer's deltas to read.
 */
export async function openCompletion(llm: NonNullable<Settings['llm']>, body: Record<string, unknown>, signal?: AbortSignal): Promise<AsyncGenerator<string>> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  if (llm.apiKey) headers.Authorization = `Bearer ${llm.apiKey}`;
  let response: Response;
  try {
    response = await fetch(llm.url, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  } catch (error) {
    const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
    throw new LanguageModelError(`The language model at ${new URL(llm.url).origin} could not be reached: ${cause}`);
  }
  if (!response.ok) {
    const text = (await response.text().catch(() => '')).slice(0, 300);
    throw new LanguageModelError(`The language model answered ${response.status}${text ? `: ${text}` : ''}`);
  }
  const type = response.headers.get('Content-Type') ?? '';
  if (!type.includes('text/event-stream')) return wholeAnswer(response);
  return deltas(response.body!);
}

/** A server that ignored `stream: true` and sent one JSON completion. */
async function* wholeAnswer(response: Response): AsyncGenerator<string> {
  const completion = (await response.json()) as { choices?: { message?: { content?: string } }[] };
  const content = completion.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new LanguageModelError('The language model sent no answer.');
  yield content;
}

/** The `delta.content` of each streamed chunk, until `[DONE]` or the end of the body. */
async function* deltas(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const pending: string[] = [];
  let done = false;
  let failure: string | undefined;
  const parser = createParser({
    onEvent: ({ data }) => {
      if (data === '[DONE]') {
        done = true;
        return;
      }
      try {
        const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string | null } }[]; error?: { message?: string } | string };
        if (chunk.error) failure = typeof chunk.error === 'string' ? chunk.error : (chunk.error.message ?? 'error');
        const content = chunk.choices?.[0]?.delta?.content;
        if (content) pending.push(content);
      } catch {
        failure = `The language model sent a chunk that is not JSON: ${data.slice(0, 100)}`;
      }
    },
  });
  const reader = body.getReader();
  const text = new TextDecoder();
  try {
    while (!done) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      parser.feed(text.decode(value, { stream: true }));
      yield* pending.splice(0);
      if (failure) throw new LanguageModelError(failure);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
