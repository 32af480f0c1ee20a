import { isIP } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import { z } from 'zod';

/**
 * Which peers may tell the gateway the client's address in `X-Forwarded-For`: none (`false`),
 * all (`true`), the nearest `n` hops (a number), or the listed addresses and ranges.
 */
export type TrustedProxies = boolean | number | string[];

/** Ranges Fastify's proxy-addr knows by name. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const isAddressOrRange = (entry: string): boolean => {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
};

export const trustProxySetting = z
  .string()
  .trim()
  .optional()
  .transform((value, context): TrustedProxies => {
    const lowered = value?.toLowerCase();
    if (lowered === undefined || lowered === '' || lowered === 'false') return false;
    if (lowered === 'true') return true;
    if (/^\d+$/.test(lowered)) {
      const hops = Number(lowered);
      if (hops >= 1) return hops;
      context.addIssue({ code: 'custom', message: 'a hop count must be at least 1; leave it unset (or false) to trust no proxy' });
      return z.NEVER;
    }
    const entries = lowered.split(',').map((entry) => entry.trim());
    const invalid = entries.filter((entry) => !isAddressOrRange(entry));
    if (invalid.length === 0) return entries;
    context.addIssue({
      code: 'custom',
      message: `must be false, true, a hop count (1, 2, ...) or a comma-separated list of IP addresses and CIDR ranges; not an address or range: ${invalid.map((entry) => JSON.stringify(entry)).join(', ')}`,
    });
    return z.NEVER;
  })
  .describe(
    'Proxies whose X-Forwarded-For names the client (its address is what public pages are limited by). ' +
      'Unset or false: none, for a gateway clients reach directly. ' +
      'A hop count (1 behind one load balancer or ingress): the nearest hops are proxies, whoever they are, so only where nothing but them can reach the gateway. ' +
      'A comma-separated list of addresses and CIDR ranges (or loopback, linklocal, uniquelocal): only peers in it are proxies. ' +
      'true: every hop is a proxy, so any client can claim any address; only on a private network behind one balancer that overwrites the header.',
  );

/**
 * The setting as Fastify's `trustProxy`. Fastify 5.12 ignores a bare hop count, because a count
 * cannot check who connected; so the count becomes a function that trusts the nearest hops, and
 * the operator vouches (as with `true`) that nothing but the balancer reaches the gateway.
 */
export const fastifyTrustProxy = (trusted: TrustedProxies): FastifyServerOptions['trustProxy'] =>
  typeof trusted === 'number' ? (_address: string, hop: number) => hop < trusted : trusted;
