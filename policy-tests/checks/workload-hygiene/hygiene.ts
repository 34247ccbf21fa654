/**
 * Workload hygiene on every Deployment, StatefulSet, DaemonSet, CronJob and
 * Job: what a home cluster needs so that a rebuild from main is predictable
 * and one misbehaving app cannot take the node or its neighbours with it.
 */
import { dig, list, objects } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import {
  containersOf,
  LONG_RUNNING_KINDS,
  podSpecOf,
  imageParts,
  runsAlongside,
  surgePods,
  workloadContainers,
  WORKLOAD_KINDS,
} from '../../model/core/workloads.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import type { DataFile } from '../../model/repository/repo.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { secretEntries } from '../../model/core/secrets.ts';

/** Port names that mark a container as an HTTP server (Kubernetes naming convention). */
const HTTP_PORT_NAME = /^(?:http|https)(?:-.*)?$/;

const workloadKinds = [...WORKLOAD_KINDS];

/** Names a values key carries a credential under. */
const CREDENTIAL_KEY = /pass(word)?|token|secret|webhook|api[_-]?key|credential|private[_-]?key/i;

/** A key an ExternalSecret's template writes a credential under: a values key's words, or a key by name (`tls.key`, `..._KEY`, an access key's ID). */
const TEMPLATE_CREDENTIAL_KEY = new RegExp(`${CREDENTIAL_KEY.source}|(?:^|[_.-])key$|access[_-]?key`, 'i');

/**
 * The keys an ExternalSecret's template writes as literal text under a credential's name: External Secrets renders a
 * value without a template action as it is written, so the credential is in git, the same in every fork, and the
 * secret store never holds it.
 */
function literalTemplateCredentials(resource: Resource): { key: string; path: Path }[] {
  const data = dig(resource.object, ['spec', 'target', 'template', 'data']);
  if (!data || typeof data !== 'object' || Array.isArray(data)) return [];
  return Object.entries(data as Record<string, unknown>).flatMap(([key, value]) =>
    typeof value === 'string' && value.trim() !== '' && !value.includes('{{') && TEMPLATE_CREDENTIAL_KEY.test(key)
      ? [{ key, path: ['spec', 'target', 'template', 'data', key] }]
      : [],
  );
}

/**
 * Keys of a rendered Secret whose value is a non-empty string that a values
 * file sets under a credential-like key: committed to git through the chart.
 */
function committedCredentials(resource: Resource, values: readonly DataFile[]): { key: string; path: Path }[] {
  const credentials = new Set<string>();
  const walk = (v: unknown, key: string): void => {
    if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
    else if (typeof v === 'string' && v !== '' && CREDENTIAL_KEY.test(key)) credentials.add(v);
  };
  for (const file of values) walk(file.data, '');
  const out: { key: string; path: Path }[] = [];
  for (const { field, key, value } of secretEntries(resource.object)) if (credentials.has(value)) out.push({ key, path: [field, key] });
  return out;
}

