// Answers that test how the widget streams markdown: the texts the renderer
// once failed to finish, and the scripted service's way to stream any text.
import { DONE_EVENT, answerEvent, endpointResponseEvent } from '../../src/protocol/index.js';
import { markdownAnswer } from './scripted-service.js';

/** One use of a reference, 2,000 blocks, then its definition: once rendered again from the start forever. */
export const LATE_DEFINITION = '[x]\n\n' + 'a\n\n'.repeat(2000) + '[x]: https://e.com\n\nz';

/** A guide cited at the top and defined at the end (6,139 characters), as models write footnotes. */
export const LATE_FOOTNOTE =
  'See the guide [1].\n\n' +
  Array.from({ length: 75 }, (_, i) => `Paragraph ${String(i).padStart(2, '0')} says what the guide explains about the setting.`.padEnd(79, '.') + '\n\n').join('') +
  '[1]: https://example.com/guide\n\nThat is all.';

/** A long answer citing `[1]`-`[3]` throughout (markdownAnswer's citations), with the footnotes defined at its end. */
export function footnotedAnswer(length: number, seed: number): string {
  const definitions = '[1]: https://example.com/one "One"\n[2]: https://example.com/two\n[3]: <https://example.com/three>\n';
  const body = markdownAnswer(length, seed);
  // Whole blocks only, so the definitions never land inside a code block or a table.
  return body.slice(0, body.lastIndexOf('\n\n', length - definitions.length - 2) + 2) + definitions;
}

/** Texts the scripted service streams by name (`/scripted/widget/text-<name>-<size>/...`). */
export const NAMED_ANSWERS: Record<string, string> = {
  'late-definition': LATE_DEFINITION,
  'late-footnote': LATE_FOOTNOTE,
  footnoted: footnotedAnswer(50_000, 3),
};

/** The service's events for `answer` in fragments of `size` characters (whole code points), one network chunk each. */
export function answerEvents(answer: string, size: number): string[] {
  const characters = Array.from(answer);
  const events: string[] = [];
  for (let i = 0; i < characters.length; i += size) events.push(answerEvent(characters.slice(i, i + size).join('')));
  return [...events, endpointResponseEvent(JSON.stringify({ answer, sources: [] })), DONE_EVENT];
}
