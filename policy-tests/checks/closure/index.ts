/**
 * The closure model: every reference a resource makes to a class, a store,
 * an issuer or a namespace resolves to something the repository renders
 * (plain or through a chart), to what Kubernetes itself creates, or to an
 * entry of `providedOutsideGit` in the cluster facts, which says why.
 * The references are in references.ts, the providers in providers.ts, and
 * the checks with long bodies in crd.ts, services.ts, host-aliases.ts, keys.ts, api-keys.ts, store-budget.ts, middlewares.ts, traefik-headers.ts, tls.ts, ingress-rules.ts, node-network.ts, port-names.ts, roles.ts, claims.ts, devices.ts, autoscalers.ts, scheduling.ts (with host-ports.ts; the nodes themselves in model/scheduling), ceph.ts, ceph-classes.ts, csi-drivers.ts, acme.ts, annotation-keys.ts, traefik-annotations.ts, traefik-flags.ts and proxy-classes.ts; this is the table.
 */
import { hostAliasCheck } from './host-aliases.ts';
import { dig, list } from '../../model/core/dig.ts';
import { type PolicyCheck, type Area, type CheckEnvironment } from '../../model/checks/kit.ts';
import type { ScopeLookup } from '../../model/core/manifest.ts';
import { crdClosureCheck } from './crd.ts';
import { ADVERTISES, advertisedExtended, DEVICE_GROUP, requestedExtended } from '../../model/cluster/providers.ts';
import { namespacedProviders } from '../../model/cluster/providers.ts';
import { secretTypeOf } from '../../model/cluster/provided-keys.ts';
import { storeSecretRefs } from '../../model/cluster/external-secrets.ts';
import { closeReferences, FACTS_FIX, namespacedClosure } from './closing.ts';
import {
  clusterIssuerNamespace,
  issuerSecretRefs,
  bindingSubjectRefs,
  ingressRefs,
  issuerRefs,
  namespaceRefs,
  podRefs,
  priorityRefs,
  runtimeRefs,
  storageRefs,
  storeRefs,
  type Reference,
} from '../../model/cluster/references.ts';
import { serviceClosureCheck } from './services.ts';
import { middlewareClosureCheck } from './middlewares.ts';
import { traefikHeadersCheck } from './traefik-headers.ts';
import { publicTlsCheck } from './tls.ts';
import { ingressRulesCheck } from './ingress-rules.ts';
import { keyClosureCheck } from './keys.ts';
import { apiKeyClosureCheck } from './api-keys.ts';
import { storeBudgetCheck } from './store-budget.ts';
import { secretReferenceCheck } from './secret-references.ts';
import { closeOptionalReferences } from './optional-refs.ts';
import { IMAGE_FACTS_GLOB } from '../../model/repository/image-facts.ts';
import { nodeNetworkClosureCheck } from './node-network.ts';
import { loadBalancerClosureCheck } from './load-balancer.ts';
import { portNameClosureCheck } from './port-names.ts';
import { roleClosureCheck } from './roles.ts';
import { autoscalerClosureCheck } from './autoscalers.ts';
import { volumeClosureCheck } from './claims.ts';
import { deviceCapacityCheck } from './devices.ts';
import { nodeClosureCheck } from './scheduling.ts';
import { cephClusterCheck, cephDaemonsCheck, cephPoolCheck } from './ceph.ts';
import { cephClassCheck } from './ceph-classes.ts';
import { csiDriverCheck } from './csi-drivers.ts';
import { acmeKeyCheck, acmeSolverCheck } from './acme.ts';
import { annotationKeysCheck } from './annotation-keys.ts';
import { traefikAnnotationsCheck } from './traefik-annotations.ts';
import { traefikFlagsCheck } from './traefik-flags.ts';
import { proxyClassCheck } from './proxy-classes.ts';

