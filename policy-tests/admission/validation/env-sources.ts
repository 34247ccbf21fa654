/**
 * Where a container's variables come from, as the API server judges it (pkg/apis/core/validation): the object an
 * env var's configMapKeyRef or secretKeyRef names and its key, and the one ConfigMap or Secret each envFrom entry
 * names. An empty name is refused though the schema leaves it optional, so a manifest that drops it is red here.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import { configMapKey, dns1123Subdomain, maskTrailingDash } from './syntax.ts';

type Obj = Record<string, unknown>;

/**
 * validateConfigMapKeySelector and validateSecretKeySelector: the object's name a DNS subdomain, an empty or absent
 * one refused too (the field is optional in the schema, "effectively required" in its own words), and its key a
 * config key.
 */
export function keySelectorProblems(selector: Obj, path: PathSegment[], who: string, fn: string): Invalid[] {
  const out: Invalid[] = [];
  // A name of another type is the schema layer's finding.
  const name = selector.name ?? '';
  const badName = typeof name === 'string' ? dns1123Subdomain(name) : undefined;
  if (badName) out.push({ path: [...path, 'name'], fn, message: `${who}: ${String(path.at(-1))}.name ${JSON.stringify(name)}: ${badName}` });
  const key = selector.key;
  if (key === undefined || key === '') out.push({ path: [...path, 'key'], fn, message: `${who}: ${String(path.at(-1))}.key: Required value` });
  else if (typeof key === 'string') {
    const badKey = configMapKey(key);
    if (badKey) out.push({ path: [...path, 'key'], fn, message: `${who}: ${String(path.at(-1))}.key "${key}": ${badKey}` });
  }
  return out;
}

/** validateConfigMapEnvSource and validateSecretEnvSource: one source, named (a trailing dash allowed: a prefix). */
export function envFromSourceProblems(e: Obj, path: PathSegment[], who: string): Invalid[] {
  const sources = ['configMapRef', 'secretRef'].filter((s) => e[s] !== undefined && e[s] !== null);
  if (sources.length === 0) return [{ path, fn: 'ValidateEnvFrom', message: `${who}: envFrom: must specify one of: \`configMapRef\` or \`secretRef\`` }];
  if (sources.length > 1) return [{ path, fn: 'ValidateEnvFrom', message: `${who}: envFrom: may not have more than one field specified at a time` }];
  const source = sources[0]!;
  const name = (e[source] as Obj | undefined)?.name ?? '';
  const fn = source === 'configMapRef' ? 'validateConfigMapEnvSource' : 'validateSecretEnvSource';
  if (name === '') return [{ path: [...path, source, 'name'], fn, message: `${who}: envFrom ${source}.name: Required value` }];
  const bad = typeof name === 'string' ? dns1123Subdomain(maskTrailingDash(name)) : undefined;
  return bad ? [{ path: [...path, source, 'name'], fn, message: `${who}: envFrom ${source}.name ${JSON.stringify(name)}: ${bad}` }] : [];
}
