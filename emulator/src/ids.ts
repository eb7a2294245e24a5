import { createHash, randomBytes, randomUUID } from 'node:crypto';

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
let counter = randomBytes(2).readUInt16BE(0);

/**
 * A new record id shaped like the service's cuids: `c`, the time, a counter
 * and random characters, 25 characters in all, sortable by creation time.
 */
export function newId(): string {
  const time = Date.now().toString(36).padStart(9, '0').slice(-9);
  counter = (counter + 1) % 1296;
  const count = counter.toString(36).padStart(2, '0');
  const random = randomBytes(13);
  let tail = '';
  for (const byte of random) tail += BASE36[byte % 36];
  return `c${time}${count}${tail}`;
}

/** A new API key: a random UUID, as the service's dashboard creates them. */
export function newApiKey(): string {
  return randomUUID();
}

/** Keys are stored as their SHA-256, so a copied data folder does not leak them. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
