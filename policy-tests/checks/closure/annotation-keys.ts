/**
 * closure-annotation-keys: every annotation and label key in the domain of a controller the cluster runs is one that
 * controller reads, and no key's domain is a slip of one of theirs. Each reads its keys by their exact text and
 * ignores any other without a word: a misspelt `argocd.argoproj.io/sync-wave` syncs the object in wave 0, a misspelt
 * sync-options key drops every option it held, a misspelt hook key applies a hook's Job as an ordinary object at
 * every sync; a misspelt `metallb.io/loadBalancerIPs` gives the public proxy any address of the pool, not the one the
 * router forwards to. The keys are read from each controller's source at the version the repository runs: Argo CD
 * v3.5.1 (common/common.go, gitops-engine's sync/common and sync/hook, the controller's and the ApplicationSet
 * controller's: annotations on the objects it syncs and on Applications, labels on its own Secrets and the tracking
 * label), MetalLB v0.16.1 (its Service annotations, under metallb.io and the older metallb.universe.tf), and the API
 * server's Pod Security admission (a namespace's labels: a misspelt `enforce` leaves the namespace at the cluster's
 * default level, and nothing says so). A domain one slip from Traefik's is said here too; the keys of Traefik's own
 * domain are closure-traefik-annotations'. The gate's own keys too: a misspelt `upgrades-one-minor-at-a-time` is a
 * rule the gate never applies.
 */
import { distance } from 'fastest-levenshtein';
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';
import { dig } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { TRAEFIK_ANNOTATION_PREFIX, traefikAnnotationKeys } from '../../model/traefik/annotations.ts';

type Place = 'annotation' | 'label';

/** A controller's domain, and the names under it it reads as annotations and as labels. */
interface Domain {
  reader: string;
  annotation: ReadonlySet<string>;
  label: ReadonlySet<string>;
  /** The check that judges the domain's own annotations, where their reading is more than a name (Traefik's). */
  annotationsJudgedBy?: string;
}

const words = (...lines: string[]): ReadonlySet<string> => new Set(lines.join(' ').split(' '));

const ARGOCD: Domain = {
  reader: 'Argo CD v3.5.1',
  annotation: words(
    'sync-wave sync-options compare-options hook hook-delete-policy hook-finalizer tracking-id installation-id',
    'client-side-apply-migration-manager ignore-healthcheck ignore-default-links ignore-resource-updates',
    'manifest-generate-paths skip-reconcile refresh hydrate managed-by-url deletion-approved application-set-refresh',
  ),
  label: words('secret-type kubernetes-version auto-label-cluster-info instance'),
};

const METALLB: Domain = {
  reader: 'MetalLB v0.16.1',
  annotation: words('address-pool loadBalancerIPs allow-shared-ip ip-allocated-from-pool'),
  label: new Set(),
};

/** The API server's Pod Security admission: a namespace's level and version per mode (pod-security-admission/api). */
const POD_SECURITY: Domain = {
  reader: 'Pod Security admission',
  annotation: new Set(),
  label: words('enforce enforce-version audit audit-version warn warn-version'),
};

/** Traefik's Ingress provider: its router and service fields, each judged where it stands by closure-traefik-annotations. */
const TRAEFIK: Domain = {
  reader: 'Traefik v3.7',
  annotation: new Set([...traefikAnnotationKeys('router'), ...traefikAnnotationKeys('service')]),
  label: new Set(),
  annotationsJudgedBy: 'closure-traefik-annotations',
};

/**
 * kustomize v5.8.1 (in the kubectl v1.36 the render runs), at build: `local-config` drops the object from the build,
 * `needs-hash` and `behavior` steer a generated object; the others are its records of where an object came from.
 */
const KUSTOMIZE: Domain = {
  reader: 'kustomize v5.8.1',
  annotation: words('local-config index path function origin'),
  label: new Set(),
};
const KUSTOMIZE_OWN: Domain = { reader: 'kustomize v5.8.1', annotation: words('needs-hash behavior id'), label: new Set() };

/** The gate's own annotations, each read where its rule stands; `exempt-<check>` is the exemption step's to judge. */
export const GATE_DOMAIN = 'gate.homelab-gitops';
const GATE: Domain = {
  reader: 'the gate',
  annotation: words(
    'provides-crds provides-crds-at-runtime requires-crds requires-load-balancer creates-at-runtime upgrades-one-minor-at-a-time',
    'privileges advertises-resources device-group device-shares-flag external-peers pod-security-reason',
  ),
  label: new Set(),
};

