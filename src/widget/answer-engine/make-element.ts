// Part of the answer engine (the chat's second part): the citation markers and the list of
// sources build their elements with it, so neither spells out the DOM calls again.

/**
 * An element of `document` with `attributes` set and `children` appended.
 * Strings go in as text, never parsed as markup.
 */
export function makeElement(document: Document, tag: string, attributes: Record<string, string>, ...children: (Node | string)[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}
