import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Thrown at start when the environment breaks the settings schema; the message names each bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The environment with each `<NAME>_FILE` of a setting replaced by `<NAME>` holding that file's
 * contents (without a final line break), as Docker and compose secrets are mounted
 * (`/run/secrets/<name>`): a secret then never appears in the container's environment.
 */
const withSettingFiles = (names: string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const read: NodeJS.ProcessEnv = {};
  const problems: string[] = [];
  for (const name of names) {
    const path = env[`${name}_FILE`];
    if (path === undefined || path === '') continue;
    if (env[name] !== undefined && env[name] !== '') {
      problems.push(`  ${name}: is set both directly and through ${name}_FILE; set one of them`);
      continue;
    }
    try {
      read[name] = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(`  ${name}_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`Invalid settings:\n${problems.join('\n')}`);
  return { ...env, ...read };
};

/**
 * Parses settings from the environment once, failing fast with a readable message. Any setting can
 * instead be read from a file named by `<NAME>_FILE`.
 */
export const parseConfig = <S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> => {
  const result = schema.safeParse(withSettingFiles(Object.keys(schema.shape), env));
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
