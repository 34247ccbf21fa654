/**
 * kustomize sources: the files a kustomization reads (to key the render
 * cache, and so the plain loader's copy of those files is replaced by what
 * kustomize makes of them), and the build itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { KUSTOMIZATION_FILES } from '../model/argocd.ts';
import { isMap } from './charts.ts';

export interface KustomizeInputs {
  /** Repository files the build reads, `/`-separated, relative to the root. */
  files: string[];
  /** Files reached through `components:`: shared by design, so two apps may consume them. */
  componentFiles: string[];
  /** Why the build cannot be judged offline (a remote base, a Helm chart inflation). */
  unsupported?: string;
}

const isRemote = (entry: string) => /^[a-z]+:\/\/|^git@|^github\.com\//i.test(entry);

function kustomizationIn(root: string, dir: string): string | undefined {
  return KUSTOMIZATION_FILES.map((name) => (dir ? `${dir}/${name}` : name)).find((rel) => existsSync(join(root, rel)));
}

/** Walks a kustomization and everything it references, inside the repository. */
export function kustomizeInputs(root: string, dir: string): KustomizeInputs {
  const files = new Set<string>();
  const componentFiles = new Set<string>();
  let unsupported: string | undefined;
  const visit = (folder: string, viaComponent: boolean): void => {
    const file = kustomizationIn(root, folder);
    if (!file) return;
    files.add(file);
    if (viaComponent) componentFiles.add(file);
    let k: unknown;
    try {
      k = parseYaml(readFileSync(join(root, file), 'utf8'));
    } catch {
      return; // kustomize itself reports the syntax error, with its own words
    }
    if (!isMap(k)) return;
    if (k.helmCharts !== undefined) unsupported ??= `${file} inflates Helm charts (helmCharts), which Argo CD runs only with --enable-helm`;
    const entries = (key: string): string[] => (Array.isArray(k[key]) ? (k[key] as unknown[]) : []).flatMap((e) => (typeof e === 'string' ? [e] : isMap(e) && typeof e.path === 'string' ? [e.path] : []));
    const generated = (key: string): string[] =>
      (Array.isArray(k[key]) ? (k[key] as unknown[]) : []).flatMap((g) => (isMap(g) ? [...(Array.isArray(g.files) ? g.files : []), ...(Array.isArray(g.envs) ? g.envs : [])] : [])).filter((f): f is string => typeof f === 'string').map((f) => f.replace(/^[^=]*=/, ''));
    const local = (entry: string): string => normalize(folder ? `${folder}/${entry}` : entry).replace(/\\/g, '/');
    for (const [key, asComponent] of [['resources', false], ['bases', false], ['components', true]] as const) {
      for (const entry of entries(key)) {
        if (isRemote(entry)) {
          unsupported ??= `${file} names the remote ${key} entry ${entry}; the gate renders offline`;
          continue;
        }
        const rel = local(entry);
        if (kustomizationIn(root, rel)) visit(rel, viaComponent || asComponent);
        else {
          files.add(rel);
          if (viaComponent || asComponent) componentFiles.add(rel);
        }
      }
    }
    for (const rel of [...entries('patches'), ...entries('patchesStrategicMerge'), ...entries('crds'), ...generated('configMapGenerator'), ...generated('secretGenerator')].map(local)) {
      files.add(rel);
      if (viaComponent) componentFiles.add(rel);
    }
  };
  visit(dir, false);
  return { files: [...files].sort(), componentFiles: [...componentFiles].sort(), ...(unsupported ? { unsupported } : {}) };
}