/** Cluster-wide names a resource refers to: one shape, one row each. */
const referenceFamilyChecks: PolicyCheck[] = (
  [
    {
      id: 'closure-storage-class',
      description:
        'Every StorageClass a claim asks for, and every VolumeSnapshotClass VolSync snapshots with, is one the repository provides (or Kubernetes, or an entry of providedOutsideGit); otherwise the claim stays Pending (invariants P1).',
      remediation: `name a class apps/platform/rook-ceph-cluster/classes.yaml declares, ${FACTS_FIX}`,
      kinds: ['PersistentVolumeClaim', 'StatefulSet', 'ReplicationSource', 'StorageClass', 'VolumeSnapshotClass', 'Application'],
      refs: storageRefs,
      effect: ': the claim would stay Pending',
    },
    {
      id: 'closure-ingress-class',
      description:
        'Every IngressClass an Ingress names is one the repository provides (each ingress proxy app declares its class); otherwise no proxy serves the route (invariants P1).',
      remediation: `name gateway (public) or private-gateway (LAN only), as apps/platform/ingress-*/ingressclass.yaml declare, ${FACTS_FIX}`,
      kinds: ['Ingress', 'IngressClass', 'Application'],
      refs: ingressRefs,
      effect: ': no proxy serves this route',
    },
    {
      id: 'closure-secret-store',
      description:
        'Every ClusterSecretStore or SecretStore an ExternalSecret reads from is one the repository provides; otherwise the Secret is never written (invariants P1).',
      remediation: `name the store apps/platform/external-secrets/clustersecretstore.yaml declares (ClusterSecretStore homelab), ${FACTS_FIX}`,
      kinds: ['ExternalSecret', 'ClusterSecretStore', 'SecretStore', 'Application'],
      refs: storeRefs,
      effect: ': the Secret it targets would never be written',
    },
    {
      id: 'closure-issuer',
      description:
        'Every ClusterIssuer or Issuer a Certificate (or an Ingress annotation) names is one the repository provides; otherwise no certificate is issued (invariants P1).',
      remediation: `name the issuer apps/platform/cert-manager/clusterissuer.yaml declares (ClusterIssuer letsencrypt), ${FACTS_FIX}`,
      kinds: ['Certificate', 'Ingress', 'ClusterIssuer', 'Issuer', 'Application'],
      refs: issuerRefs,
      effect: ': no certificate would be issued',
    },
    {
      id: 'closure-priority-class',
      description:
        "Every PriorityClass a pod asks for exists (in the repository, Kubernetes' own system-* classes, or providedOutsideGit); otherwise the API server refuses the pod (invariants P1).",
      remediation: `declare the PriorityClass, use system-cluster-critical or system-node-critical, ${FACTS_FIX}`,
      kinds: ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'PriorityClass', 'Application'],
      refs: priorityRefs,
      effect: ': the API server refuses the pod',
    },
    {
      id: 'closure-runtime-class',
      description:
        'Every RuntimeClass a pod asks for exists (in the repository, or providedOutsideGit: a Talos extension brings the handler, never the object); otherwise the RuntimeClass admission plugin refuses the pod (invariants P1).',
      remediation: `declare the RuntimeClass (node.k8s.io/v1, its handler the one the node's runtime extension installs), ${FACTS_FIX}`,
      kinds: ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'RuntimeClass', 'Application'],
      refs: runtimeRefs,
      effect: ': the RuntimeClass admission plugin refuses the pod',
    },
  ] as const
).map((c): PolicyCheck => ({
  id: c.id,
  description: c.description,
  invariants: ['P1'],
  remediation: c.remediation,
  reads: { kinds: [...c.kinds] },
  exemptible: false,
  run(ctx) {
    closeReferences(ctx, c.refs(ctx.resources), c.effect);
  },
}));

/** What a secret store without its credentials does. */
const STORE_EFFECT = ': the store cannot authenticate, so it is never ready, and no ExternalSecret through it writes its Secret';
/** What becomes of an issuer whose DNS-01 solver (or account binding) reads a Secret that is not there. */
const ISSUER_EFFECT = ': cert-manager cannot prove a name through it, so no certificate it should issue is issued';

/** What a binding to a ServiceAccount nobody makes grants. */
const SUBJECT_EFFECT = ': the binding grants its role to an account no pod runs as, and the pods meant to hold it are refused what it allows';

/** What the kubelet does without a pull Secret: it warns, and pulls with no credentials, which a private image refuses. */
const PULL_EFFECT =
  ' (imagePullSecrets): the kubelet pulls without it, with no credentials, so an image its registry keeps private never starts (ImagePullBackOff), and one it serves to anyone needs no Secret';

/** The pull Secret types the kubelet reads (credentialprovider/secrets: MakeDockerKeyring). */
const PULL_TYPES = ['kubernetes.io/dockerconfigjson', 'kubernetes.io/dockercfg'];

