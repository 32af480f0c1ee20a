import { ConfigError } from '@invoicing/service-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { fastifyTrustProxy } from './trust-proxy.ts';

const REQUIRED = { INTERNAL_TOKEN: 'test-internal-token-0123456789abcdef' };

const sut = (env: Record<string, string> = {}) => loadConfig({ ...REQUIRED, ...env });

describe('rate limit settings', () => {
  it('limits public pages per address tighter than API keys by default', () => {
    expect(sut()).toMatchObject({ RATE_LIMIT_MAX: 6000, PUBLIC_RATE_LIMIT_MAX: 600 });
  });

  it('refuses a public limit below 1', () => {
    expect(() => sut({ PUBLIC_RATE_LIMIT_MAX: '0' })).toThrow(/PUBLIC_RATE_LIMIT_MAX/);
  });
});

describe('TRUST_PROXY', () => {
  it('trusts no proxy when unset, empty or false', () => {
    expect(sut().TRUST_PROXY).toBe(false);
    expect(sut({ TRUST_PROXY: '' }).TRUST_PROXY).toBe(false);
    expect(sut({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', 1],
    ['2', 2],
    ['10.0.0.0/8', ['10.0.0.0/8']],
    ['10.0.0.5, 192.168.0.0/16 ,fd00::/8', ['10.0.0.5', '192.168.0.0/16', 'fd00::/8']],
    ['::1,uniquelocal', ['::1', 'uniquelocal']],
  ])('accepts %j', (value, expected) => {
    expect(sut({ TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each(['yes', '0', '-1', '1.5', '10.0.0.0/33', 'fd00::/129', '300.1.1.1', '10.0.0.0/8/1', 'ingress.local', '10.0.0.1,,10.0.0.2'])(
    'refuses %j with a message naming the setting',
    (value) => {
      const parse = () => sut({ TRUST_PROXY: value });
      expect(parse).toThrow(ConfigError);
      expect(parse).toThrow(/TRUST_PROXY: /);
    },
  );

  it('names the entries that are not addresses or ranges', () => {
    expect(() => sut({ TRUST_PROXY: '10.0.0.0/8, balancer' })).toThrow(/not an address or range: "balancer"/);
  });

  it('trusts the nearest hops of a hop count, though Fastify ignores a bare number', () => {
    const trust = fastifyTrustProxy(2) as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => trust('203.0.113.1', hop))).toEqual([true, true, false]);
  });
});
