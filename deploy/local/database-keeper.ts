// Holds the embedded PostgreSQL for a local run (see local-database.ts): reports its URL over IPC,
// and stops it when the parent disconnects, whether on purpose or because it died.
// It imports the one module of the kit it needs, not the kit (which brings Fastify, MikroORM, NATS,
// ...): this process lives as long as the run, and that would triple its memory for nothing.
import { connectLocalDatabase, type LocalDatabaseSettings } from '@invoicing/service-kit/local-postgres';

// Validated by the parent, which read them from the environment.
const settings = JSON.parse(process.argv[2] ?? '{}') as LocalDatabaseSettings;
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
