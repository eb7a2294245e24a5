/**
 * Resolves once the server has had a turn: after its due timers and the requests that came
 * meanwhile, so long work done in steps never holds a request up for more than one step. (A
 * single `setImmediate` from a request's callback runs before either; the second one runs in
 * the next turn of the event loop, after them.)
 */
export function yieldToRequests(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
