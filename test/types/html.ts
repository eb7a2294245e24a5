// Plain HTML and DOM use of <kagent-chat>, type-checked by `npm run typecheck`.
import 'kagent-chat';

const chat = document.querySelector('kagent-chat')!;
chat.mode = 'bubble';
chat.queryOptions = { filters: { custom_ids: ['docs'] } };
chat.strings = { send: 'Envoyer' };
chat.addEventListener('kagent-answer', (event) => {
  const sources: number = event.detail.sources.length;
  console.log(event.detail.answer, event.detail.conversationId, sources);
});
chat.addEventListener('kagent-error', (event) => console.log(event.detail.kind, event.detail.status));
const sent: boolean = chat.send('Hello');
chat.open();
chat.toggle();
chat.close();
chat.stop();
chat.newConversation();
console.log(sent);
