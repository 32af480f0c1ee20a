import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach unless the operator allows its host: everything that is not
 * ordinary public unicast. Cloud metadata services live in link-local (169.254.169.254,
 * fe80::/fd00:ec2::254) and CGNAT (100.100.100.200) space, so they are covered here too.
 */
const NOT_PUBLIC = (() => {
  const list = new BlockList();
  const v4: [string, number][] = [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8], // private
    ['100.64.0.0', 10], // carrier-grade NAT, Alibaba metadata
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, AWS/GCP/Azure metadata
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation
    ['192.88.99.0', 24], // 6to4 relay anycast
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation
    ['203.0.113.0', 24], // documentation
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ];
  const v6: [string, number][] = [
    ['::', 96], // unspecified, loopback, IPv4-compatible
    ['64:ff9b::', 96], // NAT64, which can reach private IPv4
    ['64:ff9b:1::', 48], // local-use NAT64
    ['100::', 64], // discard
    ['2001::', 23], // IETF protocol assignments, Teredo
    ['2001:db8::', 32], // documentation
    ['2002::', 16], // 6to4, which embeds any IPv4 address
    ['fc00::', 7], // unique local, AWS metadata fd00:ec2::254
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated)
    ['ff00::', 8], // multicast
  ];
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

// Kept apart: BlockList matches every IPv4 address against an IPv4-mapped IPv6 rule.
const IPV4_MAPPED = (() => {
  const list = new BlockList();
  list.addSubnet('::ffff:0:0', 96, 'ipv6');
  return list;
})();

/**
 * True for an ordinary public unicast IPv4 or IPv6 address; false for anything else, non-addresses
 * included. IPv4-mapped IPv6 addresses are refused whatever they carry: no public host needs them.
 */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (family === 6) return !NOT_PUBLIC.check(address, 'ipv6') && !IPV4_MAPPED.check(address, 'ipv6');
  return false;
};

/** The host of a URL as DNS and the allow-list see it: lowercase, IPv6 without brackets. */
export const hostOf = (url: URL): string => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/** A webhook URL or address the policy refuses; its message is fit for an API client. */
export class AddressNotAllowedError extends Error {
  override name = 'AddressNotAllowedError';
  readonly code = 'EADDRNOTALLOWED';
}

export type Resolver = (host: string) => Promise<LookupAddress[]>;

const resolveAll: Resolver = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/**
 * Where webhooks may go: `https` to hosts whose every address is public, or anything to a host
 * the operator allows (`WEBHOOK_ALLOWED_HOSTS`). Checked when an endpoint is saved and again at
 * each connection, since DNS can change in between.
 */
export class AddressPolicy {
  readonly #allowedHosts: ReadonlySet<string>;
  readonly #resolve: Resolver;

  constructor(allowedHosts: ReadonlySet<string>, resolve: Resolver = resolveAll) {
    this.#allowedHosts = allowedHosts;
    this.#resolve = resolve;
  }

  isAllowedHost(host: string): boolean {
    return this.#allowedHosts.has(host.toLowerCase());
  }

  /** The checks that need no DNS: the scheme, credentials, and an address written into the URL. Throws AddressNotAllowedError. */
  checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new AddressNotAllowedError('it must be an absolute URL');
    }
    const host = hostOf(url);
    const allowed = this.isAllowedHost(host);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) {
      throw new AddressNotAllowedError(allowed ? 'it must use http or https' : 'it must use https');
    }
    if (url.username || url.password) throw new AddressNotAllowedError('it may not carry a user name or password');
    if (!allowed && isIP(host) !== 0 && !isPublicAddress(host)) throw new AddressNotAllowedError(`${host} is not a public address`);
    return url;
  }

  /** `checkUrl`, and every address the host resolves to must be public. Throws AddressNotAllowedError. */
  async checkDestination(raw: string): Promise<URL> {
    const url = this.checkUrl(raw);
    const host = hostOf(url);
    if (this.isAllowedHost(host) || isIP(host) !== 0) return url;
    let addresses: LookupAddress[];
    try {
      addresses = await this.#resolve(host);
    } catch {
      throw new AddressNotAllowedError(`${host} does not resolve`);
    }
    this.#refuseNonPublic(host, addresses);
    return url;
  }

  /**
   * A `lookup` for sockets (undici's `connect.lookup`): resolves, refuses the connection when any
   * address is not public, and hands over exactly the addresses it checked, so a DNS answer that
   * changes between check and connect cannot slip a private address in.
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    this.#resolve(hostname).then(
      (resolved) => {
        const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const addresses = family ? resolved.filter((address) => address.family === family) : resolved;
        try {
          if (!this.isAllowedHost(hostname)) this.#refuseNonPublic(hostname, addresses);
        } catch (error) {
          callback(error as AddressNotAllowedError, '');
          return;
        }
        const [first] = addresses;
        if (options.all) callback(null, addresses);
        else if (first) callback(null, first.address, first.family);
        else callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  #refuseNonPublic(host: string, addresses: readonly LookupAddress[]): void {
    if (addresses.length === 0) throw new AddressNotAllowedError(`${host} does not resolve`);
    const refused = addresses.find((address) => !isPublicAddress(address.address));
    if (refused) throw new AddressNotAllowedError(`${host} resolves to ${refused.address}, which is not a public address`);
  }
}
