/**
 * A snapshot of what Argo CD would apply from one tree: every Application's
 * objects, plain and rendered with the gate's render tier (and its cache, so
 * a second ref costs only what changed). An Application that cannot be
 * rendered is kept apart with its cause and a fingerprint of its inputs, so
 * the diff can say whether that matters, and still report the rest.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applications, normalizeSourcePath, owningApplication, type ArgoApp } from '../../policy-tests/model/argocd.ts';
import { loadRepo, type Repo } from '../../policy-tests/model/repo.ts';
import { withRendered } from '../../policy-tests/model/rendered.ts';
import { schemaLayer } from '../../policy-tests/gate/gate.ts';
import { renderRepo } from '../../policy-tests/render/render.ts';
import type { Snapshot } from './changes.ts';
import { crdSchemas } from '../../policy-tests/admission/crd-schemas.ts';

/**
 * Everything an Application's render depends on in this tree: the
 * Application itself, every file under its sources' paths, and the values
 * files its `$ref` sources lend. Equal fingerprints on both refs mean the
 * render would be the same, whatever stopped it.
 */
function inputsFingerprint(repo: Repo, app: ArgoApp): string {
  const h = createHash('sha256').update(JSON.stringify(app.resource.object));
  const files = new Set<string>();
  for (const source of app.sources) {
    const path = normalizeSourcePath(source.path ?? '');
    if (source.path !== undefined) for (const f of repo.files) if (path === '' || f.startsWith(`${path}/`)) files.add(f);
    for (const v of source.helm?.valueFiles ?? []) {
      const ref = /^\$[^/]+\/(.*)$/.exec(v);
      if (ref) files.add(normalizeSourcePath(ref[1]!));
    }
  }
  for (const f of [...files].sort()) h.update(`\0${f}\0`).update(existsSync(join(repo.root, f)) ? readFileSync(join(repo.root, f)) : 'missing');
  return h.digest('hex');
}

export async function snapshot(root: string, env: NodeJS.ProcessEnv = process.env): Promise<Snapshot> {
  const plain = await loadRepo(root);
  const layer = await schemaLayer();
  const { renders } = await renderRepo(plain, { builtinApiVersions: layer.builtinApiVersions(), env });
  const { repo } = withRendered(plain, renders);
  const failed = new Map<string, string>();
  for (const r of renders) if (r.status !== 'rendered') failed.set(r.app.name, [failed.get(r.app.name), `${r.label}: ${r.message ?? r.status}`].filter(Boolean).join('; '));
  const unrendered = new Map<string, { cause: string; inputs: string }>();
  for (const app of applications(repo)) if (failed.has(app.name)) unrendered.set(app.name, { cause: failed.get(app.name)!, inputs: inputsFingerprint(repo, app) });
  const scopes = layer.withCrds(repo.resources.filter((r) => r.kind === 'CustomResourceDefinition'));
  const objects: Snapshot['objects'] = new Map();
  for (const r of repo.resources) {
    const app = owningApplication(repo, r);
    if (!app) continue;
    const clusterScoped = r.kind === 'CustomResourceDefinition' || scopes.isClusterScoped(r.apiVersion, r.kind);
    const namespace = clusterScoped ? '' : (r.namespace ?? app.destinationNamespace ?? '');
    objects.set(`${app.name}|${r.apiVersion}/${r.kind}|${namespace}|${r.name}`, { app: app.name, prune: app.automated?.prune === true, object: r.object });
  }
  // Every Application's fingerprint, so one rendered on one side only still compares.
  const fingerprints = new Map(applications(repo).map((a) => [a.name, inputsFingerprint(repo, a)]));
  return { objects, schemas: crdSchemas(repo.resources), unrendered, fingerprints };
}
