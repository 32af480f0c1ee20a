import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { AddressNotAllowedError, AddressPolicy, isPublicAddress } from './address-policy.ts';

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['2a00:1450:4001:82a::200e', true],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['0.0.0.0', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false],
    ['100.100.100.200', false],
    ['169.254.169.254', false],
    ['198.18.0.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', false],
    ['::ffff:7f00:1', false],
    ['::127.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['2002:a00:1::', false],
    ['2001:db8::1', false],
    ['fc00::1', false],
    ['fd00:ec2::254', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['localhost', false],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('does not mistake public IPv4 for a mapped IPv6 address', () => {
    expect(['8.8.8.8', '172.32.0.1', '172.15.255.255', '100.128.0.1', '11.0.0.1'].map(isPublicAddress)).toEqual([true, true, true, true, true]);
  });
});

const resolverOf =
  (table: Record<string, string[]>) =>
  async (host: string): Promise<LookupAddress[]> => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const sut = new AddressPolicy(
  new Set(['127.0.0.1', 'localhost', 'receiver.internal', '::1']),
  resolverOf({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'rebinding.example.com': ['93.184.216.34', '10.0.0.7'],
    'metadata.example.com': ['169.254.169.254'],
    'receiver.internal': ['10.0.0.9'],
    localhost: ['127.0.0.1'],
  }),
);

const refusal = async (url: string): Promise<string | undefined> => {
  try {
    await sut.checkDestination(url);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AddressNotAllowedError);
    return (error as Error).message;
  }
};

describe('AddressPolicy.checkDestination', () => {
  it.each([
    ['https://hooks.example.com/in', undefined],
    ['https://93.184.216.34:8443/in', undefined],
    ['http://127.0.0.1:9999/in', undefined],
    ['http://localhost:9999/in', undefined],
    ['https://receiver.internal/in', undefined],
    ['http://[::1]:8080/in', undefined],
    ['http://hooks.example.com/in', 'it must use https'],
    ['ftp://127.0.0.1/in', 'it must use http or https'],
    ['https://user:pw@hooks.example.com/in', 'it may not carry a user name or password'],
    ['hooks.example.com/in', 'it must be an absolute URL'],
    ['https://10.0.0.1/in', '10.0.0.1 is not a public address'],
    ['https://[fd00:ec2::254]/latest', 'fd00:ec2::254 is not a public address'],
    ['https://[::ffff:127.0.0.1]/in', '::ffff:7f00:1 is not a public address'],
    ['https://167772161/in', '10.0.0.1 is not a public address'],
    ['https://0xa.0.0.1/in', '10.0.0.1 is not a public address'],
    ['https://metadata.example.com/', 'metadata.example.com resolves to 169.254.169.254, which is not a public address'],
    ['https://rebinding.example.com/', 'rebinding.example.com resolves to 10.0.0.7, which is not a public address'],
    ['https://nowhere.example.com/', 'nowhere.example.com does not resolve'],
  ])('%s → %s', async (url, expected) => {
    expect(await refusal(url)).toBe(expected);
  });
});

const lookupOnce = (hostname: string, options: { all?: boolean; family?: number }) =>
  new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number | undefined }>((resolve) =>
    sut.lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
  );

describe('AddressPolicy.lookup, used by every delivery connection', () => {
  it('hands over the public addresses it checked, one or all as asked', async () => {
    expect(await lookupOnce('hooks.example.com', {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookupOnce('hooks.example.com', { family: 6 })).toEqual({ error: null, address: '2606:2800:220:1::1', family: 6 });
    expect((await lookupOnce('hooks.example.com', { all: true })).address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });

  it('refuses the connection when any address is private, so a changed DNS answer cannot reach inside', async () => {
    const { error } = await lookupOnce('rebinding.example.com', { all: true });
    expect(error).toBeInstanceOf(AddressNotAllowedError);
    expect(error?.message).toBe('rebinding.example.com resolves to 10.0.0.7, which is not a public address');
  });

  it('lets allowed hosts resolve to private addresses', async () => {
    expect(await lookupOnce('receiver.internal', {})).toEqual({ error: null, address: '10.0.0.9', family: 4 });
  });

  it('passes DNS failures on as they are', async () => {
    expect((await lookupOnce('nowhere.example.com', {})).error?.code).toBe('ENOTFOUND');
  });
});
