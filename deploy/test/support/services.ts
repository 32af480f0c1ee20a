import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const readRepositoryFile = (path: string): string => readFileSync(join(REPOSITORY_ROOT, path), 'utf8');

/** Every deployable service: a folder under services/ with a settings schema. */
export const SERVICES = readdirSync(join(REPOSITORY_ROOT, 'services')).filter((name) =>
  existsSync(join(REPOSITORY_ROOT, 'services', name, 'src', 'config.ts')),
);

export interface ServiceSettings {
  names: Set<string>;
  /** Settings without a default: a deployment must set them. */
  required: string[];
  defaultPort: number;
}

/** The settings schema `src/config.ts` exports: the one object schema with a PORT. */
export const loadSettings = async (service: string): Promise<ServiceSettings> => {
  const module = (await import(join(REPOSITORY_ROOT, 'services', service, 'src', 'config.ts'))) as Record<string, unknown>;
  const schema = Object.values(module).find((value): value is z.ZodObject => value instanceof z.ZodObject && 'PORT' in value.shape);
  if (!schema) throw new Error(`services/${service}/src/config.ts exports no settings schema with a PORT`);
  const shape = schema.shape as Record<string, z.ZodType>;
  return {
    names: new Set(Object.keys(shape)),
    required: Object.entries(shape)
      .filter(([, setting]) => !setting.safeParse(undefined).success)
      .map(([name]) => name),
    defaultPort: z.number().parse(shape.PORT?.parse(undefined)),
  };
};

interface Manifest {
  dependencies?: Record<string, string>;
}

/** The workspace folders a service needs at run time: itself and its production @invoicing/* packages, transitively. */
export const runtimeWorkspaces = (service: string): string[] => {
  const folderOf = new Map<string, string>();
  for (const parent of ['packages', 'services']) {
    for (const name of readdirSync(join(REPOSITORY_ROOT, parent))) {
      const path = join(parent, name, 'package.json');
      if (existsSync(join(REPOSITORY_ROOT, path))) folderOf.set((JSON.parse(readRepositoryFile(path)) as { name: string }).name, `${parent}/${name}`);
    }
  }
  const found = new Set<string>();
  const visit = (folder: string) => {
    if (found.has(folder)) return;
    found.add(folder);
    const manifest = JSON.parse(readRepositoryFile(`${folder}/package.json`)) as Manifest;
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      const dependencyFolder = folderOf.get(dependency);
      if (dependencyFolder) visit(dependencyFolder);
    }
  };
  visit(`services/${service}`);
  return [...found].sort();
};
