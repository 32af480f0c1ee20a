import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../config.ts';
import { eventBusSettings } from './connect-event-bus.ts';
import { natsNames } from './nats-names.ts';

const parseBusSettings = (env: Record<string, string>) => parseConfig(z.object(eventBusSettings), env);

describe('natsNames', () => {
  it('leaves every name unchanged with an empty prefix', () => {
    const sut = natsNames('');
    expect([sut.subject('billing.invoice.finalized'), sut.subject('billing.>'), sut.stream('BILLING'), sut.durable('notifications-billing')]).toEqual([
      'billing.invoice.finalized',
      'billing.>',
      'BILLING',
      'notifications-billing',
    ]);
    expect(sut.eventType('billing.invoice.finalized')).toBe('billing.invoice.finalized');
  });

  it('puts the prefix before subjects as a token, and before streams and durables with an underscore', () => {
    const sut = natsNames('staging-eu_1');
    expect(sut.subject('billing.invoice.finalized')).toBe('staging-eu_1.billing.invoice.finalized');
    expect(sut.subject('billing.>')).toBe('staging-eu_1.billing.>');
    expect(sut.stream('BILLING')).toBe('staging-eu_1_BILLING');
    expect(sut.durable('notifications-billing')).toBe('staging-eu_1_notifications-billing');
    expect(sut.eventType('staging-eu_1.billing.invoice.finalized')).toBe('billing.invoice.finalized');
  });

  it.each(['a.b', 'a b', 'a*', 'a>', 'ü'])('refuses the prefix %j', (prefix) => {
    expect(() => natsNames(prefix)).toThrow(/only letters, digits, - and _/);
  });
});

describe('event-bus settings', () => {
  it('defaults NATS_PREFIX to empty and takes letters, digits, - and _', () => {
    expect(parseBusSettings({}).NATS_PREFIX).toBe('');
    expect(parseBusSettings({ NATS_PREFIX: 'Staging-2_eu' }).NATS_PREFIX).toBe('Staging-2_eu');
  });

  it('names NATS_PREFIX and what it may hold when it holds something else', () => {
    expect(() => parseBusSettings({ NATS_PREFIX: 'staging.eu' })).toThrow(ConfigError);
    expect(() => parseBusSettings({ NATS_PREFIX: 'staging.eu' })).toThrow(/NATS_PREFIX: may hold only letters, digits, - and _/);
  });

  it.each(['nats://127.0.0.1:4222', 'nats://nats:4222', 'tls://nats.example.com:4222', 'nats.nats.svc.cluster.local:4222', 'nats://[::1]:4222', ''])(
    'takes NATS_URL %j',
    (url) => {
      expect(parseBusSettings({ NATS_URL: url }).NATS_URL).toBe(url);
    },
  );

  it.each(['http://nats:4222', 'nats://nats:port', 'nats://', 'nats://a:4222,nats://b:4222', 'nats://nats:4222/path', 'not a url'])('fails the start on NATS_URL %j', (url) => {
    expect(() => parseBusSettings({ NATS_URL: url })).toThrow(/NATS_URL: must be a NATS server address such as nats:\/\/127\.0\.0\.1:4222/);
  });
});
