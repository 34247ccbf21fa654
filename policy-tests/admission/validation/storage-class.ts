/**
 * A StorageClass as pkg/apis/storage/validation `ValidateStorageClass` judges it, after its defaults (reclaim policy
 * Delete, binding mode Immediate): a provisioner that is a qualified name, at most 512 parameters of 256 KiB in all,
 * a reclaim policy other than Recycle, and allowed topologies whose terms name each key once, with values, and
 * no term twice (`ValidateTopologySelectorTerm`).
 */
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import { labelKeyProblem } from './label-selector.ts';
import { notSupported, qualifiedName, tooLong, tooMany } from './syntax.ts';

type Obj = Record<string, any>;

const MAX_PARAMETERS = 512;
const MAX_PARAMETER_BYTES = 256 * 1024;
const FN = 'ValidateStorageClass';

function parameterProblems(params: unknown): Invalid[] {
  if (!params || typeof params !== 'object') return [];
  const entries = Object.entries(params as Obj);
  if (entries.length > MAX_PARAMETERS) return [{ path: ['parameters'], fn: FN, message: `parameters: ${tooMany(entries.length, MAX_PARAMETERS)}` }];
  const bytes = entries.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(typeof v === 'string' ? v : String(v)), 0);
  return bytes > MAX_PARAMETER_BYTES ? [{ path: ['parameters'], fn: FN, message: `parameters: ${tooLong(MAX_PARAMETER_BYTES)}` }] : [];
}

/** validateAllowedTopologies: each term's keys once, each with values (none twice), and no two terms alike. */
function topologyProblems(terms: unknown[]): Invalid[] {
  const out: Invalid[] = [];
  const seen: string[] = [];
  (terms as Obj[]).forEach((term, i) => {
    const keys = new Map<string, string[]>();
    (list(term?.matchLabelExpressions) as Obj[]).forEach((req, j) => {
      const at: PathSegment[] = ['allowedTopologies', i, 'matchLabelExpressions', j];
      const values = list(req?.values).map(String);
      if (values.length === 0) out.push({ path: [...at, 'values'], fn: 'ValidateTopologySelectorTerm', message: 'values: Required value' });
      values.forEach((v, k) => {
        if (values.indexOf(v) !== k) out.push({ path: [...at, 'values', k], fn: 'ValidateTopologySelectorTerm', message: `values: Duplicate value: "${v}"` });
      });
      out.push(...labelKeyProblem(req?.key, [...at, 'key'], 'ValidateTopologySelectorTerm', 'topology key'));
      if (keys.has(String(req?.key)))
        out.push({ path: [...at, 'key'], fn: 'ValidateTopologySelectorTerm', message: `key: Duplicate value: "${String(req?.key)}"` });
      keys.set(String(req?.key), [...new Set(values)].sort());
    });
    const canonical = JSON.stringify([...keys].sort(([a], [b]) => a.localeCompare(b)));
    if (seen.includes(canonical))
      out.push({ path: ['allowedTopologies', i, 'matchLabelExpressions'], fn: 'validateAllowedTopologies', message: 'matchLabelExpressions: Duplicate value' });
    seen.push(canonical);
  });
  return out;
}

export function storageClassProblems(o: Obj): Invalid[] {
  const out: Invalid[] = [];
  const provisioner = o.provisioner;
  if (typeof provisioner !== 'string' || provisioner === '') out.push({ path: ['provisioner'], fn: FN, message: 'provisioner is required' });
  else {
    const bad = qualifiedName(provisioner.toLowerCase());
    if (bad) out.push({ path: ['provisioner'], fn: FN, message: `provisioner "${provisioner}": ${bad}` });
  }
  out.push(...parameterProblems(o.parameters));
  // The schema's enums admit Recycle, which a class may not carry; the binding mode's are the API's own.
  if (o.reclaimPolicy === 'Recycle')
    out.push({
      path: ['reclaimPolicy'],
      fn: 'validateReclaimPolicy',
      message: `reclaimPolicy: ${notSupported('Recycle', ['Delete', 'Retain'])}`,
    });
  return [...out, ...topologyProblems(list(o.allowedTopologies))];
}
