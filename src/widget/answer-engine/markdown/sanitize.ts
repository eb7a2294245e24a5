import createDOMPurify, { type Config, type DOMPurify } from 'dompurify';
import { chatPolicy } from '../trusted-types.js';

/** Tags markdown can produce; everything else (script, style, form, iframe, object, svg...) is removed. */
const ALLOWED_TAGS = [
  'a', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr',
  'img', 'input', 'li', 'ol', 'p', 'pre', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'src', 'alt', 'start', 'align', 'class', 'type', 'checked', 'disabled'];

/** Link targets a visitor may follow from an answer. */
const SAFE_LINK = /^(?:https?:|mailto:|tel:)/i;
/** Images load only from the web, never from `data:` or other schemes. */
const SAFE_IMAGE = /^https?:/i;
/** The only class kept: the language of a code block. */
const CODE_LANGUAGE = /^language-[\w+#.-]{1,40}$/;

let purifier: DOMPurify | undefined;

// A private instance: its hooks and config never touch a DOMPurify the host page uses.
function getPurifier(): DOMPurify {
  if (purifier) return purifier;
  const instance = createDOMPurify(window);
  instance.setConfig({
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    // DOMPurify's own address rule stays (it also judges plain values such as type="checkbox");
    // the stricter rules for href and src are applied below.
    RETURN_DOM_FRAGMENT: true,
    // On a page that enforces Trusted Types, DOMPurify parses with the chat's own named policy.
    TRUSTED_TYPES_POLICY: (chatPolicy() ?? undefined) as Config['TRUSTED_TYPES_POLICY'],
  });
  instance.addHook('afterSanitizeAttributes', (node) => {
    const element = node as Element;
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
  });
  purifier = instance;
  return instance;
}

/**
 * Turns renderer HTML into sanitized DOM nodes, ready to insert. DOMPurify
 * parses it in an inert document (nothing loads or runs) and cleans it there.
 */
export function sanitizeToNodes(html: string): Node[] {
  return Array.from(getPurifier().sanitize(html, { RETURN_DOM_FRAGMENT: true }).childNodes);
}

