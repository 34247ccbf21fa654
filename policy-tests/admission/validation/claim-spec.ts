/**
 * A PersistentVolumeClaim's spec as the API server validates it (ValidatePersistentVolumeClaimSpec): for a claim, and
 * since Kubernetes 1.34 for each claim template of a StatefulSet (kubernetes#132212), which before was taken as written
 * and refused only when the StatefulSet controller created the claim.
 */
import { obj } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { quantityValue } from '../../model/go/quantity.ts';
import type { Invalid } from './metadata.ts';
import { dns1123Subdomain } from './syntax.ts';

type Obj = Record<string, any>;

/**
 * validateDataSource and validateDataSourceRef: an object of the core group is a claim, another group a DNS
 * subdomain; both given, they name one object (`dataSourceRef.namespace` is CrossNamespaceVolumeDataSource's, alpha
 * and off: dropped). The schema requires their kind and name.
 */
function dataSourceProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'ValidatePersistentVolumeClaimSpec';
  const out: Invalid[] = [];
  for (const field of ['dataSource', 'dataSourceRef']) {
    const ref = spec[field];
    if (!ref || typeof ref !== 'object') continue;
    const group = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
    if (group === '' && ref.kind !== 'PersistentVolumeClaim')
      out.push({
        path: [...at, field],
        fn,
        message: `${field} kind "${String(ref.kind)}": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
      });
    const bad = group === '' ? undefined : dns1123Subdomain(group);
    if (bad) out.push({ path: [...at, field, 'apiGroup'], fn, message: `${field} apiGroup "${group}": ${bad}` });
  }
  const { dataSource: a, dataSourceRef: b } = spec;
  if (a && b && typeof a === 'object' && typeof b === 'object' && ((a.apiGroup ?? '') !== (b.apiGroup ?? '') || a.kind !== b.kind || a.name !== b.name))
    out.push({ path: [...at, 'dataSource'], fn, message: 'dataSource: must match dataSourceRef' });
  return out;
}

/** ValidatePersistentVolumeClaimSpec: what a claim's spec must hold, a StatefulSet's claim templates' too. */
export function claimSpecProblems(written: Obj | undefined, at: PathSegment[]): Invalid[] {
  // Left out or null, the spec is what Go decodes then, an empty one, which validation refuses as any other.
  const spec: Obj = obj(written);
  const out: Invalid[] = [];
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0)
    out.push({ path: [...at, 'accessModes'], fn: 'ValidatePersistentVolumeClaimSpec', message: 'at least 1 access mode is required' });
  else if (spec.accessModes.includes('ReadWriteOncePod') && spec.accessModes.some((m: unknown) => m !== 'ReadWriteOncePod'))
    out.push({ path: [...at, 'accessModes'], fn: 'ValidatePersistentVolumeClaimSpec', message: 'may not use ReadWriteOncePod with other access modes' });
  for (const field of ['storageClassName', 'volumeAttributesClassName']) {
    const bad = typeof spec[field] === 'string' && spec[field] !== '' ? dns1123Subdomain(spec[field]) : undefined;
    if (bad) out.push({ path: [...at, field], fn: 'ValidatePersistentVolumeClaimSpec (ValidateClassName)', message: `${field} "${spec[field]}": ${bad}` });
  }
  out.push(...dataSourceProblems(spec, at));
  const storage = spec.resources?.requests?.storage;
  const value = quantityValue(storage);
  if (storage === undefined)
    out.push({ path: [...at, 'resources'], fn: 'ValidatePersistentVolumeClaimSpec', message: 'resources.requests.storage is required' });
  else if (value === undefined || value <= 0)
    out.push({
      path: [...at, 'resources', 'requests', 'storage'],
      fn: 'ValidatePersistentVolumeClaimSpec',
      message: `storage request "${String(storage)}" must be a quantity greater than zero`,
    });
  return out;
}
