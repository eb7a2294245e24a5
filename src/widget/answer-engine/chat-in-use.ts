// Part of the answer engine (the chat's second part): the chat the visitor is using, so that what the second
// part words by itself (the site's daily budget spent) is in that chat's `strings`.
import type { ChatStrings } from '../element/strings.js';

/** A `<kagent-chat>` as the second part sees it (it imports nothing of the element). */
export type PageChat = HTMLElement & { endpoint?: string; proxyFeatures?: 'auto' | 'off'; strings: ChatStrings };

/** The chat the visitor last focused, or else the last to take in the second part (sessions/gate.ts sets it). */
export const inUse: { chat?: PageChat } = {};
