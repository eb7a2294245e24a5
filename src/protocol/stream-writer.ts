// Writes the streamed answer exactly as the service does (wire-format.md),
// for the emulator, the proxy's mid-stream failures and test servers.

/** Headers of a streamed answer. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
};

/** One `answer` event: the fragment URI-encoded, so newlines never split the `data:` line. */
export function answerEvent(fragment: string): string {
  return `event: answer\ndata: ${encodeURIComponent(fragment)}\n\n`;
}

/** One `endpoint_response` event carrying (a piece of) the JSON answer, encoded. */
export function endpointResponseEvent(fragment: string): string {
  return `event: endpoint_response\ndata: ${encodeURIComponent(fragment)}\n\n`;
}

/** One `tool_call` event. */
export function toolCallEvent(call: { type: string; name: string; arguments: unknown }): string {
  return `event: tool_call\ndata: ${encodeURIComponent(JSON.stringify(call))}\n\n`;
}

/** The end of the stream: an empty event name and `[DONE]`, not encoded. */
export const DONE_EVENT = 'event: \ndata: [DONE]\n\n';

/** An error after the stream opened: a bare data line, not encoded. Line breaks in `detail` are folded so it stays one line. */
export function errorLine(detail: string): string {
  return `data: [ERROR]${detail.replace(/[\r\n]+/g, ' ')}\n\n`;
}
