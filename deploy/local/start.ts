// `npm start`: the whole platform on one machine, for trying it out and for local development.
import { ConfigError, ensureDatabaseExists } from '@invoicing/service-kit';
import { loadRunnerSettings } from './config.ts';
import { openLocalDatabase, type LocalDatabase } from './local-database.ts';
import { discoverServices, explainExit, generateInternalToken, launchPlatform, localServicePorts, type Platform } from './platform.ts';
import { prefixedSink } from './service-process.ts';

const say = (text: string) => process.stdout.write(`${text}\n`);

const banner = (port: number, platform: Platform, database: LocalDatabase, usesDatabaseUrl: boolean): string => {
  const origin = `http://localhost:${port}`;
  const width = Math.max(...platform.services.map(({ name }) => name.length));
  return [
    '',
    ...platform.services.map(({ name, url, pid }) => `  ${name.padEnd(width)}  ${url}  (pid ${pid})`),
    `  database: ${database.description}`,
    '',
    `The invoicing API is up at ${origin}/api/v1`,
    `  OpenAPI document: ${origin}/api/v1/openapi.json`,
    '  Create an API key, in another shell in this folder:',
    `    ${usesDatabaseUrl ? 'DATABASE_URL=<the same URL> ' : ''}npm run --silent admin -- keys create --workspace demo --scopes all`,
    '  Then call the API with it:',
    `    curl -H "Authorization: Bearer <key>" ${origin}/api/v1/customers`,
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
};

const main = async (): Promise<number> => {
  const { settings, inherited } = loadRunnerSettings();
  const services = discoverServices();
  if (services.length === 0) throw new Error('No service under services/*/src/main.ts to start.');

  // Every signal is caught for the whole run, so a second Ctrl-C cannot cut the shutdown short.
  const aborter = new AbortController();
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => resolve(signal));
  });
  void signalled.then((signal) => aborter.abort(signal));

  let database: LocalDatabase | undefined;
  let platform: Platform;
  try {
    database = await openLocalDatabase(settings, inherited);
    await ensureDatabaseExists(database.url);
    platform = await launchPlatform({
      services,
      ports: localServicePorts(settings.SERVICE_PORT_BASE),
      gateway: { host: settings.HOST, port: settings.PORT },
      databaseUrl: database.url,
      internalToken: generateInternalToken(),
      logLevel: settings.LOG_LEVEL,
      natsUrl: settings.NATS_URL,
      inherited,
      sink: prefixedSink(Math.max(...services.map((name) => name.length))),
      readyTimeoutMs: settings.READY_TIMEOUT_MS,
      signal: aborter.signal,
    });
  } catch (error) {
    const interrupted = aborter.signal.aborted;
    say(interrupted ? `\n${aborter.signal.reason}: start-up interrupted.` : `Start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    await database?.stop();
    return interrupted ? 0 : 1;
  }

  say(banner(settings.PORT, platform, database, Boolean(settings.DATABASE_URL)));
  const outcome = await Promise.race([
    signalled.then((signal) => ({ code: 0, reason: `${signal}: stopping the services, then the database.` })),
    platform.unexpectedExit.then((exit) => ({ code: 1, reason: explainExit(exit) })),
  ]);
  say(`\n${outcome.reason}`);
  await platform.stop();
  await database.stop();
  say('Stopped.');
  return outcome.code;
};

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`npm start: ${error.message}\n`);
  process.exitCode = 1;
}
