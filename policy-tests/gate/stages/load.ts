/** The load stage: the tree's own files parsed, the schema layer ready, and the kinds --skip and --reject name held to what is known. */
import { didYouMean } from '../../model/core/did-you-mean.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { crdsFromObjects } from '../../schema/repo-crds.ts';
import type { SchemaLayer } from '../../schema/schema-layer.ts';
import { loadTree, type LoadedTree } from '../pipeline.ts';
import { UsageError } from '../usage-error.ts';
import type { GateOptions } from '../options.ts';

export async function loadStage(root: string, options: GateOptions): Promise<LoadedTree> {
  options.onProgress?.('parse', 0, 1);
  const loaded = await loadTree(root, { parallel: options.parallel, env: options.env, render: options.render });
  assertKnownKinds(options, loaded.layer, loaded.plain.resources);
  options.onProgress?.('parse', 1, 1);
  return loaded;
}

/**
 * `--skip` and `--reject` name kinds (`Kind` or `apiVersion/Kind`); a name no schema and no resource knows is a typo
 * that would silently skip nothing, so it is a usage error, with the nearest known name.
 */
function assertKnownKinds(options: GateOptions, layer: SchemaLayer, resources: readonly Resource[]): void {
  const known = new Set<string>();
  // The kinds the layer has schemas for, those the repository's CRDs declare (read lazily, no schema compiled), and those it uses.
  const declared = crdsFromObjects(resources.filter((r) => r.kind === 'CustomResourceDefinition')).map((c) => `${c.apiVersion}/${c.kind}`);
  for (const key of [...layer.knownKinds(), ...declared, ...resources.map((r) => `${r.apiVersion}/${r.kind}`)]) {
    known.add(key);
    known.add(key.slice(key.lastIndexOf('/') + 1));
  }
  for (const [flag, kinds] of [
    ['--skip', options.skip ?? []],
    ['--reject', options.reject ?? []],
  ] as const)
    for (const kind of kinds)
      if (!known.has(kind)) {
        throw new UsageError(`${flag} ${kind}: no schema or resource has that kind${didYouMean(kind, known)}`);
      }
}
