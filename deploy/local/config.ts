import { eventBusSettings, localDatabaseSettings, parseConfig, serviceSettings, tracingSettings } from '@invoicing/service-kit';
import { z } from 'zod';

/** Where the local database comes from: DATABASE_URL, else the embedded PostgreSQL under DATA_DIR. */
export const DatabaseSettings = z.object(localDatabaseSettings);
export type DatabaseSettings = z.infer<typeof DatabaseSettings>;

/** Settings of `npm start` itself; everything else in the environment reaches the services unchanged. */
export const RunnerSettings = z.object({
  ...localDatabaseSettings,
  PORT: z.coerce.number().int().min(1).max(65535).default(8080).describe('Port of the gateway, the only public one.'),
  HOST: z.string().min(1).default('127.0.0.1').describe('Address the gateway listens on; services stay on 127.0.0.1.'),
  SERVICE_PORT_BASE: z.coerce
    .number()
    .int()
    .min(1)
    .max(65_000)
    .default(3100)
    .describe('The other services listen on the ports after it: catalog +1, billing +2, documents +3, notifications +4.'),
  LOG_LEVEL: serviceSettings.LOG_LEVEL,
  ...eventBusSettings,
  ...tracingSettings,
});
export type RunnerSettings = z.infer<typeof RunnerSettings>;

export interface Runner<S> {
  settings: S;
  /** The environment the services inherit, so their own settings (RATE_LIMIT_MAX, ...) pass through. */
  inherited: NodeJS.ProcessEnv;
}

const load = <S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv): Runner<z.infer<S>> => ({
  settings: parseConfig(schema, env),
  inherited: { ...env },
});

export const loadRunnerSettings = (env: NodeJS.ProcessEnv = process.env): Runner<RunnerSettings> => load(RunnerSettings, env);

export const loadDatabaseSettings = (env: NodeJS.ProcessEnv = process.env): Runner<DatabaseSettings> => load(DatabaseSettings, env);
