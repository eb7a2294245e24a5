import createDOMPurify, { type DOMPurify } from 'dompurify';

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

/** Whether `url` is an absolute http(s) address. */
export function isWebAddress(url: unknown): url is string {
  if (typeof url !== 'string') return false;
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

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

/** Elements with no content, written without an end tag. */
const VOID = /^(?:br|hr|img|input)$/;
/** Elements that may hold only text and these (phrasing content). */
const PHRASING = /^(?:a|em|strong|del|code|br|img|input)$/;
const PHRASING_ONLY = /^(?:p|h[1-6]|th|td|a|em|strong|del|code)$/;
/** The only children (besides whitespace) the parser keeps in place inside these. */
const CHILDREN: Record<string, string> = { ul: ' li ', ol: ' li ', table: ' thead tbody ', thead: ' tr ', tbody: ' tr ', tr: ' th td ', pre: ' code ' };
const NEEDS_PARENT = /^(?:li|thead|tbody|tr|th|td)$/;
/** A start tag as marked writes it (attribute values escaped), an end tag, or text. */
const MARKUP = /<(\/?)([a-z][a-z0-9]*)((?: [a-z-]+="[^"<>]*")*)>|[^<]+/y;
/** DOMPurify's result for each start tag seen, an element without content, or null when it is not kept as one. */
const shells = new Map<string, Element | null>();
let decoder: HTMLTextAreaElement | undefined;

/**
 * Sanitized DOM for HTML that marked wrote: the same nodes `sanitizeToNodes`
 * gives, but each distinct start tag goes through DOMPurify only once, and
 * renders reuse the sanitized element (text is inserted as text). HTML whose
 * tags the parser would not take as written (misnested, text where only
 * elements go, anything unexpected) takes the full way through DOMPurify.
 */
export function sanitizeMarkup(html: string): Node[] {
  return fromShells(html) ?? sanitizeToNodes(html);
}

function fromShells(html: string): Node[] | null {
  // The parser drops NUL and rewrites CR: not worth copying, rare.
  if (/[\0\r]/.test(html)) return null;
  const top: Node[] = [];
  const open: Element[] = [];
  let links = 0;
  for (MARKUP.lastIndex = 0; MARKUP.lastIndex < html.length; ) {
    const match = MARKUP.exec(html);
    if (!match) return null;
    const [markup, end, name] = match;
    const parent = open.at(-1);
    const only = parent && CHILDREN[parent.localName];
    let node: Node;
    if (!name) {
      // The parser moves text out of tables and lists, and drops a newline just inside <pre>.
      if (only && (parent.localName === 'pre' || /\S/.test(markup))) return null;
      node = document.createTextNode(markup.includes('&') ? decode(markup) : markup);
    } else if (end) {
      if (parent?.localName !== name) return null;
      open.pop();
      if (name === 'a') links--;
      continue;
    } else {
      if (only ? !only.includes(` ${name} `) : NEEDS_PARENT.test(name)) return null;
      if ((parent && PHRASING_ONLY.test(parent.localName) && !PHRASING.test(name)) || (name === 'a' && links)) return null;
      const shell = shellFor(markup, name);
      if (!shell) return null;
      node = shell.cloneNode(false);
    }
    if (parent) parent.append(node);
    else top.push(node);
    if (name && !end && !VOID.test(name)) {
      open.push(node as Element);
      if (name === 'a') links++;
    }
  }
  return open.length ? null : top;
}

/** The table elements a part of a table must sit in to be parsed at all. */
const TABLE_PARENTS: Record<string, number> = { thead: 1, tbody: 1, tr: 2, th: 3, td: 3 };

function shellFor(startTag: string, name: string): Element | null {
  let shell = shells.get(startTag);
  if (shell === undefined) {
    const parents = ['table', 'tbody', 'tr'].slice(0, TABLE_PARENTS[name] ?? 0);
    let nodes = sanitizeToNodes(parents.map((p) => `<${p}>`).join('') + (VOID.test(name) ? startTag : `${startTag}</${name}>`));
    for (const _ of parents) nodes = nodes.length === 1 ? Array.from(nodes[0]!.childNodes) : [];
    const [node, ...rest] = nodes;
    shell = !rest.length && node instanceof Element && node.localName === name && !node.firstChild ? document.importNode(node, false) : null;
    // A long answer with many links should not grow the cache without end.
    if (shells.size > 500) shells.clear();
    shells.set(startTag, shell);
  }
  return shell;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** Decodes character references as the HTML parser does (a textarea's content is text, never elements). */
function decode(text: string): string {
  if (!/&(?!(?:amp|lt|gt|quot|#39);)/.test(text)) return text.replace(/&\w+;|&#39;/g, (entity) => ENTITIES[entity]!);
  decoder ??= document.createElement('textarea');
  decoder.innerHTML = text;
  return decoder.value;
}