/** What a pod template names, in its own namespace. */
const podReferenceChecks: PolicyCheck[] = (['ServiceAccount', 'Secret', 'ConfigMap', 'PersistentVolumeClaim'] as const).map((kind): PolicyCheck => {
  const id = {
    ServiceAccount: 'closure-service-account',
    Secret: 'closure-secret',
    ConfigMap: 'closure-config-map',
    PersistentVolumeClaim: 'closure-claim',
  }[kind];
  const effect = {
    ServiceAccount: ': the pod is never created',
    Secret: ': the pod does not start',
    ConfigMap: ': the pod does not start',
    PersistentVolumeClaim: ': the pod stays Pending',
  }[kind];
  return {
    id,
    description: `Every ${kind} a pod template names (${kind === 'ServiceAccount' ? 'serviceAccountName' : kind === 'PersistentVolumeClaim' ? 'its volumes' : kind === 'Secret' ? "its volumes, env and envFrom, unless optional, and imagePullSecrets, its own or its ServiceAccount's" : 'its volumes, env and envFrom, unless optional'}${kind === 'Secret' || kind === 'ConfigMap' ? `; one the repository's own pod templates name as optional, as well or written at run time by a program the repository runs (its image's apiRequests in ${IMAGE_FACTS_GLOB}), else the pod starts without it for good (a chart's optional ones are its hooks for what a user may add, and are left alone)` : ''}${kind === 'Secret' ? ", and every Secret a SecretStore or ClusterSecretStore authenticates with (its provider's *SecretRef), or an Issuer's or ClusterIssuer's DNS-01 solver or account binding reads (a ClusterIssuer's in cert-manager's namespace)," : ''}) exists in its namespace: declared, ${kind === 'Secret' ? 'written by an ExternalSecret or a Certificate, ' : ''}${kind === 'ServiceAccount' ? "the namespace's default, " : kind === 'ConfigMap' ? 'kube-root-ca.crt, ' : ''}or in providedOutsideGit${kind === 'ServiceAccount' ? ", and so does every ServiceAccount a RoleBinding or ClusterRoleBinding grants its role to (its subjects; a RoleBinding's own namespace where a subject names none)" : ''}; judged where the gate sees the namespace whole${kind === 'Secret' ? '; and a pull Secret is of a type the kubelet reads (kubernetes.io/dockerconfigjson or dockercfg), else it pulls with no credentials' : ''} (invariants P1).`,
    invariants: ['P1'],
    remediation: `declare the ${kind}${kind === 'Secret' ? ' as the target of an ExternalSecret' : ''} in the pod's namespace, or name the one that exists`,
    reads: {
      kinds: ['*'],
      everyKind: `a ${kind} is named by pod templates of every workload kind, and made by many kinds (ExternalSecrets, Certificates, charts)`,
      renders: true,
      // Where cert-manager reads a ClusterIssuer's Secrets: its values, or the namespace it is deployed to.
      ...(kind === 'Secret' ? { charts: ['cert-manager'] } : {}),
      // What the programs write at run time, for an optional reference.
      ...(kind === 'Secret' || kind === 'ConfigMap' ? { files: [IMAGE_FACTS_GLOB] } : {}),
    },
    exemptible: false,
    run(ctx) {
      const have = namespacedProviders(ctx.repo, kind);
      const all = podRefs(ctx.repo, ctx.resources).filter((r) => r.kind === kind);
      const refs = all.filter((r) => !r.optional);
      const provided = (ref: Reference) =>
        have.has(`${ref.namespace ?? ''}/${ref.name}`) ||
        (kind === 'ServiceAccount' && ref.name === 'default') ||
        (kind === 'ConfigMap' && ref.name === 'kube-root-ca.crt');
      if (kind === 'Secret' || kind === 'ConfigMap') closeOptionalReferences(ctx, all, { kind, names: have, provided });
      namespacedClosure(
        ctx,
        refs.filter((r) => !r.pull),
        provided,
        effect,
      );
      // A binding's ServiceAccount that does not exist holds the role for no pod: the pods meant to run as it lack it.
      if (kind === 'ServiceAccount') namespacedClosure(ctx, bindingSubjectRefs(ctx.repo, ctx.resources), provided, SUBJECT_EFFECT);
      // A secret store's own credentials: without them it cannot authenticate, and every ExternalSecret through it fails.
      if (kind === 'Secret') namespacedClosure(ctx, storeSecretRefs(ctx.repo, ctx.resources), provided, STORE_EFFECT);
      // An issuer's solver credentials (a ClusterIssuer's in cert-manager's own namespace).
      if (kind === 'Secret') namespacedClosure(ctx, issuerSecretRefs(ctx.resources, clusterIssuerNamespace(ctx.repo)), provided, ISSUER_EFFECT);
      namespacedClosure(
        ctx,
        refs.filter((r) => r.pull),
        provided,
        PULL_EFFECT,
      );
      // A pull Secret the kubelet reads only by its type (MakeDockerKeyring): any other it skips, and pulls with nothing.
      for (const ref of refs.filter((r) => r.pull && provided(r))) {
        const type = secretTypeOf(ctx, { namespace: ref.namespace, name: ref.name });
        if (type !== undefined && !PULL_TYPES.includes(type))
          ctx.fail(
            { resource: ref.resource, path: ref.path },
            `${ref.resource.kind === 'ServiceAccount' ? `ServiceAccount ${ref.resource.name}'s pods pull their` : `${ref.resource.kind} ${ref.resource.name} pulls its`} images with Secret ${ref.namespace ?? ''}/${ref.name}, which is of type ${type}: the kubelet reads a pull Secret only of type ${PULL_TYPES.join(' or ')}, so it pulls with no credentials, and an image its registry keeps private never starts (ImagePullBackOff)`,
            "write the pull Secret as kubernetes.io/dockerconfigjson with a .dockerconfigjson key (an ExternalSecret's target.template.type and data)",
          );
      }
    },
  };
});

