// Svelte 5: declare the element for `svelte-check`; in a .svelte file it is then
// <kagent-chat agent-id="docs" endpoint="/api/kagent" mode="bubble" onkagent-answer={(e) => ...} />.
import type { HTMLAttributes } from 'svelte/elements';
import type { KagentChat, KagentChatAttributes, KagentChatListeners, KagentChatProperties } from 'kagent-chat';
import 'kagent-chat';

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    'kagent-chat': HTMLAttributes<KagentChat> & KagentChatAttributes & KagentChatProperties & KagentChatListeners;
  }
}

// What the Svelte compiler checks a <kagent-chat> tag against:
const attributes: import('svelte/elements').SvelteHTMLElements['kagent-chat'] = {
  'agent-id': 'docs',
  endpoint: '/api/kagent',
  mode: 'bubble',
  position: 'bottom-start',
  'onkagent-answer': (event) => console.log(event.detail.sources.length),
};
export default attributes;
