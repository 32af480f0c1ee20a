import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { hasFailedTooLong, MAX_RETRY_AFTER_S, outcomeOf, retryAfterSeconds, secondsUntilRetry, signatureHeaders } from './delivery.domain.ts';

const DEFAULT_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];
const NOW = new Date('2026-11-24T12:00:00.000Z');

describe('outcomeOf', () => {
  it.each<[number | null, string]>([
    [200, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [301, 'failed'],
    [400, 'failed'],
    [410, 'gone'],
    [429, 'failed'],
    [500, 'failed'],
    [null, 'failed'],
  ])('%s → %s', (status, outcome) => {
    expect(outcomeOf(status)).toBe(outcome);
  });
});

describe('retryAfterSeconds', () => {
  it.each<[string | null, number | undefined]>([
    [null, undefined],
    ['120', 120],
    [' 7 ', 7],
    ['0', 0],
    ['Tue, 24 Nov 2026 12:01:30 GMT', 90],
    ['Tue, 24 Nov 2026 11:00:00 GMT', 0],
    ['99999999', MAX_RETRY_AFTER_S],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['2026', 2026],
  ])('%j → %s', (header, seconds) => {
    expect(retryAfterSeconds(header, NOW)).toBe(seconds);
  });
});

describe('secondsUntilRetry', () => {
  it.each<[number, number | undefined, number | undefined]>([
    [0, undefined, 0],
    [1, undefined, 5],
    [2, undefined, 300],
    [7, undefined, 36000],
    [8, undefined, undefined],
    [1, 60, 60],
    [2, 60, 300],
    [8, 60, undefined],
  ])('after %s failed attempts, Retry-After %s → %s', (attempts, retryAfter, expected) => {
    expect(secondsUntilRetry(DEFAULT_SCHEDULE, attempts, retryAfter)).toBe(expected);
  });

  it('spans about 27.6 hours of retries with the default schedule', () => {
    expect(DEFAULT_SCHEDULE.reduce((sum, delay) => sum + delay, 0) / 3600).toBeCloseTo(27.58, 2);
  });
});

describe('hasFailedTooLong', () => {
  const threeDays = 3 * 86_400;
  it.each<[string, boolean]>([
    ['2026-11-21T12:00:00.001Z', false],
    ['2026-11-21T12:00:00.000Z', true],
    ['2026-11-01T00:00:00.000Z', true],
    ['2026-11-24T11:00:00.000Z', false],
  ])('failing since %s → %s', (since, expected) => {
    expect(hasFailedTooLong(new Date(since), NOW, threeDays)).toBe(expected);
  });
});

describe('signatureHeaders', () => {
  const current = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8Fx2T5NExAk=';
  const previous = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
  const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid' });
  const at = new Date();

  it('verifies with the Standard Webhooks library and the current secret', () => {
    const sut = signatureHeaders('evt_1', at, body, [current]);
    expect(sut['webhook-id']).toBe('evt_1');
    expect(sut['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    expect(sut['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(current).verify(body, { ...sut })).toEqual(JSON.parse(body));
  });

  it('carries one signature per secret during a rotation, so either secret verifies', () => {
    const sut = signatureHeaders('evt_1', at, body, [current, previous]);
    expect(sut['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, { ...sut })).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, { ...sut })).toEqual(JSON.parse(body));
    expect(() => new Webhook('whsec_aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=').verify(body, { ...sut })).toThrow('No matching signature found');
  });

  it('does not verify a body changed after signing', () => {
    const sut = signatureHeaders('evt_1', at, body, [current]);
    expect(() => new Webhook(current).verify(body.replace('paid', 'void'), { ...sut })).toThrow();
  });
});
