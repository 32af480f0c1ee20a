import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * Renders a kustomization the way `kustomize build` does, for the subset deploy/kubernetes uses:
 * resources (files and directories), namespace, images, and strategic-merge patches naming their
 * target by kind and name. A kustomization using anything else is refused rather than rendered
 * wrong, so the tests never check something other than what a cluster would receive.
 */

export type Resource = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  patches?: Array<{ path: string }>;
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);

export const readYamlDocuments = (path: string): Resource[] =>
  parseAllDocuments(readFileSync(path, 'utf8'), { merge: true })
    .map((document) => document.toJS() as Resource | null)
    .filter((resource): resource is Resource => resource !== null);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Kubernetes' strategic merge for the lists used here: lists of named objects merge by name, other lists are replaced. */
const strategicMerge = (target: unknown, patch: unknown): unknown => {
  if (isObject(target) && isObject(patch)) {
    const merged: Record<string, unknown> = { ...target };
    for (const [key, value] of Object.entries(patch)) merged[key] = key in target ? strategicMerge(target[key], value) : value;
    return merged;
  }
  const named = (list: unknown): list is Array<{ name: string }> => Array.isArray(list) && list.every((item) => isObject(item) && typeof item.name === 'string');
  if (named(target) && named(patch)) {
    const merged = target.map((item) => {
      const change = patch.find((candidate) => candidate.name === item.name);
      return change ? strategicMerge(item, change) : item;
    });
    return [...merged, ...patch.filter((item) => !target.some((candidate) => candidate.name === item.name))];
  }
  return patch;
};

const setImages = (value: unknown, images: NonNullable<Kustomization['images']>): unknown => {
  if (Array.isArray(value)) return value.map((item) => setImages(item, images));
  if (!isObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'image' && typeof child === 'string') {
      const [name, tag] = child.split(':');
      const image = images.find((candidate) => candidate.name === name);
      result[key] = image ? `${image.newName ?? image.name}:${image.newTag ?? tag ?? 'latest'}` : child;
    } else result[key] = setImages(child, images);
  }
  return result;
};

export const renderKustomization = (directory: string): Resource[] => {
  const kustomization = readYamlDocuments(join(directory, 'kustomization.yaml'))[0] as unknown as Kustomization;
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0) throw new Error(`${directory}/kustomization.yaml: ${unsupported.join(', ')} not supported by this renderer`);
  let resources = (kustomization.resources ?? []).flatMap((entry) => {
    const path = join(directory, entry);
    return statSync(path).isDirectory() ? renderKustomization(path) : readYamlDocuments(path);
  });
  for (const { path } of kustomization.patches ?? []) {
    for (const patch of readYamlDocuments(join(directory, path))) {
      const index = resources.findIndex((resource) => resource.kind === patch.kind && resource.metadata.name === patch.metadata.name);
      if (index === -1) throw new Error(`${path}: no ${patch.kind} ${patch.metadata.name} to patch`);
      resources[index] = strategicMerge(resources[index], patch) as Resource;
    }
  }
  if (kustomization.images) resources = resources.map((resource) => setImages(resource, kustomization.images ?? []) as Resource);
  if (kustomization.namespace) resources = resources.map((resource) => ({ ...resource, metadata: { ...resource.metadata, namespace: kustomization.namespace } }));
  return resources;
};
