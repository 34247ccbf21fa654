/**
 * closure-host-alias: a pod's `hostAliases` are written by the kubelet into its /etc/hosts, which every resolver a
 * container runs reads before DNS (glibc's and musl's `files dns`, Go's hostLookupOrder). An alias for a name the
 * cluster's DNS answers (a Service's `<service>.<namespace>.svc[.cluster.local]`, or a Service's short name from its
 * own namespace) sends every call the pod makes to that Service to the address written there instead: a pod's IP
 * that has long moved, or a machine of anyone's choosing, while every check of the name passes.
 */
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { isServiceDomainHost, serviceIndex } from '../../model/cluster/service-addresses.ts';
import { dig, list } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { podSpecOf, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

export const hostAliasCheck: PolicyCheck = {
  id: 'closure-host-alias',
  description:
    "No pod's hostAliases name a host the cluster's DNS answers (a Service's <service>.<namespace>.svc name, or a Service's name from its own namespace, as <service> or <service>.<namespace>): the kubelet writes them into the pod's /etc/hosts, which its resolver reads before DNS, so every call it makes to that Service goes to the address written there instead (invariants P1).",
  invariants: ['P1'],
  remediation: 'remove the alias and let the cluster DNS answer the Service name; alias only names the cluster does not serve',
  reads: { kinds: [...WORKLOAD_KINDS, 'Service'], renders: true },
  exemptible: false,
  run(ctx) {
    const services = serviceIndex(ctx.repo, ctx.resources);
    for (const resource of ctx.resources) {
      const pod = podSpecOf(resource);
      if (!pod) continue;
      const namespace = namespaceOrDestination(ctx.repo, resource) ?? '';
      list(pod.spec.hostAliases).forEach((alias, i) => {
        const ip = scalarText(dig(alias, ['ip']) ?? '');
        list(dig(alias, ['hostnames'])).forEach((entry, j) => {
          const host = scalarText(entry).toLowerCase().replace(/\.$/, '');
          const [first = '', second] = host.split('.');
          const service =
            isServiceDomainHost(host) ||
            (host.split('.').length === 1 && services.named(namespace, first) !== undefined) ||
            (host.split('.').length === 2 && second !== undefined && services.named(second, first) !== undefined);
          if (service)
            ctx.fail(
              { resource, path: [...pod.at, 'hostAliases', i, 'hostnames', j] },
              `${resource.kind} ${resource.name} aliases ${host} to ${ip} in its /etc/hosts, a name the cluster's DNS answers for a Service: every call the pod makes to it goes to ${ip} instead`,
            );
        });
      });
    }
  },
};
