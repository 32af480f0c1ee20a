import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseDockerfile, resolveImage } from './support/dockerfile.ts';
import { loadSettings, readRepositoryFile, REPOSITORY_ROOT, runtimeWorkspaces, SERVICES } from './support/services.ts';

interface ComposeService {
  image?: string;
  restart?: string;
  build?: { context: string; dockerfile: string; target?: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  secrets?: string[];
}

const compose = parse(readRepositoryFile('deploy/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService>; secrets?: Record<string, unknown> };
const composeServices = compose.services;
const dockerfiles = new Map<string, ReturnType<typeof parseDockerfile>>();

/** The image compose builds for a service, resolved from the Dockerfile it names. */
const imageOf = (name: string) => {
  const build = composeServices[name]?.build;
  if (!build) throw new Error(`compose service ${name} has no build`);
  expect(build.context).toBe('..');
  const path = build.dockerfile;
  if (!dockerfiles.has(path)) dockerfiles.set(path, parseDockerfile(readRepositoryFile(path)));
  return resolveImage(dockerfiles.get(path) as ReturnType<typeof parseDockerfile>, build.args ?? {}, build.target);
};

/** Where a path inside the image comes from in the repository: the Dockerfile copies it to /app. */
const repositoryPathOf = (imagePath: string): string => {
  expect(imagePath.startsWith('/app/')).toBe(true);
  return imagePath.slice('/app/'.length);
};

const healthUrlOf = (test: string[] | undefined): string | undefined => test?.join(' ').match(/http:\/\/127\.0\.0\.1:\d+\/(?:healthz|readyz)/)?.[0];

describe('deploy/compose.yaml and deploy/docker', () => {
  it('has one built service for every folder under services/, and none for a folder that is gone', () => {
    const built = Object.entries(composeServices)
      .filter(([, service]) => service.build)
      .map(([name, service]) => [name, service.build?.args?.SERVICE]);
    expect(Object.fromEntries(built)).toEqual(Object.fromEntries(SERVICES.map((service) => [service, service])));
  });

  describe.each(SERVICES)('%s', (service) => {
    const composeService = () => composeServices[service] as ComposeService;

    it('builds an image on Node 24 that runs the service as a non-root user and listens on 0.0.0.0 at its configured port', async () => {
      const settings = await loadSettings(service);
      const image = imageOf(service);
      expect(image.baseImage).toMatch(/^node:24[.-]/);
      expect(image.user).toBeDefined();
      expect(['root', '0']).not.toContain(image.user);
      expect(image.env.get('HOST')).toBe('0.0.0.0');
      expect(Number(image.env.get('PORT'))).toBe(settings.defaultPort);
      expect(image.exposed).toEqual([String(settings.defaultPort)]);
      for (const name of image.env.keys()) expect(settings.names, `ENV ${name} of the ${service} image`).toContain(name);
    });

    it('starts with a CMD whose file exists, and installs only the production dependencies of the workspaces it needs', () => {
      const image = imageOf(service);
      const [program, file] = image.cmd;
      expect(program).toBe('node');
      const started = join(repositoryPathOf(image.workdir), file ?? '');
      expect(started).toBe(`services/${service}/src/main.ts`);
      expect(existsSync(join(REPOSITORY_ROOT, started))).toBe(true);
      // The migration Job runs the same image with src/migrate.ts.
      expect(existsSync(join(REPOSITORY_ROOT, repositoryPathOf(image.workdir), 'src', 'migrate.ts'))).toBe(true);
      const copies = image.steps.filter((step) => step.keyword === 'COPY').map((step) => step.args);
      for (const workspace of runtimeWorkspaces(service)) {
        expect(copies).toContain(`${workspace}/package.json ${workspace}/`);
        expect(copies).toContain(`${workspace} ${workspace}`);
      }
      const install = image.steps.find((step) => step.keyword === 'RUN' && step.args.includes('npm ci'));
      expect(install?.args).toContain('--omit=dev');
      expect(install?.args).toContain(`--workspace=services/${service}`);
    });

    it('checks its health on /healthz at its own port, in the image and in compose (/readyz there, so dependents wait for it)', async () => {
      const { defaultPort } = await loadSettings(service);
      const image = imageOf(service);
      expect(image.healthcheck).toContain("'http://127.0.0.1:' + process.env.PORT + '/healthz'");
      expect(healthUrlOf(composeService().healthcheck?.test)).toBe(`http://127.0.0.1:${defaultPort}/readyz`);
    });

    it('sets in compose only settings the service has, and every setting it requires', async () => {
      const settings = await loadSettings(service);
      const environment = composeService().environment ?? {};
      for (const name of Object.keys(environment)) expect(settings.names, `compose sets ${name} on ${service}`).toContain(name.replace(/_FILE$/, ''));
      for (const name of settings.required) expect(Object.keys(environment)).toContain(name);
      for (const name of ['INTERNAL_TOKEN', 'WEBHOOK_SECRETS_KEY'].filter((secret) => secret in environment)) {
        expect(environment[name], `${name} comes from the environment, never from this file`).toMatch(/^\$\{\w+:\?.+\}$/);
      }
      // Optional, but a secret all the same (its URL carries the mail server's password).
      expect(environment, 'SMTP_URL comes from a compose secret, never from this file nor the environment').not.toHaveProperty('SMTP_URL');
      if (settings.names.has('SMTP_URL')) expect(environment.SMTP_URL_FILE).toBe('/run/secrets/smtp_url');
    });

    it('reads every setting it takes from a file from a compose secret mounted there, with the secret taken from where compose runs', () => {
      const environment = composeService().environment ?? {};
      const files = Object.entries(environment).filter(([name]) => name.endsWith('_FILE'));
      for (const [name, path] of files) {
        const secret = /^\/run\/secrets\/([a-z_]+)$/.exec(path)?.[1];
        expect(secret, `${name} is a mounted secret`).toBeDefined();
        expect(composeService().secrets, `${service} is granted ${secret}`).toContain(secret);
        expect(compose.secrets?.[secret ?? ''], `secret ${secret}`).toEqual({ environment: name.replace(/_FILE$/, '') });
      }
      expect(composeService().secrets ?? []).toHaveLength(files.length);
    });

    it('reaches the other services and the infrastructure by compose names and their ports, and waits until they are healthy', async () => {
      const environment = composeService().environment ?? {};
      const dependsOn = composeService().depends_on ?? {};
      for (const [name, value] of Object.entries(environment)) {
        const url = /^(?:https?|nats|postgresql|rediss?):\/\/(?:[^@/]*@)?([a-z-]+):(\d+)/.exec(value);
        if (!url || url[1] === 'localhost') continue;
        const [, host = '', port] = url;
        expect(Object.keys(composeServices), `${name} names ${host}`).toContain(host);
        // Two services that call each other cannot both wait for the other: the one that starts later
        // waits for the earlier, whose calls to it happen only later on (billing's mail worker fetching
        // documents, retried; test clocks, catalog → billing and billing → subscriptions, a 503 until up).
        const startsAfter = composeServices[host]?.depends_on?.[service] !== undefined;
        if (startsAfter) expect(composeServices[host]?.depends_on?.[service], `${host} waits for ${service}`).toEqual({ condition: 'service_healthy' });
        else expect(dependsOn[host], `${service} depends on ${host}, which ${name} names`).toEqual({ condition: 'service_healthy' });
        if (SERVICES.includes(host)) expect(Number(port)).toBe((await loadSettings(host)).defaultPort);
      }
      for (const dependency of Object.keys(dependsOn)) expect(composeServices[dependency]?.healthcheck).toBeDefined();
    });
  });

  it('publishes only the gateway, on its configured port', async () => {
    const published = Object.entries(composeServices).filter(([, service]) => service.ports);
    expect(published.map(([name]) => name)).toEqual(['gateway']);
    const containerPorts = composeServices.gateway?.ports?.map((mapping) => mapping.split(':').at(-1));
    expect(containerPorts).toEqual([String((await loadSettings('gateway')).defaultPort)]);
  });

  it('restarts every container, infrastructure included, when its process exits', () => {
    for (const [name, service] of Object.entries(composeServices)) {
      expect(service.restart, `restart policy of ${name}`).toMatch(/^(?:unless-stopped|always|on-failure(?::\d+)?)$/);
    }
  });

  it("shares the gateway's rate-limit counters through a Redis or Valkey of its own, which keeps nothing on disk", async () => {
    expect((await loadSettings('gateway')).names).toContain('REDIS_URL');
    const url = new URL(composeServices.gateway?.environment?.REDIS_URL ?? '');
    expect(url.protocol).toBe('redis:');
    const redis = composeServices[url.hostname] as ComposeService;
    expect(redis.image).toMatch(/^(?:redis|valkey\/valkey):/);
    expect(redis.command).toEqual([expect.stringMatching(/^(?:redis|valkey)-server$/), '--save', '', '--appendonly', 'no']);
    expect(redis.volumes).toBeUndefined();
    expect(redis.healthcheck?.test).toEqual(['CMD', expect.stringMatching(/^(?:redis|valkey)-cli$/), 'ping']);
  });

  it('runs NATS with JetStream storing to a volume, and PostgreSQL on a volume', () => {
    const nats = composeServices.nats as ComposeService;
    expect(nats.command).toContain('-js');
    const storeDir = nats.command?.[(nats.command.indexOf('-sd') ?? -1) + 1];
    expect(nats.volumes?.map((volume) => volume.split(':')[1])).toContain(storeDir);
    expect(composeServices.postgres?.volumes?.map((volume) => volume.split(':')[1])).toContain('/var/lib/postgresql/data');
  });

  it('ships Chromium in the image of every service that prints with it, at the path its setting names', async () => {
    for (const service of SERVICES) {
      if (!(await loadSettings(service)).names.has('CHROMIUM_PATH')) continue;
      const image = imageOf(service);
      expect(image.env.get('CHROMIUM_PATH')).toBe('/usr/bin/chromium');
      expect(image.steps.some((step) => step.keyword === 'RUN' && /apt-get install .*\bchromium\b/.test(step.args))).toBe(true);
    }
  });
});
