import { eventBusSettings, keyedWriteSettings, parseConfig, port, serviceSettings } from '@invoicing/service-kit';
import { z } from 'zod';

export const Settings = z.object({
  PORT: port(3101),
  ...serviceSettings,
  ...eventBusSettings,
  ...keyedWriteSettings,
});
export type CatalogConfig = z.infer<typeof Settings>;

/** The catalog's settings, read from the environment once at start. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): CatalogConfig => parseConfig(Settings, env);
