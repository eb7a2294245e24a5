// Vue 3: tell the compiler it is a custom element (`isCustomElement: (tag) => tag === 'kagent-chat'`),
// and declare it for templates; here the same props are checked through a render function.
import { defineComponent, h, type DefineComponent } from 'vue';
import type { KagentChatAttributes, KagentChatProperties } from 'kagent-chat';
import 'kagent-chat';

declare module 'vue' {
  interface GlobalComponents {
    'kagent-chat': DefineComponent<KagentChatAttributes & KagentChatProperties>;
  }
}

const props: KagentChatAttributes & KagentChatProperties = { 'agent-id': 'docs', endpoint: '/api/kagent', mode: 'inline', theme: 'light' };

export const Help = defineComponent({
  setup() {
    return () =>
      h('kagent-chat', {
        ...props,
        // `^` sets a property rather than an attribute.
        '^queryOptions': { filters: { custom_ids: ['docs'] } },
        'onKagent-answer': (event: CustomEvent<import('kagent-chat').KagentAnswerDetail>) => console.log(event.detail.answer),
      });
  },
});
