/**
 * unpoller-trust (A5): the gateway exporter knows whom it hands the read-only user's password to. unpoller's UniFi
 * client checks no certificate unless told to (verify_ssl defaults to false, unpoller v2.20.0
 * pkg/inputunifi/input.go), so whatever answers at the gateway's name on the LAN gets the login. A gateway serves
 * its own self-signed certificate, which no CA signs, so verify_ssl alone fails every poll. unpoller pins instead:
 * each ssl_cert_paths entry (UP_UNIFI_DEFAULT_SSL_CERT_PATH_<n>, by cnfg's xml tag and slice index) is a PEM file,
 * and the client accepts only a peer whose chain holds one of them (unpoller/unifi v5.5.0 unifi.go,
 * verifyPeerCertificate: the SHA-256 of each DER certificate). A new gateway certificate then stops the polls, and
 * GatewayMetricsDown says so.
 */
import { dig, obj } from '../../model/core/dig.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment, type GivenVariable } from '../../model/cluster/environment.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { mountedFile } from '../../model/cluster/mounted-files.ts';
import { noPublicCertificate } from '../../model/monitoring/private-names.ts';

const CONTAINER: Path = ['spec', 'template', 'spec', 'containers', 0];
const PIN = /^UP_UNIFI_DEFAULT_SSL_CERT_PATH_\d+$/;

/** Where a variable is set under the deployment: its env entry's value, or the envFrom entry whose source sets it. */
const entryPath = (e: GivenVariable): Path => [...CONTAINER, ...givenVariablePath(e, 'value')];

export const unpollerTrustCheck: PolicyCheck = {
  id: 'unpoller-trust',
  description:
    "The gateway exporter pins the gateway's certificate (UP_UNIFI_DEFAULT_SSL_CERT_PATH_<n>, a PEM a Secret mounts) before it logs in over HTTPS. unpoller checks no certificate by default, so whatever answers at the gateway's name gets the read-only user's password; a gateway's own certificate is self-signed, so verify_ssl alone fails every poll (A5).",
  invariants: ['A5'],
  remediation:
    "put the gateway's certificate (openssl s_client -connect <gateway>:443 -showcerts) in the secret store beside the read-only user, write it into the unpoller Secret, mount that key, and name its path in UP_UNIFI_DEFAULT_SSL_CERT_PATH_0",
  reads: { kinds: withKeyProviders('Deployment') },
  exemptible: false,
  run(ctx) {
    // unpoller-source speaks for a missing exporter.
    const deployment = ctx.resources.find((r) => r.kind === 'Deployment' && r.name === 'unpoller');
    if (!deployment) return;
    // Its variables as the kubelet sets them: the keys of the Secrets and ConfigMaps its envFrom names, its env over them.
    const { entries } = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, deployment), obj(dig(deployment.object, CONTAINER)));
    const variable = (name: string) => entries.findLast((e) => e.name === name);
    const urlEntry = variable('UP_UNIFI_DEFAULT_URL');
    const url = URL.parse(typeof urlEntry?.value === 'string' ? urlEntry.value : '');
    if (!url) return; // unpoller-source and the exporter's own start say what is missing.
    const where: { resource: Resource; path: Path } = { resource: deployment, path: urlEntry ? entryPath(urlEntry) : [...CONTAINER, 'env'] };
    if (url.protocol !== 'https:') {
      ctx.fail(where, `unpoller logs in to ${url.href} over ${url.protocol.slice(0, -1)}: the read-only user's password crosses the LAN in clear`);
      return;
    }
    const pins = entries.flatMap((e) =>
      PIN.test(String(e.name)) && variable(String(e.name)) === e && typeof e.value === 'string' && e.value ? [{ file: e.value, at: entryPath(e) }] : [],
    );
    if (pins.length > 0) {
      for (const pin of pins) pinnedFileMounted(ctx, deployment, pin);
      return;
    }
    const verify = variable('UP_UNIFI_DEFAULT_VERIFY_SSL')?.value === 'true';
    if (!verify)
      ctx.fail(
        where,
        `unpoller logs in to ${url.host} without checking its certificate (verify_ssl defaults to false): whatever answers at that name gets the read-only user's password; pin the gateway's certificate`,
      );
    else if (noPublicCertificate(url.hostname))
      ctx.fail(
        where,
        `unpoller checks ${url.hostname}'s certificate against the public roots alone, and no public CA certifies ${url.hostname}: every poll fails; pin the gateway's certificate instead`,
      );
    else ctx.notJudged(where, `whether ${url.hostname} serves a public CA's certificate is not in the repository; without one, every poll fails`);
  },
};

/** A pinned certificate is a file a volume provides: the image holds no gateway's certificate, and unpoller does not start without the file. */
function pinnedFileMounted(ctx: CheckContext, deployment: Resource, { file, at }: { file: string; at: Path }): void {
  const container = dig(deployment.object, CONTAINER);
  const spec = dig(deployment.object, ['spec', 'template', 'spec']);
  // A mounted Secret's missing key is closure-secret-key's to judge.
  if (mountedFile(ctx, { spec, namespace: deployment.namespace }, container, file).on === 'image')
    ctx.fail(
      { resource: deployment, path: at },
      `unpoller pins the certificate in ${file}, which no volume of the container provides: the image holds no gateway's certificate, and unpoller stops at start (reading SSL cert file)`,
    );
}
