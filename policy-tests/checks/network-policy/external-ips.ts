/**
 * service-external-ips: a Service's `spec.externalIPs` claims addresses for the cluster. kube-proxy, which Talos runs
 * (cluster.proxy.disabled off), sends every packet a pod or a node sends to such an address, on the Service's ports, to
 * the Service's pods: any address at all, the NAS's, the router's or a public resolver's, is taken over by whoever
 * writes the Service (CVE-2020-8554, which Kubernetes answers only with the DenyServiceExternalIPs admission plugin,
 * off by default, and off in Talos' API server). The API server admits it, and Argo CD applies it, so a one-file pull
 * request could read what the cluster sends to any machine. An exemption next to the Service says why one is meant.
 */
import { dig, list } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

export const externalIpsCheck: PolicyCheck = {
  id: 'service-external-ips',
  description:
    "No Service sets spec.externalIPs, unless an exemption next to it says why: kube-proxy (Talos runs it) sends every pod's and node's traffic for those addresses, on the Service's ports, to the Service's pods, whatever machine the address is (CVE-2020-8554), and the API server admits it (DenyServiceExternalIPs is off) (invariants P1).",
  invariants: ['P1'],
  remediation:
    'remove spec.externalIPs (a LoadBalancer Service takes its address from MetalLB), or annotate the Service with gate.homelab-gitops/exempt-service-external-ips: <reason>',
  reads: { kinds: ['Service'], renders: true },
  exemptible: true,
  run(ctx) {
    const proxyDisabled = ctx.repo.facts?.machineConfig.proxyDisabled === true;
    for (const service of ctx.resources.filter((r) => r.kind === 'Service')) {
      const ips = list(dig(service.object, ['spec', 'externalIPs']));
      if (ips.length === 0) continue;
      const at = { resource: service, path: ['spec', 'externalIPs'] };
      const ports = list(dig(service.object, ['spec', 'ports'])).map((p) => scalarText(dig(p, ['port']) ?? '?'));
      if (proxyDisabled) {
        ctx.notJudged(
          at,
          `Service ${service.name} sets externalIPs, and Talos runs no kube-proxy (cluster.proxy.disabled): whether the CNI's replacement serves them is not judged`,
        );
        continue;
      }
      ctx.fail(
        at,
        `Service ${service.name} sets externalIPs ${ips.map(String).join(', ')}: kube-proxy sends every pod's and node's traffic for ${ips.length === 1 ? 'that address' : 'those addresses'} on port ${ports.join(', ')} to its pods, whatever machine the address is (CVE-2020-8554), and the API server admits it`,
      );
    }
  },
};
