/**
 * The one Trusted Types policy the chat creates. A page that enforces
 * Trusted Types (`require-trusted-types-for 'script'`) lists it, with Lit's
 * `lit-html`, in its `trusted-types` directive.
 */
export const TRUSTED_TYPES_POLICY_NAME = 'kagent-chat';

/** The two rules DOMPurify asks of a policy it is given. */
export interface ChatPolicy {
  createHTML(html: string): string;
  createScriptURL(url: string): string;
}

interface TrustedTypesFactory {
  createPolicy(name: string, rules: { createHTML(html: string): string; createScriptURL(url: string): string }): ChatPolicy;
}

let policy: ChatPolicy | null | undefined;
/** The one script address the policy vouches for: the one being loaded now (`trustedScriptUrl`). */
let scriptUrl: string | undefined;

/**
 * The chat's policy, created on first use; null where the browser has no
 * Trusted Types or the page did not allow the name (said on the console).
 *
 * It is handed only to the chat's private DOMPurify, which uses it to parse
 * the markdown renderer's HTML in an inert document (nothing there loads or
 * runs) and then sanitizes the result, and to the session keeper for its
 * solver Worker's address and Cloudflare Turnstile's; no other code can reach it.
 */
export function chatPolicy(): ChatPolicy | null {
  if (policy !== undefined) return policy;
  const factory = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
  if (!factory) return (policy = null);
  try {
    policy = factory.createPolicy(TRUSTED_TYPES_POLICY_NAME, {
      createHTML: (html) => html,
      // The chat loads no script but its session solver's Worker and Turnstile's; anything else (an attribute asking for one) gets an address that loads nothing.
      createScriptURL: (url) => (url === scriptUrl ? url : 'about:invalid#kagent-chat'),
    });
  } catch (error) {
    console.error(`kagent-chat: list "${TRUSTED_TYPES_POLICY_NAME}" in the page's trusted-types directive ('allow-duplicates' too if the chat loads twice)`, error);
    policy = null;
  }
  return policy;
}

/**
 * A script's address (the session solver's Worker, Cloudflare Turnstile's
 * script) as a page that enforces Trusted Types wants it: vouched for by the
 * chat's policy, where the browser has Trusted Types; as it is elsewhere.
 */
export function trustedScriptUrl(url: URL): string | URL {
  // Without Trusted Types the policy is null and the address goes as it is.
  scriptUrl = url.href;
  return chatPolicy()?.createScriptURL(url.href) ?? url;
}
