import { z } from 'zod';

/**
 * Where the rate-limit counters live when they must hold across gateway replicas: a Redis (6 or
 * newer) or Valkey URL, `redis://` or `rediss://` (TLS). Unset or empty: each process counts alone.
 */
export const redisUrlSetting = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value === '' ? undefined : value))
  .pipe(z.url({ protocol: /^rediss?$/, hostname: /./, error: 'must be a redis:// or rediss:// URL with a host (Redis 6 or newer, or Valkey), or unset' }).optional())
  .describe('Redis or Valkey that holds the rate-limit counters all gateway replicas share; unset: each process counts alone.');

/**
 * Prefix of every key the gateway writes to REDIS_URL: deployments that share one Redis keep
 * their counters apart by giving each its own.
 */
export const redisKeyPrefixSetting = z
  .string()
  .regex(/^\S{1,100}$/, 'must be 1 to 100 characters without spaces')
  .default('invoicing:gateway:rate-limit:')
  .describe('Prefix of the rate-limit keys in REDIS_URL, one per deployment sharing that Redis.');
