import { ConfigError } from '@invoicing/service-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig as sut } from './config.ts';

const REQUIRED = { INTERNAL_TOKEN: 'x'.repeat(32) };

describe('loadConfig', () => {
  it('has working defaults for one machine', () => {
    const config = sut(REQUIRED);
    expect(config).toMatchObject({
      PORT: 3104,
      WEBHOOK_RETRY_SCHEDULE: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_DISABLE_AFTER_FAILING_S: 259_200,
      EVENT_RETENTION_DAYS: 90,
    });
    expect(config.WEBHOOK_SECRETS_KEY).toBeUndefined();
    expect(config.WEBHOOK_ALLOWED_HOSTS).toEqual(new Set());
    expect(config.WEBHOOK_SECRETS_KEY_FILE).toMatch(/\.data\/webhook-secrets\.key$/);
  });

  it('reads allowed hosts case-insensitively, IPv6 with or without brackets', () => {
    expect(sut({ ...REQUIRED, WEBHOOK_ALLOWED_HOSTS: ' 127.0.0.1, LocalHost ,[::1],, ' }).WEBHOOK_ALLOWED_HOSTS).toEqual(new Set(['127.0.0.1', 'localhost', '::1']));
  });

  it('reads a retry schedule in seconds', () => {
    expect(sut({ ...REQUIRED, WEBHOOK_RETRY_SCHEDULE: '0, 1,2' }).WEBHOOK_RETRY_SCHEDULE).toEqual([0, 1, 2]);
  });

  it.each([
    ['WEBHOOK_RETRY_SCHEDULE', '0,5,soon'],
    ['WEBHOOK_RETRY_SCHEDULE', ''],
    ['WEBHOOK_RETRY_SCHEDULE', '0,-5'],
    ['WEBHOOK_RETRY_SCHEDULE', '0,1.5'],
    ['WEBHOOK_SECRETS_KEY', 'c2hvcnQ='],
    ['WEBHOOK_TIMEOUT_MS', '10'],
    ['PORT', 'eighty'],
  ])('names %s when it is %j', (name, value) => {
    expect(() => sut({ ...REQUIRED, [name]: value })).toThrow(ConfigError);
    expect(() => sut({ ...REQUIRED, [name]: value })).toThrow(name);
  });
});
