// The chat's sanitizer where the browser has none of its own (Safari today): DOMPurify, in a chunk
// of its own that only those browsers fetch (markdown/sanitize.ts imports it on first need).
import createDOMPurify, { type Config } from 'dompurify';
import type { ChatPolicy } from '../trusted-types.js';
import type { MarkdownPolicy } from './policy.js';

/**
 * The policy as a private DOMPurify instance (its hooks and config never
 * touch a DOMPurify the host page uses). DOMPurify parses the HTML in an
 * inert document (nothing loads or runs), cleans it there, and hands the
 * nodes over. The policy and the chat's Trusted Types policy (null where
 * there is none) come as arguments, so this chunk imports nothing from the
 * one that loads it.
 */
export function domPurifySanitizer({ tags, attributes, finishElement }: MarkdownPolicy, trustedTypesPolicy: ChatPolicy | null): (html: string) => Node[] {
  const purifier = createDOMPurify(window);
  purifier.setConfig({
    // (Read into DOMPurify's own sets, never changed: the tags and attributes are in lower case.)
    ALLOWED_TAGS: tags as string[],
    ALLOWED_ATTR: attributes as string[],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    // DOMPurify's own address rule stays (it also judges plain values such as type="checkbox");
    // the stricter rules for href and src are the policy's.
    RETURN_DOM_FRAGMENT: true,
    // On a page that enforces Trusted Types, DOMPurify parses with the chat's own named policy.
    TRUSTED_TYPES_POLICY: (trustedTypesPolicy ?? undefined) as Config['TRUSTED_TYPES_POLICY'],
  });
  purifier.addHook('afterSanitizeAttributes', finishElement as (node: Node) => void);
  // With a config set, DOMPurify sanitizes by it alone (a fragment), whatever config a call gives.
  return (html) => [...(purifier.sanitize(html) as unknown as DocumentFragment).childNodes];
}
