/**
 * pve-exporter-trust (A7): the hypervisor exporter verifies each host's certificate against a CA that can have
 * signed it. A host's own certificate is signed by its cluster's CA (/etc/pve/pve-root-ca.pem), and no public CA
 * signs one for a private name such as pve1.lan. Python's requests trusts certifi's public roots unless it is given
 * a CA file, so an exporter without the cluster's CA fails every scrape (CERTIFICATE_VERIFY_FAILED, HTTP 500) and
 * HypervisorMetricsDown fires for good; `verify_ssl: false` would hand the audit token to whatever answers.
 */
import { dig, obj } from '../../model/core/dig.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment } from '../../model/cluster/environment.ts';
import type { Path } from '../../model/core/positions.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { mountedFile } from '../../model/cluster/mounted-files.ts';
import { noPublicCertificate } from '../../model/monitoring/private-names.ts';
import { PVE_CONFIG_AT, pveExporter, pveTargets } from '../../model/monitoring/pve-exporter.ts';
const CA_ENV = ['REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'];

export const pveTrustCheck: PolicyCheck = {
  id: 'pve-exporter-trust',
  description:
    "The hypervisor exporter verifies each host's certificate against a CA that can have signed it: a CA file it mounts (REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE, from its env or a ConfigMap or Secret its envFrom names, or verify_ssl as a path) holding the cluster's CA, or, for a public name, the public roots; never verify_ssl: false. A private name (pve1.lan) has no public CA's certificate, so without the cluster's CA every scrape fails and HypervisorMetricsDown fires for good (A7).",
  invariants: ['A7'],
  remediation:
    'write the cluster CA (/etc/pve/pve-root-ca.pem on any host) into the exporter Secret beside pve.yml, and set REQUESTS_CA_BUNDLE on the container to its mounted path',
  reads: { kinds: withKeyProviders('ServiceMonitor', 'Deployment') },
  exemptible: false,
  run(ctx) {
    const { monitor, secret, deployment, modules } = pveExporter(ctx.resources);
    // pve-audit-token speaks for a missing monitor, configuration or exporter.
    if (!monitor || !secret || !deployment || !modules) return;
    const containerAt: Path = ['spec', 'template', 'spec', 'containers', 0];
    const container = dig(deployment.object, containerAt);
    // The container's variables as the kubelet sets them: the keys of the Secrets and ConfigMaps its envFrom names, its env over them.
    const { entries } = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, deployment), obj(container));
    // requests takes the first of its two variables that is set and not empty (`or`).
    const caEntry = CA_ENV.map((name) => entries.findLast((e) => e.name === name)).find((e) => e && (e.value === undefined || e.value !== ''));
    if (caEntry && typeof caEntry.value !== 'string')
      return ctx.notJudged(
        { resource: deployment, path: [...containerAt, ...caEntry.at] },
        `the exporter takes its CA file from ${String(caEntry.name)}, set from a value the gate does not read: whether it holds the hypervisors' CA is not judged`,
      );
    for (const m of modules.values()) {
      const verify = m.verify_ssl;
      if (verify === false || verify === 'false' || verify === 0) {
        ctx.fail(
          { resource: secret, path: PVE_CONFIG_AT },
          "pve.yml sets verify_ssl: false: the exporter hands the audit user's token to whatever answers at the hypervisors' names",
        );
        continue;
      }
      // requests reads the environment's CA file before the session's own setting.
      const caFile = caEntry ? String(caEntry.value) : typeof verify === 'string' ? verify : undefined;
      if (caFile) {
        // A mounted file's key is closure-secret-key's to judge; a file of the image holds no cluster's CA.
        const source = mountedFile(ctx, { spec: dig(deployment.object, ['spec', 'template', 'spec']), namespace: deployment.namespace }, container, caFile);
        const at = caEntry
          ? { resource: deployment, path: [...containerAt, ...givenVariablePath(caEntry, 'value')] }
          : { resource: secret, path: PVE_CONFIG_AT };
        if (source.on === 'image')
          ctx.fail(
            at,
            `the exporter trusts the CA file ${caFile}, which no volume of the container provides: the image's own files hold no hypervisor cluster's CA`,
          );
        continue;
      }
      for (const { host, at } of pveTargets(monitor)) {
        if (noPublicCertificate(host))
          ctx.fail(
            { resource: monitor, path: at },
            `the exporter checks ${host}'s certificate against the public roots alone, and no public CA certifies ${host}: every scrape fails (CERTIFICATE_VERIFY_FAILED) and HypervisorMetricsDown fires for good`,
          );
        else
          ctx.notJudged(
            { resource: monitor, path: at },
            `whether ${host} serves a public CA's certificate (the hypervisor's own ACME) is not in the repository; without one, every scrape fails`,
          );
      }
    }
  },
};
