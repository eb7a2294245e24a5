// Types for declaring <kagent-chat> to a framework's template checker (React, Vue, Svelte…).
import type { ChatStringsOverride } from './element/strings.js';
import type { KagentAnswerDetail, KagentChatEventMap, KagentErrorDetail, KagentFeedbackDetail, KagentSendDetail } from './element/events.js';
import type { KagentChat } from './element/kagent-chat.js';

/** The element's attributes, as plain HTML (or `setAttribute`) writes them. */
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
  loading?: 'eager' | 'idle' | 'interaction';
  'proxy-features'?: 'auto' | 'off';
  feedback?: 'on' | 'off';
  lang?: string;
  dir?: 'ltr' | 'rtl' | 'auto';
}

/**
 * What a React 19, Vue 3 or Svelte 5 template sets. These frameworks assign a
 * property whenever the element has one, so values take the property's type
 * (`streaming={false}`, `suggestions={[...]}`, `opened`, not `open`, which is
 * the `open()` method); `agent-id` has no property and stays an attribute.
 */
export interface KagentChatProperties extends Partial<Pick<KagentChat, 'agentId' | 'endpoint' | 'streaming' | 'mode' | 'opened' | 'theme' | 'heading' | 'placeholder' | 'welcome' | 'suggestions' | 'loading' | 'proxyFeatures'>> {
  'agent-id'?: string;
  position?: KagentChatAttributes['position'];
  queryOptions?: Record<string, unknown>;
  strings?: ChatStringsOverride;
  lang?: string;
  dir?: 'ltr' | 'rtl' | 'auto';
}

/** Listeners, named `on` + the event name (the React 19 and Svelte 5 form). */
export interface KagentChatListeners {
  'onkagent-send'?: (event: CustomEvent<KagentSendDetail>) => void;
  'onkagent-answer'?: (event: CustomEvent<KagentAnswerDetail>) => void;
  'onkagent-error'?: (event: CustomEvent<KagentErrorDetail>) => void;
  'onkagent-feedback'?: (event: CustomEvent<KagentFeedbackDetail>) => void;
  'onkagent-open'?: (event: CustomEvent<void>) => void;
  'onkagent-close'?: (event: CustomEvent<void>) => void;
}

/** Listeners as Vue names them: `@kagent-answer` is the prop `onKagentAnswer`. */
type KagentChatVueListeners = {
  [K in keyof KagentChatEventMap as K extends `kagent-${infer Name}` ? `onKagent${Capitalize<Name>}` : never]?: (event: KagentChatEventMap[K]) => void;
};

/** What Vue accepts on any element (its `ReservedProps`, restated so nothing here names a Vue type). */
interface VueReservedProps {
  key?: PropertyKey;
  ref?: unknown;
  ref_for?: boolean;
  ref_key?: string;
}

/** The global HTML attributes a page puts on the element (with `strictTemplates`, Vue checks every name). */
interface GlobalAttributes {
  id?: string;
  title?: string;
  hidden?: boolean;
  tabindex?: number | string;
  role?: string;
  slot?: string;
  part?: string;
  inert?: boolean;
  [aria: `aria-${string}`]: string | number | boolean | undefined;
  [data: `data-${string}`]: unknown;
  /** `data-section` as Vue's template checker names it. */
  [data: `data${Capitalize<string>}`]: unknown;
}

// Template types for Vue and Svelte come with the package. Neither names a
// type of the framework, so a project without Vue or Svelte sees no error.
// Where the framework is not loaded (the package's own build) the target is
// missing: TypeScript flags that (TS2664) in this source, never in the .d.ts.
// @ts-ignore
declare module 'vue' {
  interface GlobalComponents {
    'kagent-chat': new () => KagentChat & { $props: KagentChatProperties & KagentChatVueListeners & VueReservedProps & GlobalAttributes };
  }
}

// @ts-ignore
declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    // Svelte's attributes of a plain element (`section`'s), so class, style, aria-* and the rest stay typed.
    'kagent-chat': (SvelteHTMLElements extends { section: infer Base } ? Base : {}) & KagentChatProperties & KagentChatListeners;
  }
}
