import type { Source } from '../../protocol/index.js';
import { citationLinks } from './citations.js';
import { makeElement } from './make-element.js';
import type { ChatStrings } from '../element/strings.js';

// Part of the answer engine (the chat's second part): an answer's sources are
// listed with the answer, so the first part carries none of the citation code.

/**
 * Fills `holder` with the list of an answer's sources (one per datasource,
 * numbered as the answer's `[n]` markers count), or empties it when there are
 * none. Names and details go in as text, addresses only when http(s).
 * `turnId` names each item (`data-source="<turn>-<n>"`).
 */
export function renderSources(holder: Element, sources: readonly Source[], strings: ChatStrings, turnId: string): void {
  const citations = citationLinks(sources, strings);
  if (!citations.length) return holder.replaceChildren();
  const make = (tag: string, attributes: Record<string, string>, ...children: (Node | string)[]) => makeElement(holder.ownerDocument, tag, attributes, ...children);
  const items = citations.map(({ number, url, name, details }) =>
    make(
      'li',
      { tabindex: '-1', 'data-source': `${turnId}-${number}`, part: 'source' },
      url ? make('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, name) : name,
      details ? ` · ${details}` : '',
    ),
  );
  holder.replaceChildren(make('section', { class: 'sources', part: 'sources', 'aria-label': strings.sourcesHeading }, make('h3', {}, strings.sourcesHeading), make('ol', {}, ...items)));
}
