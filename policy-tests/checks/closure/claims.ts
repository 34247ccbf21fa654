/**
 * closure-volume: a claim bound to a volume by name can bind it. The API
 * server stores a PersistentVolumeClaim whatever its volumeName says; the
 * binder (pkg/controller/volume/persistentvolume, checkVolumeSatisfyClaim)
 * then binds it only to a PersistentVolume that exists, is not reserved for
 * another claim (claimRef), has the claim's class, every access mode the
 * claim asks for, its volume mode, and at least the capacity it requests. A
 * claim that fails any of these stays Pending, and so does every pod that
 * mounts it: the media share, say, for every app at once. A claim of no class
 * (storageClassName "", or none where no class is the default) that names no
 * volume is one no provisioner serves: the binder gives it a volume of no
 * class that satisfies it and is reserved for no other claim, and matches its
 * selector, or nothing, and it stays Pending. A StatefulSet's claim template is
 * such a claim for each of its pods (a chart's, Loki's, that names no class
 * takes the default: a default annotation misspelt leaves it none).
 */
import { dig, list } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { quantityValue } from '../../model/go/quantity.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import { namespaceOrDestination } from '../../model/cluster/references.ts';
import { FACTS_FIX } from './closing.ts';
import { nfsOptionRefusal } from './nfs-mount-options.ts';
import { DEFAULT_CLASS_ANNOTATIONS, defaultStorageClassName } from '../../model/cluster/providers.ts';
import { claimSpecs, type ClaimSpec } from '../../model/storage/claims.ts';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The class the binder matches a claim by: its own, else the default one admission gives a claim that names none; "" is none. */
function claimClass(claim: Pick<ClaimSpec, 'spec'>, defaultClass: string | undefined): string {
  const asked = dig(claim.spec, ['storageClassName']);
  return typeof asked === 'string' ? asked : (defaultClass ?? '');
}

/** A claim (or a StatefulSet's claim template) of no class and no volume name, which only a volume of the repository that satisfies it would bind. */
function unmatched(ctx: CheckContext, claim: ClaimSpec, volumes: readonly Resource[], defaultClass: string | undefined): void {
  const namespace = namespaceOrDestination(ctx.repo, claim.resource) ?? '';
  const selector = dig(claim.spec, ['selector']) as Record<string, unknown> | undefined;
  const fits = volumes.filter(
    (pv) => !mismatch(claim, namespace, pv, defaultClass) && selectorMatches(selector, dig(pv.object, ['metadata', 'labels']) as Record<string, unknown>),
  );
  if (fits.length > 0) return;
  const written = typeof dig(claim.spec, ['storageClassName']) === 'string';
  const asked = written ? 'asks for no class (storageClassName "")' : `names no class, and no StorageClass is the default${notQuiteDefault(ctx.resources)}`;
  const what = claim.template !== undefined ? `StatefulSet ${claim.resource.name}'s claim template ${claim.template}` : `PersistentVolumeClaim ${claim.name}`;
  ctx.fail(
    { resource: claim.resource, path: written ? [...claim.at, 'storageClassName'] : claim.at },
    `${what} ${asked} and no volume (spec.volumeName): no provisioner serves it, and no PersistentVolume of the repository without a class is free for it and satisfies it, so the binder leaves it Pending${claim.template !== undefined ? ', and each pod of the StatefulSet with it' : ''}`,
  );
}

/** What a finding adds where a StorageClass's default annotation holds another text than "true", which alone makes a class the default. */
function notQuiteDefault(resources: readonly Resource[]): string {
  const near = resources.find(
    (r) => r.kind === 'StorageClass' && DEFAULT_CLASS_ANNOTATIONS.some((a) => typeof dig(r.object, ['metadata', 'annotations', a]) === 'string'),
  );
  const text = near && DEFAULT_CLASS_ANNOTATIONS.map((a) => dig(near.object, ['metadata', 'annotations', a])).find((v) => typeof v === 'string');
  return near ? ` (StorageClass ${near.name}'s default annotation is ${JSON.stringify(text)}: admission reads "true" alone)` : '';
}

