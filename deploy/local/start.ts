// `npm start`: the whole platform in one process on one machine, for trying it out and for local development.
import { join, resolve } from 'node:path';
import { ConfigError, connectEventBus, inspectLocalPostgres, LocalPostgresConflict, PortInUseError, startTracing } from '@invoicing/service-kit';
import { loadRunnerSettings, type RunnerSettings } from './config.ts';
import { hostInProcess, type InProcessHost } from './in-process-host.ts';
import { openLocalDatabase, type LocalDatabase } from './local-database.ts';
import { GATEWAY, generateInternalToken, serviceEnvironment } from './platform.ts';
import { describeTakenPort } from './port-check.ts';
import { localPortOf, SERVICE_NAMES, SERVICES } from './services.ts';

const say = (text: string) => process.stdout.write(`${text}\n`);

const banner = (port: number, database: LocalDatabase, usesDatabaseUrl: boolean, host: InProcessHost, bus: string, mail: string): string => {
  const origin = `http://localhost:${port}`;
  const width = Math.max(...host.services.map(({ name }) => name.length));
  return [
    '',
    `The invoicing API is up at ${origin}/api/v1 (database: ${database.description}; events: ${bus}).`,
    ...host.services.map(({ name, url }) => `  ${name.padEnd(width)}  ${url}`),
    `  OpenAPI document: ${origin}/api/v1/openapi.json`,
    `  E-mails: ${mail}`,
    '  Create an API key, in another shell in this folder:',
    `    ${usesDatabaseUrl ? 'DATABASE_URL=<the same URL> ' : ''}npm run --silent admin -- keys create --workspace demo --scopes all`,
    '  Then call the API with it:',
    `    curl -H "Authorization: Bearer <key>" ${origin}/api/v1/customers`,
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
};

/** A busy port, or an embedded PostgreSQL that cannot start as configured: one line saying which setting fixes it. */
const findConflict = async (settings: RunnerSettings, servicePorts: Parameters<typeof describeTakenPort>[0]): Promise<string | undefined> => {
  const taken = await describeTakenPort(servicePorts);
  if (taken || settings.DATABASE_URL) return taken;
  try {
    await inspectLocalPostgres({ dataDir: join(settings.DATA_DIR, 'postgres'), port: settings.EMBEDDED_POSTGRES_PORT });
    return undefined;
  } catch (error) {
    if (error instanceof LocalPostgresConflict) return error.message;
    throw error;
  }
};

const main = async (): Promise<number> => {
  const { settings, inherited } = loadRunnerSettings();
  const names = SERVICE_NAMES;
  const portOf = localPortOf(settings.SERVICE_PORT_BASE, settings.PORT);
  const settingOf = (port: number) => (port === settings.PORT ? 'PORT' : 'SERVICE_PORT_BASE');

  // What a person must fix is said at once, in one line, before anything starts.
  // The gateway's port first: beside a running `npm start`, PORT is the setting people think of.
  const claimOrder = [...names.filter((name) => name === GATEWAY), ...names.filter((name) => name !== GATEWAY)];
  const conflict = await findConflict(settings, claimOrder.map((name) => ({ host: name === GATEWAY ? settings.HOST : '127.0.0.1', port: portOf(name), setting: settingOf(portOf(name)) })));
  if (conflict) {
    process.stderr.write(`npm start: ${conflict}\n`);
    return 1;
  }

  // Every signal is caught for the whole run, so a second Ctrl-C cannot cut the shutdown short.
  const stopRequested = new Promise<string>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => resolve(`${signal}: stopping the services, then the database.`));
    // One service failing in this shared process takes the run down cleanly rather than limping on.
    process.on('uncaughtException', (error) => resolve(`A service failed: ${error.stack ?? error.message}\nStopping everything.`));
    process.on('unhandledRejection', (error) => resolve(`A service failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\nStopping everything.`));
  });

  // One process, one tracer provider for every service (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set).
  const stopTracing = startTracing('invoicing', settings);
  let database: LocalDatabase | undefined;
  let host: InProcessHost;
  let mailDir = '';
  try {
    database = await openLocalDatabase(settings, inherited);
    const definitions = SERVICES.map(({ definition }) => definition);
    const gateway = { host: settings.HOST, port: settings.PORT };
    mailDir = resolve(inherited.MAIL_DIR ?? join(settings.DATA_DIR, 'mail'));
    const environment = serviceEnvironment(
      {
        gateway,
        inherited,
        databaseUrl: database.url,
        internalToken: generateInternalToken(),
        logLevel: settings.LOG_LEVEL,
        natsUrl: settings.NATS_URL,
        // Without SMTP_URL, e-mails are written under the data folder, beside the database.
        extraEnv: { MAIL_DIR: mailDir },
      },
      names.filter((name) => name !== GATEWAY).map((name) => [name, portOf(name)] as const),
    );
    const bus = await connectEventBus(settings, 'local', (error, context) => say(`event bus (${context}): ${String(error)}`));
    const interrupted = stopRequested.then((reason) => Promise.reject(new Error(`start-up interrupted (${reason.split(':')[0]})`)));
    host = await Promise.race([hostInProcess({ definitions, portOf, gatewayHost: settings.HOST, environment, bus }), interrupted]);
    // Every service listens now; with PostgreSQL away they answer 503 and say so in their logs until it returns.
    try {
      await Promise.race([host.started, interrupted]);
    } catch (error) {
      await host.stop();
      throw error;
    }
  } catch (error) {
    say(`Start-up failed: ${error instanceof PortInUseError ? `port ${error.port} is already in use (set ${settingOf(error.port)} to use another)` : error instanceof Error ? error.message : String(error)}`);
    await database?.stop();
    return 1;
  }

  // Where a newcomer finds what would have been sent (billing logs each file's path as it writes it).
  const mail = inherited.SMTP_URL ? 'sent over SMTP_URL' : `SMTP_URL is unset, so each is written as an .eml file under ${mailDir}`;
  say(banner(settings.PORT, database, Boolean(settings.DATABASE_URL), host, settings.NATS_URL ? `NATS ${settings.NATS_URL}` : 'in-process', mail));
  const reason = await stopRequested;
  say(`\n${reason}`);
  await host.stop();
  await stopTracing();
  await database.stop();
  say('Stopped.');
  return reason.startsWith('A service failed') ? 1 : 0;
};

try {
  // Exits explicitly: after an interrupted start-up a half-started service could keep the process alive.
  process.exit(await main());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`npm start: ${error.message}\n`);
  process.exit(1);
}
