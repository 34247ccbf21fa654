/**
 * pve-exporter-trust (A7): the hypervisor exporter verifies each host's certificate against a CA that can have
 * signed it. A host's own certificate is signed by its cluster's CA (/etc/pve/pve-root-ca.pem), and no public CA
 * signs one for a private name such as pve1.lan. Python's requests trusts certifi's public roots unless it is given
 * a CA file, so an exporter without the cluster's CA fails every scrape (CERTIFICATE_VERIFY_FAILED, HTTP 500) and
 * HypervisorMetricsDown fires for good; `verify_ssl: false` would hand the audit token to whatever answers.
 */
import { dig, objects } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { mountedFile } from '../../model/cluster/mounted-files.ts';
import { noPublicCertificate } from '../../model/monitoring/private-names.ts';
import { PVE_CONFIG_AT, pveExporter, pveTargets } from '../../model/monitoring/pve-exporter.ts';
const CA_ENV = ['REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'];

export const pveTrustCheck: PolicyCheck = {
  id: 'pve-exporter-trust',
  description:
    "The hypervisor exporter verifies each host's certificate against a CA that can have signed it: a CA file it mounts (REQUESTS_CA_BUNDLE, or verify_ssl as a path) holding the cluster's CA, or, for a public name, the public roots; never verify_ssl: false. A private name (pve1.lan) has no public CA's certificate, so without the cluster's CA every scrape fails and HypervisorMetricsDown fires for good (A7).",
  invariants: ['A7'],
  remediation:
    'write the cluster CA (/etc/pve/pve-root-ca.pem on any host) into the exporter Secret beside pve.yml, and set REQUESTS_CA_BUNDLE on the container to its mounted path',
  reads: { kinds: ['ServiceMonitor', 'ExternalSecret', 'Deployment'] },
  exemptible: false,
  run(ctx) {
    const { monitor, secret, deployment, modules } = pveExporter(ctx.resources);
    // pve-audit-token speaks for a missing monitor, configuration or exporter.
    if (!monitor || !secret || !deployment || !modules) return;
    const containerAt: Path = ['spec', 'template', 'spec', 'containers', 0];
    const container = dig(deployment.object, containerAt);
    const env = objects(dig(container, ['env'])) as { name?: string; value?: string }[];
    const envIndex = env.findIndex((e) => CA_ENV.includes(e.name ?? '') && typeof e.value === 'string');
    for (const m of modules) {
      const verify = m.verify_ssl;
      if (verify === false || verify === 'false' || verify === 0) {
        ctx.fail(
          { resource: secret, path: PVE_CONFIG_AT },
          "pve.yml sets verify_ssl: false: the exporter hands the audit user's token to whatever answers at the hypervisors' names",
        );
        continue;
      }
      // requests reads the environment's CA file before the session's own setting.
      const caFile = envIndex >= 0 ? env[envIndex]!.value! : typeof verify === 'string' ? verify : undefined;
      if (caFile) {
        // A mounted file's key is closure-secret-key's to judge; a file of the image holds no cluster's CA.
        const source = mountedFile(ctx, { spec: dig(deployment.object, ['spec', 'template', 'spec']), namespace: deployment.namespace }, container, caFile);
        const at = envIndex >= 0 ? { resource: deployment, path: [...containerAt, 'env', envIndex, 'value'] } : { resource: secret, path: PVE_CONFIG_AT };
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
