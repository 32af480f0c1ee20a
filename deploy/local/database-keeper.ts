// Holds the embedded PostgreSQL for a local run (see local-database.ts): reports its URL over IPC,
// and stops it when the parent disconnects, whether on purpose or because it died.
import { connectLocalDatabase } from '@invoicing/service-kit';
import { loadDatabaseSettings } from './config.ts';

const { settings } = loadDatabaseSettings();
const opening = connectLocalDatabase(settings);

process.once('disconnect', async () => {
  const database = await opening.catch(() => undefined);
  await database?.stop();
  process.exit(0);
});

opening.then(
  (database) => {
    if (process.connected) process.send?.({ url: database.url });
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (process.connected) process.send?.({ error: message }, () => process.exit(1));
    else process.exit(1);
  },
);
