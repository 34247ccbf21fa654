/** Gathers the observations from the Kubernetes API and writes the status ConfigMap atomically. */
import type { InfraStatus } from '../infra/status.ts';
import { parseStatus } from '../infra/status-file.ts';
import { composeStatus, type Observations } from './compose.ts';
import { KubeError, type KubeClient } from './kube.ts';

export const STATUS_KEY = 'status.json';

export interface WriterTarget {
  namespace: string;
  configMap: string;
  argoNamespace: string;
  argoApp: string;
  certificate: string;
  deployment: string;
  container: string;
}

export const DEFAULT_TARGET: WriterTarget = {
  namespace: 'portfolio',
  configMap: 'portfolio-infra-status',
  argoNamespace: 'argocd',
  argoApp: 'portfolio-api',
  certificate: 'portfolio-tls',
  deployment: 'portfolio-api',
  container: 'api',
};

/**
 * What the CronJob's environment overrides of the target (STATUS_NAMESPACE, STATUS_CONFIGMAP, ARGO_APP, CERTIFICATE;
 * an empty one is unset). The image's facts (portfolio-api/deploy/facts/images.yaml) name the requests by these.
 */
export function targetFromEnv(env: Readonly<Record<string, string | undefined>>): WriterTarget {
  return {
    ...DEFAULT_TARGET,
    ...(env.STATUS_NAMESPACE ? { namespace: env.STATUS_NAMESPACE } : {}),
    ...(env.STATUS_CONFIGMAP ? { configMap: env.STATUS_CONFIGMAP } : {}),
    ...(env.ARGO_APP ? { argoApp: env.ARGO_APP } : {}),
    ...(env.CERTIFICATE ? { certificate: env.CERTIFICATE } : {}),
  };
}

interface NodeList {
  items: { status?: { conditions?: { type: string; status: string }[]; nodeInfo?: { osImage?: string } } }[];
}
interface ConfigMap {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  data?: Record<string, string>;
}

async function orUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof KubeError && err.status === 404) return undefined;
    throw err;
  }
}

export async function observe(kube: KubeClient, t: WriterTarget, now: Date): Promise<Observations> {
  const [version, nodes, app, cert, deployment] = await Promise.all([
    kube.request<{ gitVersion: string }>('GET', '/version'),
    kube.request<NodeList>('GET', '/api/v1/nodes'),
    orUndefined(
      kube.request<{ status?: { sync?: { status?: string }; health?: { status?: string } } }>(
        'GET',
        `/apis/argoproj.io/v1alpha1/namespaces/${t.argoNamespace}/applications/${t.argoApp}`,
      ),
    ),
    kube.request<{ status?: { notAfter?: string } }>('GET', `/apis/cert-manager.io/v1/namespaces/${t.namespace}/certificates/${t.certificate}`),
    kube.request<{ spec: { template: { spec: { containers: { name: string; image: string }[] } } } }>(
      'GET',
      `/apis/apps/v1/namespaces/${t.namespace}/deployments/${t.deployment}`,
    ),
  ]);
  const ready = nodes.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  const talos = /Talos \((v[^)]+)\)/.exec(nodes.items[0]?.status?.nodeInfo?.osImage ?? '')?.[1] ?? 'unknown';
  const notAfter = cert.status?.notAfter;
  if (!notAfter || Number.isNaN(Date.parse(notAfter))) throw new Error(`certificate ${t.certificate} has no status.notAfter yet; not writing a partial status`);
  const image = deployment.spec.template.spec.containers.find((c) => c.name === t.container)?.image ?? '';
  return {
    now,
    build: image.slice(image.lastIndexOf('/') + 1) || 'unknown',
    argocd: { sync: app?.status?.sync?.status ?? 'Unknown', health: app?.status?.health?.status ?? 'Unknown' },
    nodes: { ready, total: nodes.items.length },
    versions: { kubernetes: version.gitVersion, talos },
    certNotAfter: notAfter,
  };
}

/** Reads the previous status from the ConfigMap; a corrupt one restarts the history rather than blocking the writer. */
export function previousStatus(cm: ConfigMap | undefined, warn: (msg: string) => void): InfraStatus | undefined {
  const text = cm?.data?.[STATUS_KEY];
  if (!text) return undefined;
  try {
    return parseStatus(text);
  } catch (err) {
    warn(`previous status is invalid, starting a new history: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * One run: observe, compose, write. The ConfigMap is replaced as a whole with
 * its resourceVersion, so a concurrent writer makes this one retry instead of
 * interleaving; the kubelet then swaps the mounted file atomically.
 */
export async function writeStatus(kube: KubeClient, t: WriterTarget, now: Date, warn: (msg: string) => void = () => undefined): Promise<InfraStatus> {
  const observations = await observe(kube, t, now);
  const path = `/api/v1/namespaces/${t.namespace}/configmaps`;
  for (let attempt = 1; ; attempt++) {
    const current = await orUndefined(kube.request<ConfigMap>('GET', `${path}/${t.configMap}`));
    const status = composeStatus(observations, previousStatus(current, warn));
    const data = { [STATUS_KEY]: JSON.stringify(status) };
    try {
      if (current) await kube.request('PUT', `${path}/${t.configMap}`, { ...current, data });
      else await kube.request('POST', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: t.configMap, namespace: t.namespace }, data });
      return status;
    } catch (err) {
      if (err instanceof KubeError && err.status === 409 && attempt < 3) continue;
      throw err;
    }
  }
}
