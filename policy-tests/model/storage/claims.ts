/**
 * The claims the cluster will hold: each PersistentVolumeClaim, and each claim template of a StatefulSet, which its
 * controller makes one claim of for each pod (`<template>-<statefulset>-<ordinal>`) and a provisioner or the binder then
 * serves alike. Read once for the checks that follow a claim to its class or volume.
 */
import { dig, objects, str } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';

export interface ClaimSpec {
  /** The object that writes it: the claim, or the StatefulSet. */
  resource: Resource;
  /** Where its spec is, in that object. */
  at: Path;
  spec: unknown;
  /** Its name as a finding says it: the claim's, or the template's with the StatefulSet's. */
  name: string;
  /** The claim template's own name, where a StatefulSet's template makes it. */
  template?: string;
}

export const claimSpecs = (resources: readonly Resource[]): ClaimSpec[] =>
  resources.flatMap((r): ClaimSpec[] =>
    r.kind === 'PersistentVolumeClaim'
      ? [{ resource: r, at: ['spec'], spec: dig(r.object, ['spec']), name: r.name }]
      : r.kind === 'StatefulSet'
        ? objects(dig(r.object, ['spec', 'volumeClaimTemplates'])).map((t, i) => {
            const template = str(dig(t, ['metadata', 'name']));
            return { resource: r, at: ['spec', 'volumeClaimTemplates', i, 'spec'], spec: t.spec, name: `${template}-${r.name}`, template };
          })
        : [],
  );
