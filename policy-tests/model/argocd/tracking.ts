/**
 * Argo CD's tracking annotation, set on every object a source generates
 * before anything is applied (reposerver/repository/repository.go, then
 * util/argo/resource_tracking.go SetAppInstance and util/kube/kube.go): it
 * reads `metadata.annotations` as a map of strings (apimachinery's
 * NestedStringMap), and on anything else it fails the whole source, every
 * object of it unapplied: "failed to set app instance tracking info on
 * manifest". This repository tracks by annotation (argocd-cm's
 * application.resourceTrackingMethod, also Argo CD 3's default), which reads
 * the annotations alone; a label that is not a string is left to the API
 * server's validation.
 */
/** How Go prints a decoded JSON value with %v, and its type with %T. */
function goValue(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object')
    return `map[${Object.keys(v as object)
      .sort()
      .map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`)
      .join(' ')}]`;
  return String(v as string | number | boolean);
}

function goType(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** schema.GroupVersionKind's String(): "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap" for the core group. */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? `/${apiVersion}, Kind=${kind}` : `${apiVersion}, Kind=${kind}`;
}

/** Argo CD's words when it cannot set its tracking annotation on this object, or undefined when it can. */
export function trackingRefusal(object: Record<string, unknown>): string | undefined {
  const metadata = object.metadata;
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined;
  const annotations = (metadata as Record<string, unknown>).annotations;
  if (annotations === undefined || annotations === null) return undefined;
  let problem: string | undefined;
  if (typeof annotations !== 'object' || Array.isArray(annotations))
    problem = `${goValue(annotations)} is of the type ${goType(annotations)}, expected map[string]interface{}`;
  else {
    const bad = Object.entries(annotations).find(([, v]) => typeof v !== 'string');
    if (bad)
      problem = `contains non-string value in the map under key ${JSON.stringify(bad[0])}: ${goValue(bad[1])} is of the type ${goType(bad[1])}, expected string`;
  }
  if (!problem) return undefined;
  const m = metadata as Record<string, unknown>;
  const namespace = typeof m.namespace === 'string' ? m.namespace : '';
  const name = typeof m.name === 'string' ? m.name : '';
  return `failed to set app instance tracking info on manifest: failed to get annotations for ${gvkString(String(object.apiVersion), String(object.kind))} ${namespace}/${name}: .metadata.annotations accessor error: ${problem}`;
}
