// React 19: declare the element once for JSX, then use it like any element.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { KagentChat, KagentChatAttributes, KagentChatListeners, KagentChatProperties } from 'kagent-chat';
import 'kagent-chat';

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'kagent-chat': DetailedHTMLProps<HTMLAttributes<KagentChat>, KagentChat> & KagentChatAttributes & KagentChatProperties & KagentChatListeners;
    }
  }
}

export function Help({ agent }: { agent: string }) {
  return (
    <kagent-chat
      agent-id={agent}
      endpoint="/api/kagent"
      mode="bubble"
      theme="dark"
      queryOptions={{ filters: { custom_ids: ['docs'] } }}
      onkagent-answer={(event) => console.log(event.detail.answer)}
    />
  );
}
