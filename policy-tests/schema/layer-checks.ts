/** The ids the loader and schema layer report, listed beside the policy checks so every id is documented. */
export interface LayerCheck {
  id: string;
  layer: 'loader' | 'schema';
  description: string;
}

export const LAYER_CHECKS: readonly LayerCheck[] = [
  { id: 'yaml-syntax', layer: 'loader', description: 'The file parses as YAML or JSON.' },
  {
    id: 'file-type',
    layer: 'loader',
    description:
      'Every manifest is a regular file inside the repository: no dangling, looping or out-of-repository symlink (Argo CD refuses those), no FIFO or device.',
  },
  { id: 'encoding', layer: 'loader', description: 'The file is UTF-8 with no NUL byte.' },
  { id: 'json-strict', layer: 'loader', description: 'A .json file is strict JSON, one value, no trailing comma or comment: Argo CD parses it as JSON.' },
  { id: 'nesting-depth', layer: 'loader', description: 'No document nests deeper than the parser can take.' },
  {
    id: 'yaml-1.1-scalar',
    layer: 'loader',
    description:
      'No plain scalar that Helm and Kubernetes (YAML 1.1, go-yaml v2) read differently from YAML 1.2: yes, no, on, off, y, n, an octal such as 0755, a number with underscores (1_000), a binary (0b101) or a signed hex (-0x1F), in manifests and Helm values.',
  },
  { id: 'duplicate-key', layer: 'loader', description: 'No mapping repeats a key (the last one would silently win).' },
  { id: 'manifest-shape', layer: 'loader', description: 'Every non-blank document is an object with a non-empty apiVersion and kind.' },
  {
    id: 'argocd-tracking',
    layer: 'loader',
    description:
      'Argo CD can set its tracking annotation on every object: metadata.annotations, when present, is a map of strings (else Argo CD fails the whole source, in its words).',
  },
  { id: 'schema', layer: 'schema', description: 'The resource matches the schema of its apiVersion/kind: types, required fields, enums.' },
  { id: 'unknown-field', layer: 'schema', description: 'Strict mode: no field the schema does not define (a typo such as capabilites fails).' },
  { id: 'missing-schema', layer: 'schema', description: 'Every kind has a schema, or an allowlist entry that says why not.' },
  { id: 'removed-api', layer: 'schema', description: 'No apiVersion the pinned Kubernetes version no longer serves.' },
  { id: 'object-size', layer: 'schema', description: 'A ConfigMap or Secret holds at most 1 MiB of data, the limit the API server enforces.' },
  {
    id: 'cron-schedule',
    layer: 'schema',
    description:
      "A CronJob's schedule and time zone are ones the API server accepts: robfig/cron v3.0.1's standard parser (five fields or a descriptor, @every a Go duration), no TZ in the schedule, a time zone Go's LoadLocation finds; and a schedule that names a day its months have, without which the job never runs.",
  },
  { id: 'rejected-kind', layer: 'schema', description: 'No kind listed in --reject.' },
];
