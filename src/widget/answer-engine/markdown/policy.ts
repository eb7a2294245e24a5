// The chat's markdown policy, written once: what an answer may hold once sanitized. Both
// sanitizers apply it: the browser's own (Element.setHTML with a Sanitizer) and DOMPurify.

/** The policy as one value, for the sanitizer that comes in a chunk of its own. */
export interface MarkdownPolicy {
  tags: readonly string[];
  attributes: readonly string[];
  finishElement: (element: Element) => void;
}

/** Tags markdown can produce; everything else (script, style, form, iframe, object, svg...) is removed. */
export const ALLOWED_TAGS = [
  'a', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr',
  'img', 'input', 'li', 'ol', 'p', 'pre', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul',
];
/** Attributes kept on them. No `id` or `name`: nothing in an answer can clobber a global or a form's field. */
export const ALLOWED_ATTR = ['href', 'title', 'src', 'alt', 'start', 'align', 'class', 'type', 'checked', 'disabled'];

/** Link targets a visitor may follow from an answer. */
const SAFE_LINK = /^(?:https?:|mailto:|tel:)/i;
/** Images load only from the web, never from `data:` or other schemes. */
const SAFE_IMAGE = /^https?:/i;
/** The only class kept: the language of a code block. */
const CODE_LANGUAGE = /^language-[\w+#.-]{1,40}$/;

/**
 * The rules no sanitizer's allow-list can say, applied to each element it
 * kept (the browser's sanitizer: to links, images, inputs and anything with a
 * class, the only elements they concern): links only to http(s), mail and phone addresses, opening in a new
 * tab without an opener or referrer; images only from http(s) (others become
 * their alt text), lazy and without a referrer; inputs only as the disabled
 * boxes of a task list; classes only as a code block's language.
 */
export function finishElement(element: Element): void {
  // A title or alt text without the blank lines around it (DOMPurify trims every value; the browser's sanitizer keeps them).
  for (const name of ['title', 'alt']) {
    const value = element.getAttribute(name);
    if (value !== null && value !== value.trim()) element.setAttribute(name, value.trim());
  }
  switch (element.localName) {
    case 'a': {
      const href = element.getAttribute('href');
      if (href !== null && !SAFE_LINK.test(href.trim())) element.removeAttribute('href');
      element.setAttribute('target', '_blank');
      element.setAttribute('rel', 'noopener noreferrer');
      break;
    }
    case 'img': {
      const src = element.getAttribute('src');
      if (src === null || !SAFE_IMAGE.test(src.trim())) {
        // Keep what the image was about, as text.
        element.replaceWith(element.ownerDocument.createTextNode(element.getAttribute('alt') ?? ''));
        return;
      }
      element.setAttribute('loading', 'lazy');
      element.setAttribute('referrerpolicy', 'no-referrer');
      break;
    }
    case 'input':
      // Task-list boxes only, and never editable.
      if (element.getAttribute('type') !== 'checkbox') {
        element.remove();
        return;
      }
      element.setAttribute('disabled', '');
      break;
  }
  const className = element.getAttribute('class');
  if (className !== null && !(element.localName === 'code' && CODE_LANGUAGE.test(className))) element.removeAttribute('class');
}