/** Each domain a controller of the cluster reads keys under. */
const DOMAINS: ReadonlyMap<string, Domain> = new Map([
  ['argocd.argoproj.io', ARGOCD],
  ['metallb.io', METALLB],
  ['metallb.universe.tf', METALLB],
  ['pod-security.kubernetes.io', POD_SECURITY],
  [TRAEFIK_ANNOTATION_PREFIX.slice(0, -1), TRAEFIK],
  ['config.kubernetes.io', KUSTOMIZE],
  ['kustomize.config.k8s.io', KUSTOMIZE_OWN],
  [GATE_DOMAIN, GATE],
]);

const OTHER: Record<Place, Place> = { annotation: 'label', label: 'annotation' };

/** ` (did you mean "<domain>/<name>"?)` for the name of its place in `domain` nearest `name`, or nothing. */
function meant(domain: string, name: string, place: Place): string {
  const known = DOMAINS.get(domain)![place];
  const near = known.has(name) ? name : nearestName(name, known);
  return suggesting(near === undefined ? undefined : `${domain}/${near}`);
}

/** The controller domain one or two edits from `domain` (not itself), if there is one. */
function slipOf(domain: string): { domain: string; edits: number } | undefined {
  let best: { domain: string; edits: number } | undefined;
  for (const known of DOMAINS.keys()) {
    const edits = distance(domain.toLowerCase(), known);
    if (edits > 0 && edits <= 2 && (best === undefined || edits < best.edits)) best = { domain: known, edits };
  }
  return best;
}

/** Why the controller of a key's domain ignores it, where it does: a name it does not read there, or a slipped domain. */
function ignoredBecause(key: string, place: Place): string | undefined {
  const slash = key.indexOf('/');
  if (slash === -1) return undefined;
  const [domain, name] = [key.slice(0, slash), key.slice(slash + 1)];
  const own = DOMAINS.get(domain);
  if (domain === GATE_DOMAIN && name.startsWith('exempt-')) return undefined;
  if (own) {
    if (own[place].has(name) || (place === 'annotation' && own.annotationsJudgedBy)) return undefined;
    if (own[OTHER[place]].has(name))
      return `${place} ${JSON.stringify(key)} is one ${own.reader} reads as an ${OTHER[place]}, never as a ${place}; it ignores it`;
    return `${place} ${JSON.stringify(key)} is no ${place} ${own.reader} reads${meant(domain, name, place)}; it ignores it`;
  }
  const slip = DOMAINS.has(domain.toLowerCase()) ? { domain: domain.toLowerCase(), edits: 0 } : slipOf(domain);
  if (slip === undefined) return undefined;
  const reader = DOMAINS.get(slip.domain)!.reader;
  return `${place} ${JSON.stringify(key)} is in no domain ${reader} reads, ${slip.edits === 0 ? 'its case apart' : `${slip.edits} edit(s)`} from ${slip.domain}${meant(slip.domain, name, place)}; it ignores it`;
}

export const annotationKeysCheck: PolicyCheck = {
  id: 'closure-annotation-keys',
  description:
    "Every annotation and label key in the domain of a controller the cluster runs is one that controller reads (Argo CD v3.5.1's argocd.argoproj.io/: sync-wave, sync-options, compare-options, hook, ...; a label: secret-type and the cluster's; MetalLB v0.16.1's metallb.io/ and metallb.universe.tf/: loadBalancerIPs, address-pool, allow-shared-ip; Pod Security's namespace labels pod-security.kubernetes.io/enforce, audit, warn and their -version; kustomize v5.8.1's config.kubernetes.io/local-config and its records, kustomize.config.k8s.io/needs-hash and behavior; the gate's own gate.homelab-gitops/ declarations, whose rules it applies only under their names), and no key's domain is one or two edits from one of theirs (or from Traefik's traefik.ingress.kubernetes.io/, whose keys closure-traefik-annotations reads): each reads its keys by their exact text and ignores any other without a word, so an object syncs in wave 0, with none of its options, a hook as an ordinary object, a Service takes any address of the pool, a namespace keeps the cluster's default Pod Security level, or a record meant for kustomize's build alone is applied (invariants P1).",
  invariants: ['P1'],
  remediation:
    'spell the key as its controller does (argocd.argoproj.io/sync-wave, argocd.argoproj.io/sync-options, metallb.io/loadBalancerIPs, ...), or remove it',
  reads: { kinds: ['*'], everyKind: 'Argo CD reads its annotations on every object it syncs, whatever its kind' },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources)
      for (const [field, place] of [
        ['annotations', 'annotation'],
        ['labels', 'label'],
      ] as const) {
        const keys = dig(r.object, ['metadata', field]);
        if (keys === null || typeof keys !== 'object' || Array.isArray(keys)) continue;
        for (const key of Object.keys(keys)) {
          const problem = ignoredBecause(key, place);
          if (problem) ctx.fail({ resource: r, path: ['metadata', field, key] }, `${r.kind} ${r.name}: ${problem} without a word`);
        }
      }
  },
};
