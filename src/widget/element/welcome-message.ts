import type { AnswerEngineController } from './answer-engine-controller.js';
import { isPlainText, plainTextNodes } from './plain-text.js';

/**
 * The welcome message's nodes, made once per text: plain text at once;
 * markdown once the second part is here (nothing until then; plain text if
 * it cannot be fetched). Markup to show asks for the second part, unless
 * `mayFetch` is false (a closed bubble: showing it would fetch the second
 * part for a chat nobody opened).
 */
export class WelcomeMessage {
  #made: { text: string; nodes: Node[] } | undefined;

  nodes(text: string, engine: AnswerEngineController, mayFetch: boolean): Node[] | undefined {
    if (!text) return undefined;
    if (this.#made?.text === text) return this.#made.nodes;
    if (isPlainText(text)) return (this.#made = { text, nodes: plainTextNodes(text) }).nodes;
    if (engine.value) return (this.#made = { text, nodes: engine.value.renderMarkdown(text) }).nodes;
    if (engine.status === 'error') return plainTextNodes(text);
    if (mayFetch) engine.need();
    return [];
  }
}
