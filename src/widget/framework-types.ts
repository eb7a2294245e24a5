// Types for declaring <kagent-chat> to a framework's template checker (React, Vue, Svelte…).
import type { ChatStringsOverride } from './strings.js';
import type { KagentAnswerDetail, KagentErrorDetail, KagentSendDetail } from './kagent-chat.js';

/** The element's attributes, as a template writes them. */
export interface KagentChatAttributes {
  'agent-id'?: string;
  endpoint?: string;
  streaming?: 'true' | 'false';
  mode?: 'inline' | 'bubble';
  position?: 'bottom-end' | 'bottom-start' | 'top-end' | 'top-start' | 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left';
  open?: boolean;
  theme?: 'auto' | 'light' | 'dark';
  heading?: string;
  placeholder?: string;
  welcome?: string;
  suggestions?: string;
  lang?: string;
  dir?: 'ltr' | 'rtl' | 'auto';
}

/** Properties a framework can set directly (React 19, Vue `.prop`, Svelte). */
export interface KagentChatProperties {
  queryOptions?: Record<string, unknown>;
  strings?: ChatStringsOverride;
}

/** Listeners, named `on` + the event name (the React 19 and Svelte 5 form). */
export interface KagentChatListeners {
  'onkagent-send'?: (event: CustomEvent<KagentSendDetail>) => void;
  'onkagent-answer'?: (event: CustomEvent<KagentAnswerDetail>) => void;
  'onkagent-error'?: (event: CustomEvent<KagentErrorDetail>) => void;
  'onkagent-open'?: (event: CustomEvent<void>) => void;
  'onkagent-close'?: (event: CustomEvent<void>) => void;
}
