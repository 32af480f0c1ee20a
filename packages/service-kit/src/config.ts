import { z } from 'zod';

/** Thrown at start when the environment breaks the settings schema; the message names each bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses settings from the environment once, failing fast with a readable message. */
export const parseConfig = <S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> => {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`);
  throw new ConfigError(`Invalid settings:\n${lines.join('\n')}`);
};

/** Settings every service has, with working defaults for one machine. */
export const serviceSettings = {
  HOST: z.string().default('127.0.0.1').describe('Address to listen on.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url().default('postgresql://postgres@127.0.0.1:5432/invoicing'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  INTERNAL_TOKEN: z
    .string({ error: 'is required: the shared credential between the gateway and the services (npm start generates one)' })
    .min(32, 'must be at least 32 characters'),
};

export const port = (defaultPort: number) => z.coerce.number().int().min(0).max(65535).default(defaultPort);
