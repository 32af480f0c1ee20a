import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readYamlDocuments, renderKustomization, type Resource } from './support/kustomize.ts';
import { loadSettings, readRepositoryFile, REPOSITORY_ROOT, SERVICES } from './support/services.ts';

const KUBERNETES = join(REPOSITORY_ROOT, 'deploy', 'kubernetes');
const RENDERED = {
  base: renderKustomization(join(KUBERNETES, 'base')),
  production: renderKustomization(join(KUBERNETES, 'overlays', 'production')),
};
/** Settings that carry credentials (REDIS_URL may hold a password): only ever from a Secret. */
const SECRET_SETTINGS = ['DATABASE_URL', 'INTERNAL_TOKEN', 'WEBHOOK_SECRETS_KEY', 'REDIS_URL', 'SMTP_URL'];

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  env?: EnvVar[];
  readinessProbe?: { httpGet: { path: string; port: string | number } };
  livenessProbe?: { httpGet: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}
interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: Container[]; securityContext?: { runAsNonRoot?: boolean } };
}

const find = (resources: Resource[], kind: string, name: string) => {
  const found = resources.find((resource) => resource.kind === kind && resource.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found as Resource & { spec: Record<string, unknown> };
};
const podOf = (resources: Resource[], kind: 'Deployment' | 'Job', name: string) => find(resources, kind, name).spec.template as PodTemplate;
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The model of a kind in kubernetes-models, whose validate() checks it against the official OpenAPI schema. */
const modelOf = async (resource: Resource) => {
  const module = (await import(/* @vite-ignore */ `kubernetes-models/${resource.apiVersion}/${resource.kind}`)) as Record<string, new (data: unknown) => { validate: () => void }>;
  const Model = module[resource.kind];
  if (!Model) throw new Error(`kubernetes-models has no ${resource.apiVersion} ${resource.kind}`);
  return new Model(resource);
};

describe.each(Object.entries(RENDERED))('deploy/kubernetes %s', (_name, resources) => {
  it('is valid against the Kubernetes API schemas, every object of it', async () => {
    for (const resource of resources) {
      const model = await modelOf(resource);
      expect(() => model.validate(), `${resource.kind} ${resource.metadata.name}`).not.toThrow();
    }
  });

  describe.each(SERVICES)('%s', (service) => {
    it('runs as a Deployment listening on its configured port, behind a Service that selects only its pods', async () => {
      const { defaultPort } = await loadSettings(service);
      const pod = podOf(resources, 'Deployment', service);
      const container = pod.spec.containers.find((candidate) => candidate.name === service);
      expect(container?.ports).toEqual([{ name: 'http', containerPort: defaultPort }]);
      const serviceSpec = find(resources, 'Service', service).spec as { selector: Record<string, string>; ports: Array<{ port: number; targetPort: string }> };
      expect(serviceSpec.ports).toEqual([{ name: 'http', port: defaultPort, targetPort: 'http' }]);
      expect(selects(serviceSpec.selector, pod.metadata.labels)).toBe(true);
      expect(selects(serviceSpec.selector, podOf(resources, 'Job', `${service}-migrate`).metadata.labels)).toBe(false);
    });

    it('is probed for readiness on /readyz and liveness on /healthz, with resources and a non-root read-only container', () => {
      const pod = podOf(resources, 'Deployment', service);
      const [container] = pod.spec.containers;
      expect(container?.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container?.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container?.resources?.requests).toHaveProperty('cpu');
      expect(container?.resources?.requests).toHaveProperty('memory');
      expect(container?.resources?.limits).toHaveProperty('memory');
      expect(pod.spec.securityContext?.runAsNonRoot).toBe(true);
      expect(container?.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    });

    it('sets only settings the service has, every one it requires, and secrets only by reference', async () => {
      const settings = await loadSettings(service);
      for (const [kind, name] of [['Deployment', service], ['Job', `${service}-migrate`]] as const) {
        const env = podOf(resources, kind, name).spec.containers.flatMap((container) => container.env ?? []);
        for (const variable of env) {
          expect(settings.names, `${kind} ${name} sets ${variable.name}`).toContain(variable.name);
          if (SECRET_SETTINGS.includes(variable.name)) expect(variable.valueFrom?.secretKeyRef, variable.name).toBeDefined();
        }
        expect(env.map((variable) => variable.name)).toContain('DATABASE_URL');
        if (kind === 'Deployment') for (const name of settings.required) expect(env.map((variable) => variable.name)).toContain(name);
      }
    });

    it('reaches the other services by their Service names and ports', async () => {
      const env = podOf(resources, 'Deployment', service).spec.containers.flatMap((container) => container.env ?? []);
      for (const { name, value } of env) {
        const url = /^http:\/\/([a-z-]+):(\d+)$/.exec(value ?? '');
        if (!url) continue;
        const [, host = '', port] = url;
        expect(SERVICES, `${name} names ${host}`).toContain(host);
        expect(Number(port)).toBe((await loadSettings(host)).defaultPort);
      }
    });

    it('scales with an autoscaler and a disruption budget on the Deployment, and migrates with a Job on the same image', () => {
      const pod = podOf(resources, 'Deployment', service);
      const hpa = find(resources, 'HorizontalPodAutoscaler', service).spec as { scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number };
      expect(hpa.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: service });
      expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
      const pdb = find(resources, 'PodDisruptionBudget', service).spec as { selector: { matchLabels: Record<string, string> } };
      expect(selects(pdb.selector.matchLabels, pod.metadata.labels)).toBe(true);
      const [migrate] = podOf(resources, 'Job', `${service}-migrate`).spec.containers;
      expect(migrate?.image).toBe(pod.spec.containers[0]?.image);
      expect(migrate?.command).toEqual(['node', 'src/migrate.ts']);
      expect(existsSync(join(REPOSITORY_ROOT, 'services', service, 'src', 'migrate.ts'))).toBe(true);
    });
  });
});

describe('deploy/kubernetes production', () => {
  const resources = RENDERED.production;
  const envOf = (service: string) =>
    Object.fromEntries(podOf(resources, 'Deployment', service).spec.containers.flatMap((container) => container.env ?? []).map((variable) => [variable.name, variable]));

  it('runs three replicas or more of every service, from a registry image with a tag', () => {
    for (const service of SERVICES) {
      expect(find(resources, 'Deployment', service).spec.replicas).toBeGreaterThanOrEqual(3);
      expect((find(resources, 'HorizontalPodAutoscaler', service).spec as { minReplicas: number }).minReplicas).toBeGreaterThanOrEqual(3);
      expect(podOf(resources, 'Deployment', service).spec.containers[0]?.image).toMatch(/^[\w.-]+\/invoicing\/[a-z]+:[\w.-]+$/);
    }
  });

  it('replicates the events stream on the servers of the NATS cluster the chart values describe, which it connects to', () => {
    const values = readYamlDocuments(join(KUBERNETES, 'nats-values.yaml'))[0] as unknown as {
      config: { cluster: { enabled: boolean; replicas: number }; jetstream: { enabled: boolean; fileStore: { enabled: boolean; pvc: { enabled: boolean } } } };
    };
    expect(values.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(values.config.jetstream).toMatchObject({ enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } });
    const eventServices = SERVICES.filter((service) => envOf(service).NATS_URL);
    expect(eventServices.length).toBeGreaterThan(0);
    for (const service of eventServices) {
      expect(envOf(service).EVENTS_STREAM_REPLICAS?.value).toBe(String(values.config.cluster.replicas));
      expect(envOf(service).NATS_URL?.value).toBe('nats://nats.nats.svc.cluster.local:4222');
    }
  });

  it("counts the gateway's rate limits in the Redis the operator provides, whose URL comes from the platform's secret", async () => {
    expect((await loadSettings('gateway')).names).toContain('REDIS_URL');
    expect(envOf('gateway').REDIS_URL?.valueFrom?.secretKeyRef).toEqual({ name: 'invoicing-secrets', key: 'redis-url' });
  });

  it('has deploy/README.md create invoicing-secrets with exactly the keys the release reads from it (a missing key stops the pod)', () => {
    const command = /kubectl -n invoicing create secret generic invoicing-secrets((?:[^\n]*\\\n)*[^\n]*)/.exec(readRepositoryFile('deploy/README.md'))?.[1] ?? '';
    const created = [...command.matchAll(/--from-literal=([a-z-]+)=/g)].map((match) => match[1]);
    const read = resources
      .filter((resource) => resource.kind === 'Deployment' || resource.kind === 'Job')
      .flatMap((resource) => (resource as Resource & { spec: { template: PodTemplate } }).spec.template.spec.containers.flatMap((container) => container.env ?? []))
      .flatMap((variable) => (variable.valueFrom?.secretKeyRef?.name === 'invoicing-secrets' ? [variable.valueFrom.secretKeyRef.key] : []));
    expect(created.sort()).toEqual([...new Set(read)].sort());
  });

  it('reads DATABASE_URL from the secret CloudNativePG makes for its cluster of three', () => {
    const [cluster] = readYamlDocuments(join(KUBERNETES, 'cloudnative-pg-cluster.yaml')) as Array<Resource & { spec: { instances: number; bootstrap: { initdb: { database: string } } } }>;
    expect(cluster).toMatchObject({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', spec: { instances: 3 } });
    for (const service of SERVICES) {
      for (const [kind, name] of [['Deployment', service], ['Job', `${service}-migrate`]] as const) {
        const env = podOf(resources, kind, name).spec.containers.flatMap((container) => container.env ?? []);
        expect(env.find((variable) => variable.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({ name: `${cluster?.metadata.name}-app`, key: 'uri' });
      }
    }
  });
});
