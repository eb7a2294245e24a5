// The ids a visitor's browser sends with an agent query. The service takes any
// string; the proxy refuses ids outside this rule so that each one is safe in a
// log line, a header or a rate-limit key. The widget checks its stored ids and
// the ones the service returns against the same rule, so it never keeps an id
// the proxy would refuse.

/** The query fields that carry an id chosen by the visitor's browser. */
export const QUERY_ID_FIELDS = ['conversationId', 'visitorId'] as const;
export type QueryIdField = (typeof QUERY_ID_FIELDS)[number];

/** Longest id the proxy lets through unless its operator sets another length; room for a UUID or a cuid. */
export const MAX_QUERY_ID_LENGTH = 128;

const ID_CHARACTERS = /^[A-Za-z0-9_.:-]+$/;

/** Whether `value` is an id the proxy lets through: 1 to `maxLength` letters, digits, or `. _ : -`. */
export function isValidQueryId(value: unknown, maxLength: number = MAX_QUERY_ID_LENGTH): value is string {
  // Length first, so a huge value is never scanned.
  return typeof value === 'string' && value.length > 0 && value.length <= maxLength && ID_CHARACTERS.test(value);
}

/** The rule as the proxy states it when refusing `field`. */
export function queryIdRule(field: QueryIdField, maxLength: number = MAX_QUERY_ID_LENGTH): string {
  return `${field} must be 1 to ${maxLength} letters, digits, or . _ : -`;
}

/**
 * The id fields a refusal's message names (the proxy's rule, or the service
 * refusing a conversation), so a client can replace just those ids.
 */
export function queryIdFieldsNamed(message: string | undefined): QueryIdField[] {
  if (!message) return [];
  return QUERY_ID_FIELDS.filter((field) => new RegExp(`\\b${field}\\b`).test(message));
}
