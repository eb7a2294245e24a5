// React 19: declare the element once for JSX, then use it like any element.
// React sets a property when the element has one (queryOptions, streaming, suggestions,
// opened) and an attribute otherwise (agent-id); on<event> props become listeners.
import { useRef, type DetailedHTMLProps, type HTMLAttributes } from 'react';
import type { KagentChat, KagentChatListeners, KagentChatProperties } from 'kagent-chat';
import 'kagent-chat';

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'kagent-chat': DetailedHTMLProps<HTMLAttributes<KagentChat>, KagentChat> & KagentChatProperties & KagentChatListeners;
    }
  }
}

export function Help({ agent, topics }: { agent: string; topics: string[] }) {
  const chat = useRef<KagentChat>(null);
  return (
    <>
      <kagent-chat
        ref={chat}
        className="help"
        agent-id={agent}
        endpoint="/api/kagent"
        mode="bubble"
        theme="dark"
        streaming={false}
        suggestions={['How do I start?', 'What does it cost?']}
        queryOptions={{ filters: { custom_ids: topics } }}
        strings={{ send: 'Ask' }}
        onkagent-send={(event) => console.log(event.detail.question, event.detail.retry)}
        onkagent-answer={(event) => console.log(event.detail.answer, event.detail.sources.length, event.detail.conversationId)}
        onkagent-error={(event) => console.log(event.detail.kind, event.detail.status)}
      />
      <button type="button" onClick={() => chat.current?.open()}>
        Help
      </button>
    </>
  );
}
