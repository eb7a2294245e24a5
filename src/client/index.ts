/** A typed client for the Knowledge-Agent Service. */
export { KagentClient, type KagentClientOptions, type CallOptions, type FileUpload, type StartSessionOptions } from './client.js';
export { AgentAnswerStream } from './answer-stream.js';
export { KagentError, type LocalErrorCode } from './errors.js';
export type * from '../protocol/index.js';
