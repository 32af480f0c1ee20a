import { ConfigError } from '@invoicing/service-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';

const sut = (env: Record<string, string> = {}) => loadConfig({ INTERNAL_TOKEN: 'test-internal-token-0123456789abcdef', ...env });

describe('REDIS_URL', () => {
  it('is unset by default, and an empty value means unset: each process counts alone', () => {
    expect(sut().REDIS_URL).toBeUndefined();
    expect(sut({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
    expect(sut({ REDIS_URL: '  ' }).REDIS_URL).toBeUndefined();
  });

  it.each(['redis://redis:6379', 'rediss://user:secret@cache.example.com:6380/2', 'redis://127.0.0.1'])('accepts %j', (url) => {
    expect(sut({ REDIS_URL: url }).REDIS_URL).toBe(url);
  });

  it.each(['http://redis:6379', 'redis', 'valkey://redis:6379', 'redis:6379'])('refuses %j with a message naming the setting', (url) => {
    const parse = () => sut({ REDIS_URL: url });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
  });
});

describe('REDIS_KEY_PREFIX', () => {
  it('has a default that names the platform and the purpose', () => {
    expect(sut().REDIS_KEY_PREFIX).toBe('invoicing:gateway:rate-limit:');
  });

  it.each(['', 'with space:'])('refuses %j', (prefix) => {
    expect(() => sut({ REDIS_KEY_PREFIX: prefix })).toThrow(/REDIS_KEY_PREFIX: must be 1 to 100 characters without spaces/);
  });
});
