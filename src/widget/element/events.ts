import type { FeedbackRating, Source } from '../../protocol/index.js';
import type { FailureKind } from './failure-kinds.js';

/** `detail` of `kagent-send`. */
export interface KagentSendDetail {
  question: string;
  /** True when the visitor pressed Retry. */
  retry: boolean;
}

/** `detail` of `kagent-answer`. */
export interface KagentAnswerDetail {
  question: string;
  /** The answer's markdown. */
  answer: string;
  sources: Source[];
  conversationId: string | undefined;
}

/** `detail` of `kagent-error`. */
export interface KagentErrorDetail {
  question: string;
  /** What went wrong, as the chat tells it (`rate-limited`, `server`…). */
  kind: FailureKind;
  /** HTTP status, when the service answered with one. */
  status: number | undefined;
  /** The service's error code (`USAGE_LIMIT`…), when it gave one. */
  code: string | undefined;
  /** The message the visitor was shown. */
  message: string;
}

/** `detail` of `kagent-feedback`. */
export interface KagentFeedbackDetail {
  /** The visitor's thumb. */
  rating: FeedbackRating;
  /** What was missing, when the visitor wrote it after a thumbs-down. */
  comment: string | undefined;
  question: string;
  /** The answer's markdown. */
  answer: string;
  sources: Source[];
  conversationId: string | undefined;
}

/** The events `<kagent-chat>` fires (they bubble and cross shadow roots). */
export interface KagentChatEventMap {
  'kagent-send': CustomEvent<KagentSendDetail>;
  'kagent-answer': CustomEvent<KagentAnswerDetail>;
  'kagent-error': CustomEvent<KagentErrorDetail>;
  'kagent-feedback': CustomEvent<KagentFeedbackDetail>;
  'kagent-open': CustomEvent<void>;
  'kagent-close': CustomEvent<void>;
}

declare global {
  interface HTMLElementEventMap extends KagentChatEventMap {}
}
