/**
 * closure-volume: a claim bound to a volume by name can bind it. The API
 * server stores a PersistentVolumeClaim whatever its volumeName says; the
 * binder (pkg/controller/volume/persistentvolume, checkVolumeSatisfyClaim)
 * then binds it only to a PersistentVolume that exists, is not reserved for
 * another claim (claimRef), has the claim's class, every access mode the
 * claim asks for, its volume mode, and at least the capacity it requests. A
 * claim that fails any of these stays Pending, and so does every pod that
 * mounts it: the media share, say, for every app at once.
 */
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { quantityValue } from '../../model/go/quantity.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { namespaceOrDestination } from '../../model/cluster/references.ts';
import { FACTS_FIX } from './closing.ts';

const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Why `pv` cannot bind the claim, or undefined when it can. */
function mismatch(claim: Resource, claimNamespace: string, pv: Resource, defaultClass: string | undefined): string | undefined {
  const ref = dig(pv.object, ['spec', 'claimRef']) as { namespace?: string; name?: string } | undefined;
  if (ref && (ref.name !== claim.name || (ref.namespace ?? '') !== claimNamespace))
    return `it is reserved for claim ${ref.namespace ?? ''}/${ref.name ?? ''} (claimRef)`;
  // A claim that names no class gets the default one from admission (DefaultStorageClass); "" asks for none.
  const asked = dig(claim.object, ['spec', 'storageClassName']);
  const claimClass = typeof asked === 'string' ? asked : (defaultClass ?? '');
  const volumeClass = (dig(pv.object, ['spec', 'storageClassName']) as string | undefined) ?? '';
  if (claimClass !== volumeClass)
    return `its class is ${JSON.stringify(volumeClass)} and the claim's is ${JSON.stringify(claimClass)}${typeof asked === 'string' ? '' : ' (the default class, which admission gives a claim that names none)'}`;
  const modes = strings(dig(pv.object, ['spec', 'accessModes']));
  const missing = strings(dig(claim.object, ['spec', 'accessModes'])).filter((m) => !modes.includes(m));
  if (missing.length) return `it does not offer ${missing.join(', ')} (it offers ${modes.join(', ') || 'none'})`;
  const volumeMode = (v: Resource) => (dig(v.object, ['spec', 'volumeMode']) as string | undefined) ?? 'Filesystem';
  if (volumeMode(pv) !== volumeMode(claim)) return `its volumeMode is ${volumeMode(pv)} and the claim's is ${volumeMode(claim)}`;
  const request = dig(claim.object, ['spec', 'resources', 'requests', 'storage']);
  const capacity = dig(pv.object, ['spec', 'capacity', 'storage']);
  const [asks, has] = [quantityValue(request), quantityValue(capacity)];
  if (asks !== undefined && has !== undefined && has < asks) return `its capacity ${String(capacity)} is less than the ${String(request)} the claim requests`;
  return undefined;
}

export const volumeClosureCheck: PolicyCheck = {
  id: 'closure-volume',
  description:
    "Every PersistentVolumeClaim bound to a volume by name (spec.volumeName) can bind it: the PersistentVolume exists (in the repository or providedOutsideGit), is not reserved for another claim (claimRef), and has the claim's class (the default class when the claim names none), every access mode it asks for, its volume mode and at least the capacity it requests; the binder leaves the claim Pending otherwise, and every pod that mounts it (invariants P1, M1).",
  invariants: ['P1', 'M1'],
  remediation: `make the PersistentVolume and its claim agree (claimRef, storageClassName, accessModes, volumeMode, capacity), or name the volume that exists, ${FACTS_FIX}`,
  reads: { kinds: ['PersistentVolumeClaim', 'PersistentVolume', 'StorageClass'], renders: true },
  exemptible: false,
  run(ctx) {
    const volumes = new Map(ctx.resources.filter((r) => r.kind === 'PersistentVolume').map((r) => [r.name, r]));
    const outside = new Set((ctx.repo.facts?.providedOutsideGit ?? []).filter((e) => e.kind === 'PersistentVolume').map((e) => e.name));
    const defaultClass = ctx.resources.find((r) => r.kind === 'StorageClass' && dig(r.object, ['metadata', 'annotations', DEFAULT_CLASS]) === 'true')?.name;
    for (const claim of ctx.resources.filter((r) => r.kind === 'PersistentVolumeClaim')) {
      const name = dig(claim.object, ['spec', 'volumeName']);
      if (typeof name !== 'string' || name === '' || outside.has(name)) continue;
      const where = { resource: claim, path: ['spec', 'volumeName'] };
      const pv = volumes.get(name);
      if (!pv) {
        ctx.fail(
          where,
          `PersistentVolumeClaim ${claim.name} binds to PersistentVolume ${name}, which nothing in the repository provides: the claim stays Pending`,
        );
        continue;
      }
      const why = mismatch(claim, namespaceOrDestination(ctx.repo, claim) ?? '', pv, defaultClass);
      if (why)
        ctx.fail(
          where,
          `PersistentVolumeClaim ${claim.name} binds to PersistentVolume ${name}, but ${why}: the binder never binds them, and the claim stays Pending`,
        );
    }
  },
};
