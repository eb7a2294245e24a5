import type { Source } from '../../protocol/index.js';
import { citationLinks, sourceWord } from './citations.js';
import { makeElement } from './make-element.js';
import type { ChatStrings } from '../element/strings.js';

// Part of the answer engine (the chat's second part): an answer's sources are
// listed with the answer, so the first part carries none of the citation code.

/**
 * Puts the list of an answer's sources (one per datasource, numbered as the
 * answer's `[n]` markers count) first in `holder`, before anything else drawn
 * under the answer (its feedback buttons); nothing when there are none. Names and details go in as text, addresses only when http(s).
 * `turnId` names each item (`data-source="<turn>-<n>"`).
 */
export function renderSources(holder: Element, sources: readonly Source[], strings: ChatStrings, turnId: string): void {
  const citations = citationLinks(sources, strings);
  if (!citations.length) return;
  const make = (tag: string, attributes: Record<string, string>, ...children: (Node | string)[]) => makeElement(holder.ownerDocument, tag, attributes, ...children);
  const items = citations.map(({ number, url, name, details }) =>
    make(
      'li',
      { tabindex: '-1', 'data-source': `${turnId}-${number}`, part: 'source' },
      url ? make('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, name) : name,
      details ? ` · ${details}` : '',
    ),
  );
  const heading = sourceWord(strings, 'sourcesHeading');
  holder.prepend(make('section', { class: 'sources', part: 'sources', 'aria-label': heading }, make('h3', {}, heading), make('ol', {}, ...items)));
}