export const workloadChecks: PolicyCheck[] = [
  {
    id: 'workload-image-pinned',
    description: 'Every container image carries an explicit tag or digest, never latest, so main pins what runs (invariants P1).',
    invariants: ['P1'],
    remediation: 'pin the image to a released version tag (optionally with @sha256 digest)',
    reads: { kinds: workloadKinds },
    exemptible: false,
    run(ctx) {
      for (const { resource, c } of workloadContainers(ctx.resources)) {
        const image = typeof c.container.image === 'string' ? c.container.image : '';
        const { tag, digest } = imageParts(image);
        if (!image) ctx.fail({ resource: resource, path: [...c.at, 'name'] }, `container ${c.name} has no image`);
        else if (!digest && (!tag || tag === 'latest'))
          ctx.fail({ resource: resource, path: [...c.at, 'image'] }, `container ${c.name} image "${image}" is not pinned to a version`);
        else if (tag === 'latest') ctx.fail({ resource: resource, path: [...c.at, 'image'] }, `container ${c.name} image "${image}" uses the latest tag`);
      }
    },
  },
  {
    id: 'workload-memory',
    description: 'Every container sets memory requests and limits, so one leak cannot starve a node (foundation hygiene; P1).',
    invariants: ['P1'],
    remediation: 'set resources.requests.memory and resources.limits.memory',
    reads: { kinds: workloadKinds },
    exemptible: false,
    run(ctx) {
      for (const { resource, c } of workloadContainers(ctx.resources)) {
        for (const kind of ['requests', 'limits'] as const) {
          if (dig(c.container, ['resources', kind, 'memory']) === undefined)
            ctx.fail(
              { resource: resource, path: [...c.at, 'resources', kind] },
              `container ${c.name} has no memory ${kind === 'requests' ? 'request' : 'limit'}`,
            );
        }
      }
    },
  },
  {
    id: 'workload-probes',
    description: 'Long-running containers that serve HTTP (a port named http, https or http-*) have liveness and readiness probes (foundation hygiene; P1).',
    invariants: ['P1'],
    remediation: 'add livenessProbe and readinessProbe (httpGet on the health endpoint)',
    reads: { kinds: workloadKinds },
    exemptible: true,
    run(ctx) {
      for (const { resource, c } of workloadContainers(ctx.resources)) {
        // Init containers finish before the pod serves; native sidecars do not.
        if (!LONG_RUNNING_KINDS.has(resource.kind) || !runsAlongside(c)) continue;
        const ports = objects(c.container.ports);
        if (!ports.some((p) => typeof p.name === 'string' && HTTP_PORT_NAME.test(p.name))) continue;
        for (const probe of ['livenessProbe', 'readinessProbe'] as const) {
          if (c.container[probe] === undefined) ctx.fail({ resource: resource, path: [...c.at, 'name'] }, `HTTP container ${c.name} has no ${probe}`);
        }
      }
    },
  },
  {
    id: 'workload-privilege',
    description:
      'Containers set allowPrivilegeEscalation: false and run as non-root, unless an exemption next to the workload says why (foundation hygiene; S8 scoping of exemptions).',
    invariants: ['P1', 'S8'],
    remediation:
      'set securityContext.allowPrivilegeEscalation: false and runAsNonRoot: true, or annotate the workload with gate.homelab-gitops/exempt-workload-privilege: <reason>',
    reads: { kinds: workloadKinds },
    exemptible: true,
    run(ctx) {
      for (const { resource, pod, c } of workloadContainers(ctx.resources)) {
        const sc = dig(c.container, ['securityContext']) as Record<string, unknown> | undefined;
        const where = [...c.at, sc ? 'securityContext' : 'name'];
        if (sc?.allowPrivilegeEscalation !== false)
          ctx.fail({ resource: resource, path: where }, `container ${c.name} does not set allowPrivilegeEscalation: false`);
        // A container-level runAsNonRoot overrides the pod's, in both directions.
        if ((sc?.runAsNonRoot ?? dig(pod.spec, ['securityContext', 'runAsNonRoot'])) !== true)
          ctx.fail({ resource: resource, path: where }, `container ${c.name} may run as root (runAsNonRoot is not true)`);
      }
    },
  },
  {
    id: 'no-plain-secret',
    description:
      "No committed Secret carries data, no chart renders a credential set in a values file, and no ExternalSecret's template writes a credential as literal text; secrets come from the secret store through ExternalSecrets (foundation hygiene; A8 API keys from ExternalSecrets).",
    invariants: ['P1', 'A8'],
    remediation:
      "delete the Secret and declare an ExternalSecret that pulls it from the secret store (for a chart: its existingSecret key); in an ExternalSecret's template, write the credential as a template action over the store's value ({{ .key }})",
    reads: { kinds: ['Secret', 'ExternalSecret'], renders: true },
    exemptible: false,
    run(ctx) {
      for (const resource of ctx.resources) {
        if (resource.kind === 'ExternalSecret') {
          for (const { key, path } of literalTemplateCredentials(resource))
            ctx.fail(
              { resource, path },
              `ExternalSecret ${resource.name} writes ${key} as the literal text of its template: the credential is committed to git, and the secret store never holds it`,
            );
          continue;
        }
        if (resource.rendered) {
          // A chart's own Secret may hold its configuration; what must never be in git is a credential in the values.
          const values = ctx.renders.filter((r) => r.app.name === resource.rendered!.app).flatMap((r) => r.values);
          for (const { key, path } of committedCredentials(resource, values))
            ctx.fail({ resource, path }, `Secret ${resource.name} carries ${key}, a credential set in ${values.map((v) => v.file).join(', ')}`);
          continue;
        }
        for (const field of ['data', 'stringData'] as const) {
          const value = resource.object[field];
          if (value && typeof value === 'object' && Object.keys(value).length > 0)
            ctx.fail({ resource: resource, path: [field] }, `Secret ${resource.name} commits ${field} to git`);
        }
      }
    },
  },
  {
    id: 'workload-hostpath',
    description: 'No hostPath volumes, unless an exemption next to the workload says why (foundation hygiene; S8).',
    invariants: ['P1', 'S8'],
    remediation: 'use a PersistentVolumeClaim, or annotate the workload with gate.homelab-gitops/exempt-workload-hostpath: <reason>',
    reads: { kinds: workloadKinds },
    exemptible: true,
    run(ctx) {
      for (const resource of ctx.resources) {
        const pod = podSpecOf(resource);
        const volumes = pod ? objects(pod.spec.volumes) : [];
        volumes.forEach((v, i) => {
          if (v.hostPath !== undefined)
            ctx.fail({ resource: resource, path: [...pod!.at, 'volumes', i, 'hostPath'] }, `volume ${String(v.name)} mounts a hostPath`);
        });
      }
    },
  },
  {
    id: 'workload-rwo-rollout',
    description:
      'A Deployment whose pods mount a claim only one node can attach (every access mode ReadWriteOnce or ReadWriteOncePod) runs one replica and replaces its pod with Recreate (or a rolling update with maxSurge 0): in a surging rolling update the new pod waits for the volume the old one holds while the old one waits for the new one to be ready, and the rollout never ends once the new pod lands on another node (with ReadWriteOncePod, on any node) (foundation hygiene; P1).',
    invariants: ['P1'],
    remediation: 'set spec.strategy.type: Recreate and replicas: 1 on the Deployment, or give the claim ReadWriteMany',
    reads: { kinds: ['Deployment', 'PersistentVolumeClaim'], renders: true },
    exemptible: false,
    run(ctx) {
      const claims = new Map(
        ctx.resources
          .filter((r) => r.kind === 'PersistentVolumeClaim')
          .map((r) => [`${namespaceOrDestination(ctx.repo, r) ?? ''}/${r.name}`, list(dig(r.object, ['spec', 'accessModes'])) as unknown[]]),
      );
      const oneNode = (modes: unknown[] | undefined) => !!modes?.length && modes.every((m) => m === 'ReadWriteOnce' || m === 'ReadWriteOncePod');
      for (const deployment of ctx.resources.filter((r) => r.kind === 'Deployment')) {
        const pod = podSpecOf(deployment);
        const namespace = namespaceOrDestination(ctx.repo, deployment) ?? '';
        const volumes = objects(pod?.spec.volumes);
        const claim = volumes
          .map((v) => dig(v, ['persistentVolumeClaim', 'claimName']))
          .find((c) => typeof c === 'string' && oneNode(claims.get(`${namespace}/${c}`)));
        if (typeof claim !== 'string') continue;
        const replicas = (dig(deployment.object, ['spec', 'replicas']) as number | undefined) ?? 1;
        if (replicas > 1)
          ctx.fail(
            { resource: deployment, path: ['spec', 'replicas'] },
            `Deployment ${deployment.name} runs ${replicas} replicas on claim ${claim}, which one node alone can attach: the pods on other nodes stay ContainerCreating`,
          );
        const surge = dig(deployment.object, ['spec', 'strategy', 'rollingUpdate', 'maxSurge']) ?? '25%';
        if (surgePods(deployment, Math.max(replicas, 1)) !== 0)
          ctx.fail(
            { resource: deployment, path: dig(deployment.object, ['spec', 'strategy']) === undefined ? ['spec'] : ['spec', 'strategy'] },
            `Deployment ${deployment.name} mounts claim ${claim}, which one node alone can attach, and rolls out by surging (a rolling update with maxSurge ${scalarText(surge)}): the new pod waits for the volume the old one holds, the old one waits for the new one, and a rollout whose new pod lands on another node never ends`,
          );
      }
    },
  },
  {
    id: 'workload-port-clash',
    description:
      "No two containers of a pod declare the same port and protocol: they share the pod's network, so one of them cannot bind it and fails; the API server only warns (duplicate port definition) (foundation hygiene; P1).",
    invariants: ['P1'],
    remediation: "give each container a port of its own (and its program's listen setting with it), or declare the port only on the container that serves it",
    reads: { kinds: workloadKinds, renders: true },
    exemptible: false,
    run(ctx) {
      for (const resource of ctx.resources) {
        const pod = podSpecOf(resource);
        if (!pod) continue;
        const taken = new Map<string, string>();
        for (const c of containersOf(pod)) {
          // A one-shot init container has exited before the app containers start: its ports clash with none of theirs.
          if (!runsAlongside(c)) continue;
          const ports = objects(c.container.ports);
          ports.forEach((p, i) => {
            if (p.containerPort === undefined) return;
            const key = `${scalarText(p.containerPort)}/${scalarText(p.protocol ?? 'TCP')}`;
            const first = taken.get(key);
            if (first && first !== c.name)
              ctx.fail(
                { resource, path: [...c.at, 'ports', i, 'containerPort'] },
                `${resource.kind} ${resource.name}: containers ${first} and ${c.name} both declare port ${key}, in one network namespace: one of them cannot bind it`,
              );
            else taken.set(key, c.name);
          });
        }
      }
    },
  },
];
