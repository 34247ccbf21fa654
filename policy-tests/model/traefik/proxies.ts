/**
 * The Traefiks the repository runs, by the Ingress class each serves (`providers.kubernetesIngress.ingressClass` of
 * its chart values; undefined for one that serves every class), and whether each reads Traefik's own CRDs
 * (`providers.kubernetesCRD.enabled`, on by the chart's default). Read once here for every check that follows an
 * Ingress to the proxy that serves it.
 */
import { chartValues, type ChartValues } from '../helm/chart-values.ts';
import { dig } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';

export interface TraefikProxy extends ChartValues {
  /** Whether its Kubernetes CRD provider is on: the Middlewares an Ingress names are read through it. */
  crd: boolean;
}

export function traefikProxiesByClass(repo: Repo): Map<string | undefined, TraefikProxy> {
  return new Map(
    chartValues(repo, 'traefik').map((v) => [
      dig(v.values, ['providers', 'kubernetesIngress', 'ingressClass']) as string | undefined,
      { ...v, crd: dig(v.values, ['providers', 'kubernetesCRD', 'enabled']) !== false },
    ]),
  );
}

/** The Traefik that serves `ingress`'s class, if the repository runs one. */
export function traefikServing(proxies: ReadonlyMap<string | undefined, TraefikProxy>, ingress: Resource): TraefikProxy | undefined {
  return proxies.get(dig(ingress.object, ['spec', 'ingressClassName']) as string | undefined);
}
