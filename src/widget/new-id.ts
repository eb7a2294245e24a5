// The chat's random ids (visitor, conversation, turn), made by both of its parts (each gets its own copy).

/** A random id (32 hexadecimal digits, which the proxy lets through), also where `crypto.randomUUID` is unavailable (pages not served over https). */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