/** Why `pv` cannot bind the claim, or undefined when it can. */
function mismatch(claim: Pick<ClaimSpec, 'spec' | 'name'>, claimNamespace: string, pv: Resource, defaultClass: string | undefined): string | undefined {
  const ref = dig(pv.object, ['spec', 'claimRef']) as { namespace?: string; name?: string } | undefined;
  if (ref && (ref.name !== claim.name || (ref.namespace ?? '') !== claimNamespace))
    return `it is reserved for claim ${ref.namespace ?? ''}/${ref.name ?? ''} (claimRef)`;
  // A claim that names no class gets the default one from admission (DefaultStorageClass); "" asks for none.
  const asked = dig(claim.spec, ['storageClassName']);
  const wanted = claimClass(claim, defaultClass);
  const volumeClass = (dig(pv.object, ['spec', 'storageClassName']) as string | undefined) ?? '';
  if (wanted !== volumeClass)
    return `its class is ${JSON.stringify(volumeClass)} and the claim's is ${JSON.stringify(wanted)}${typeof asked === 'string' ? '' : ' (the default class, which admission gives a claim that names none)'}`;
  const modes = strings(dig(pv.object, ['spec', 'accessModes']));
  const missing = strings(dig(claim.spec, ['accessModes'])).filter((m) => !modes.includes(m));
  if (missing.length) return `it does not offer ${missing.join(', ')} (it offers ${modes.join(', ') || 'none'})`;
  const volumeMode = (v: unknown) => (dig(v, ['volumeMode']) as string | undefined) ?? 'Filesystem';
  if (volumeMode(dig(pv.object, ['spec'])) !== volumeMode(claim.spec))
    return `its volumeMode is ${volumeMode(dig(pv.object, ['spec']))} and the claim's is ${volumeMode(claim.spec)}`;
  const request = dig(claim.spec, ['resources', 'requests', 'storage']);
  const capacity = dig(pv.object, ['spec', 'capacity', 'storage']);
  const [asks, has] = [quantityValue(request), quantityValue(capacity)];
  if (asks !== undefined && has !== undefined && has < asks) return `its capacity ${String(capacity)} is less than the ${String(request)} the claim requests`;
  return undefined;
}

export const volumeClosureCheck: PolicyCheck = {
  id: 'closure-volume',
  description:
    "Every PersistentVolumeClaim bound to a volume by name (spec.volumeName) can bind it: the PersistentVolume exists (in the repository or providedOutsideGit), is not reserved for another claim (claimRef), and has the claim's class (the default class when the claim names none), every access mode it asks for, its volume mode and at least the capacity it requests, and every mount option of an NFS volume is one mount.nfs and the kernel's NFS client take (an unknown one, or a value they cannot read, fails the kubelet's mount); and a claim of no class that names no volume (storageClassName \"\", or none where no class is the default: a StorageClass is the default by the annotation's text \"true\" alone), a StatefulSet's claim template too, finds a PersistentVolume of the repository without a class that is free for it, satisfies it and matches its selector, since no provisioner serves it; the binder leaves the claim Pending otherwise, and every pod that mounts it (invariants P1, M1).",
  invariants: ['P1', 'M1'],
  remediation: `make the PersistentVolume and its claim agree (claimRef, storageClassName, accessModes, volumeMode, capacity), or name the volume that exists, ${FACTS_FIX}`,
  reads: { kinds: ['PersistentVolumeClaim', 'StatefulSet', 'PersistentVolume', 'StorageClass'], renders: true },
  exemptible: false,
  run(ctx) {
    const volumes = new Map(ctx.resources.filter((r) => r.kind === 'PersistentVolume').map((r) => [r.name, r]));
    const outside = new Set((ctx.repo.facts?.providedOutsideGit ?? []).filter((e) => e.kind === 'PersistentVolume').map((e) => e.name));
    const defaultClass = defaultStorageClassName(ctx.resources);
    for (const spec of claimSpecs(ctx.resources)) {
      const name = dig(spec.spec, ['volumeName']);
      if (typeof name !== 'string' || name === '') {
        // Bound by match (findBestMatchForClaim): only a claim of no class, which no provisioner serves, waits on one.
        if (outside.size === 0 && claimClass(spec, defaultClass) === '') unmatched(ctx, spec, [...volumes.values()], defaultClass);
        continue;
      }
      // A template names no volume of its own: each pod's claim would bind the one volume (StatefulSets are not judged so).
      if (spec.template !== undefined) continue;
      const claim = spec.resource;
      if (outside.has(name)) continue;
      const where = { resource: claim, path: ['spec', 'volumeName'] };
      const pv = volumes.get(name);
      if (!pv) {
        ctx.fail(
          where,
          `PersistentVolumeClaim ${claim.name} binds to PersistentVolume ${name}, which nothing in the repository provides: the claim stays Pending`,
        );
        continue;
      }
      const why = mismatch(spec, namespaceOrDestination(ctx.repo, claim) ?? '', pv, defaultClass);
      if (why)
        ctx.fail(
          where,
          `PersistentVolumeClaim ${claim.name} binds to PersistentVolume ${name}, but ${why}: the binder never binds them, and the claim stays Pending`,
        );
    }
    for (const pv of volumes.values()) nfsMountRefusals(ctx, pv);
  },
};

/** Each mount option of an NFS volume the node's mount refuses (`nfsOptionRefusal`); none where `sloppy` is given. */
function nfsMountRefusals(ctx: CheckContext, pv: Resource): void {
  const options = list(dig(pv.object, ['spec', 'mountOptions']));
  if (dig(pv.object, ['spec', 'nfs']) === undefined || options.includes('sloppy')) return;
  options.forEach((option, i) => {
    const why = typeof option === 'string' ? nfsOptionRefusal(option) : undefined;
    if (why)
      ctx.fail(
        { resource: pv, path: ['spec', 'mountOptions', i] },
        `PersistentVolume ${pv.name}: ${why}; the kubelet's mount of it fails ("mount.nfs: an incorrect mount option was specified"), and every pod that mounts a claim bound to it never starts`,
        'write the option as nfs(5) does (nfsvers=4.1, hard, noatime, rsize=1048576), or remove it',
      );
  });
}
