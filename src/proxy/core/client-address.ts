import { memoized } from './memo.js';

/**
 * The address to count a request against. `platformAddress` comes from the
 * platform's trusted source (the socket, `CF-Connecting-IP`, ...). With
 * `trustedHops` proxies in front, `X-Forwarded-For`'s entry added by the
 * outermost trusted one is used; entries further left are the visitor's to
 * forge and are never read. IPv6 addresses count per /64, the block one
 * subscriber usually holds, so rotating addresses within it gains nothing.
 * `headers`: the request's headers, or a lookup by lower-case name.
 */
export function clientAddress(headers: Headers | ((name: string) => string | null), platformAddress: string | undefined, trustedHops: number): string | undefined {
  let address = platformAddress;
  if (trustedHops > 0) {
    const entries = ((typeof headers === 'function' ? headers('x-forwarded-for') : headers.get('x-forwarded-for')) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (entries.length > 0) address = entries[Math.max(0, entries.length - trustedHops)];
  }
  return address === undefined ? undefined : addressKey(address);
}

/**
 * The block an address key (`addressKey`) belongs to, as one network usually holds it: an IPv4 address's /24, an
 * IPv6 /64's /48. Anything else is its own block.
 */
export function addressBlock(key: string): string {
  const v4 = /^(\d+\.\d+\.\d+)\.\d+$/.exec(key);
  if (v4) return `${v4[1]}.0/24`;
  const v6 = /^([0-9a-f]+:[0-9a-f]+:[0-9a-f]+):[0-9a-f]+::\/64$/.exec(key);
  return v6 ? `${v6[1]}::/48` : key;
}

/** A normalised key for an address: IPv4 as is, IPv6 as its /64 prefix; `undefined` for anything else. Remembered: the same visitors come back, and each key costs several regular expressions. */
export const addressKey = memoized(workOutAddressKey, { maxKeys: 10_000, maxKeyLength: 64 });

function workOutAddressKey(raw: string): string | undefined {
  let address = raw.trim();
  // `[v6]:port` and `v4:port` as some headers carry them.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1]!;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) return address.split('.').every((n) => Number(n) <= 255) ? address : undefined;
  if (address.includes(':') && /^[0-9a-f:.%a-z]+$/i.test(address)) {
    const groups = expandIPv6(address.split('%')[0]!);
    return groups ? `${groups.slice(0, 4).join(':')}::/64` : undefined;
  }
  return undefined;
}

function expandIPv6(address: string): string[] | undefined {
  const halves = address.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  // An embedded IPv4 tail counts as two groups.
  const last = tail.length ? tail[tail.length - 1]! : head[head.length - 1] ?? '';
  const extra = last.includes('.') ? 1 : 0;
  const missing = 8 - head.length - tail.length - extra;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.slice(0, 4).every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => (g.includes('.') ? g : g.replace(/^0+(?=.)/, '')));
}
