// Which addresses a web datasource may make the emulator read. Anyone with a key can create
// one, so by default it may not reach this machine, the local network or a cloud's metadata
// service: the check runs on the resolved address of every hop, so neither a name that
// resolves to such an address nor a redirect to one gets through.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to its addresses, as `dns.lookup` with `all: true` does. */
export type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** What the guard lets through. */
export interface AddressPolicy {
  /** `true`: every address; a list: these addresses or subnets (`10.1.2.0/24`, `fd00::/8`, `127.0.0.1`) besides public ones. */
  allowPrivateAddresses?: boolean | readonly string[] | undefined;
  /** How names are resolved (default `dns.lookup`): the check applies to what it returns. */
  resolve?: Resolver | undefined;
}

/** Thrown when an address is refused; its message is the reason, for the uploader. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
}

const RANGES: readonly (readonly [string, number, 'ipv4' | 'ipv6', string])[] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.169.254', 32, 'ipv4', 'the cloud metadata address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'a reserved address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a reserved address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fd00:ec2::254', 128, 'ipv6', 'the cloud metadata address'],
  ['fc00::', 7, 'ipv6', 'a private address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];

const BLOCKS = RANGES.map(([network, prefix, family, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, kind };
});

/** What kind of non-public address `address` is ("a loopback address"), or `undefined` for a public one. */
export function nonPublicKind(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an address';
  let checked = address;
  let type: 'ipv4' | 'ipv6' = family === 4 ? 'ipv4' : 'ipv6';
  // IPv4 inside IPv6 (::ffff:10.0.0.1, NAT64 64:ff9b::a00:1) reaches the IPv4 address: judge that.
  const embedded = type === 'ipv6' ? embeddedIpv4(address) : undefined;
  if (embedded) {
    checked = embedded;
    type = 'ipv4';
  }
  return BLOCKS.find(({ list }) => list.check(checked, type))?.kind;
}

function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Builds the allow list of a policy's extra addresses and subnets. */
function allowList(allowed: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of allowed) {
    const [network = '', prefix] = entry.split('/');
    const family = isIP(network);
    if (family === 0) throw new Error(`not an address or subnet: ${entry}`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(network, type);
    else list.addSubnet(network, Number(prefix), type);
  }
  return list;
}

/** Checks addresses against a policy. */
export class AddressGuard {
  readonly #allowAll: boolean;
  readonly #allowed: BlockList | undefined;
  readonly #resolve: Resolver;

  constructor(policy: AddressPolicy = {}) {
    const allow = policy.allowPrivateAddresses;
    this.#allowAll = allow === true;
    this.#allowed = Array.isArray(allow) && allow.length > 0 ? allowList(allow) : undefined;
    this.#resolve = policy.resolve ?? ((hostname, callback) => dnsLookup(hostname, { all: true }, callback));
  }

  /** The reason `address` (reached as `hostname`) is refused, or `undefined` when it may be read. */
  refusal(hostname: string, address: string): string | undefined {
    if (this.#allowAll) return undefined;
    const kind = nonPublicKind(address);
    if (!kind) return undefined;
    if (this.#allowed?.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6')) return undefined;
    const where = hostname === address ? address : `${hostname} (${address})`;
    return `${where} is ${kind}; the emulator reads only public addresses unless started with --allow-private-addresses`;
  }

  /** Throws `AddressRefusedError` when `hostname` is itself an address that is refused. */
  checkLiteral(hostname: string): void {
    const bare = hostname.replace(/^\[|\]$/g, '');
    if (isIP(bare) === 0) return;
    const reason = this.refusal(bare, bare);
    if (reason) throw new AddressRefusedError(reason);
  }

  /**
   * A `lookup` for `http.request`: resolves the name, refuses it when any of its addresses is
   * refused, else hands them on. The connection goes to exactly the addresses checked.
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean } | number | undefined,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    this.#resolve(hostname, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const reason = this.refusal(hostname, address);
        if (reason) return callback(new AddressRefusedError(reason), []);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      if (typeof options === 'object' && options?.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
