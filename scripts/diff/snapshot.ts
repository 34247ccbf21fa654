/**
 * A snapshot of what Argo CD would apply from one tree: every Application's
 * objects, plain and rendered with the gate's render tier (and its cache, so
 * a second ref costs only what changed).
 */
import { owningApplication } from '../../policy-tests/model/argocd.ts';
import { loadRepo } from '../../policy-tests/model/repo.ts';
import { withRendered } from '../../policy-tests/model/rendered.ts';
import { schemaLayer } from '../../policy-tests/gate/gate.ts';
import { renderRepo } from '../../policy-tests/render/render.ts';
import type { Snapshot } from './changes.ts';
import { crdSchemas } from '../../policy-tests/admission/crd-schemas.ts';

export class RenderFailure extends Error {}

export async function snapshot(root: string, env: NodeJS.ProcessEnv = process.env, label = root): Promise<Snapshot> {
  const plain = await loadRepo(root);
  const layer = await schemaLayer();
  const { renders } = await renderRepo(plain, { builtinApiVersions: layer.builtinApiVersions(), env });
  const broken = renders.filter((r) => r.status !== 'rendered');
  if (broken.length) throw new RenderFailure(`${label}: ${broken.map((r) => `${r.app.name} (${r.label}): ${r.message ?? r.status}`).join('; ')}`);
  const { repo } = withRendered(plain, renders);
  const scopes = layer.withCrds(repo.resources.filter((r) => r.kind === 'CustomResourceDefinition'));
  const objects: Snapshot['objects'] = new Map();
  for (const r of repo.resources) {
    const app = owningApplication(repo, r);
    if (!app) continue;
    const clusterScoped = r.kind === 'CustomResourceDefinition' || scopes.isClusterScoped(r.apiVersion, r.kind);
    const namespace = clusterScoped ? '' : (r.namespace ?? app.destinationNamespace ?? '');
    objects.set(`${app.name}|${r.apiVersion}/${r.kind}|${namespace}|${r.name}`, { app: app.name, prune: app.automated?.prune === true, object: r.object });
  }
  return { objects, schemas: crdSchemas(repo.resources) };
}
