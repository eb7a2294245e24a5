import type { Source } from '../protocol/index.js';
import { citationDetails, citationsFrom } from './citations.js';
import type { ChatStrings } from './strings.js';

// Part of the answer engine (the chat's second part): an answer's sources are
// listed with the answer, so the first part carries none of the citation code.

/**
 * Fills `holder` with the list of an answer's sources (one per datasource,
 * numbered as the answer's `[n]` markers count), or empties it when there are
 * none. Names and details go in as text, addresses only when http(s).
 * `turnId` names each item (`data-source="<turn>-<n>"`).
 */
export function renderSources(holder: Element, sources: readonly Source[], strings: ChatStrings, turnId: string): void {
  const citations = citationsFrom(sources);
  if (!citations.length) return holder.replaceChildren();
  const document = holder.ownerDocument;
  const make = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string>, ...children: (Node | string)[]) => {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    element.append(...children);
    return element;
  };
  const items = citations.map((citation) => {
    const name = citation.name ?? strings.unnamedSource;
    const details = citationDetails(citation, strings);
    const item = make(
      'li',
      { tabindex: '-1', 'data-source': `${turnId}-${citation.number}` },
      citation.url ? make('a', { href: citation.url, target: '_blank', rel: 'noopener noreferrer' }, name) : name,
      details ? ` · ${details}` : '',
    );
    item.setAttribute('part', 'source');
    return item;
  });
  const list = make('section', { class: 'sources', 'aria-label': strings.sourcesHeading }, make('h3', {}, strings.sourcesHeading), make('ol', {}, ...items));
  list.setAttribute('part', 'sources');
  holder.replaceChildren(list);
}