const extendedResourceCheck: PolicyCheck = {
  id: 'closure-extended-resource',
  description: `Every extended resource a container requests (a GPU's gpu.intel.com/i915) is advertised by a device plugin the repository runs (a DaemonSet annotated ${ADVERTISES}) or by one providedOutsideGit names (kind ExtendedResource), otherwise no node offers it and the pod stays Pending; and a pod that is not root is in the group the plugin says owns the device files (${DEVICE_GROUP}), otherwise it cannot open them (invariants P1).`,
  invariants: ['P1'],
  remediation: `run the resource's device plugin (a DaemonSet annotated ${ADVERTISES}: <name>), or list it in providedOutsideGit with its reason`,
  reads: { kinds: ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob'], renders: true },
  exemptible: false,
  run(ctx) {
    const advertised = advertisedExtended(ctx.repo, ctx.resources);
    for (const { resource, name, path, pod } of requestedExtended(ctx.resources)) {
      if (!advertised.has(name)) {
        ctx.fail(
          { resource, path },
          `${resource.kind} ${resource.name} asks for ${name}, which no device plugin here advertises and providedOutsideGit does not name: no node offers it, so the pod stays Pending`,
        );
        continue;
      }
      // The device files are the group's alone: a pod that is not root must be in it to open them.
      const group = advertised.get(name);
      const user = dig(pod.spec, ['securityContext', 'runAsUser']) as number | undefined;
      const groups = list(dig(pod.spec, ['securityContext', 'supplementalGroups'])) as unknown[];
      if (group !== undefined && user !== 0 && user !== undefined && !groups.includes(group))
        ctx.fail(
          { resource, path: [...pod.at, 'securityContext'] },
          `${resource.kind} ${resource.name} runs as user ${user} and asks for ${name}, whose device files belong to group ${group} (${DEVICE_GROUP} on its plugin), but its supplementalGroups lack ${group}: it cannot open the device`,
        );
    }
  },
};

function namespaceClosureCheck(isClusterScoped: ScopeLookup): PolicyCheck {
  return {
    id: 'closure-namespace',
    description:
      'Every namespaced resource lands in a namespace the repository provides (clusters/home/namespaces.yaml, or an Application with CreateNamespace=true), Kubernetes creates, or providedOutsideGit lists; otherwise its sync fails (invariants P1).',
    invariants: ['P1'],
    remediation: `add the namespace to clusters/home/namespaces.yaml, ${FACTS_FIX}`,
    reads: { kinds: ['*'], everyKind: 'every namespaced resource, of any kind, must land in a namespace something provides' },
    exemptible: false,
    run(ctx) {
      closeReferences(ctx, namespaceRefs(ctx.repo, ctx.resources, isClusterScoped), ': its sync fails');
    },
  };
}

export function closureChecks({ isClusterScoped, builtinGroups }: CheckEnvironment): PolicyCheck[] {
  return [
    crdClosureCheck(builtinGroups),
    ...referenceFamilyChecks,
    ...podReferenceChecks,
    keyClosureCheck,
    apiKeyClosureCheck,
    storeBudgetCheck,
    secretReferenceCheck,
    serviceClosureCheck,
    hostAliasCheck,
    middlewareClosureCheck,
    traefikHeadersCheck,
    publicTlsCheck,
    ingressRulesCheck,
    loadBalancerClosureCheck,
    nodeNetworkClosureCheck,
    portNameClosureCheck,
    roleClosureCheck,
    autoscalerClosureCheck,
    volumeClosureCheck,
    extendedResourceCheck,
    deviceCapacityCheck,
    nodeClosureCheck,
    cephDaemonsCheck,
    cephPoolCheck,
    cephClusterCheck,
    cephClassCheck,
    csiDriverCheck,
    acmeSolverCheck,
    acmeKeyCheck,
    annotationKeysCheck,
    traefikAnnotationsCheck,
    traefikFlagsCheck,
    proxyClassCheck,
    namespaceClosureCheck(isClusterScoped),
  ];
}

export const closureArea: Area = { name: 'closure', checks: closureChecks };
