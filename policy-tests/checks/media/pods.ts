/**
 * The media apps' pods: the VPN sidecar's network, who is exposed and how, one TV manager per library, and an exporter beside each app its alerts read.
 */
import type { Resource } from '../../model/core/manifest.ts';
import { writtenByExternalSecret } from '../../model/cluster/external-secrets.ts';
import { compareReleases, containersOf, imageRelease, podSpecOf, type ContainerRef } from '../../model/core/workloads.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { MEDIA_NAMESPACES, mountsOf, requireWorkload, withFacts, workload } from './media.ts';
import { scalarText } from '../../model/core/text.ts';
import { dig, list, str } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment, secretKeyOf, type GivenVariable } from '../../model/cluster/environment.ts';
import { LAN_GATEWAY } from '../../model/cluster/ingress-routes.ts';
import { cidrWithin } from '../../model/repository/node-network.ts';
import { gluetunBool, gluetunReads, gluetunReference } from '../../model/apps/gluetun.ts';

/**
 * What a gluetun release does with DNS_KEEP_NAMESERVER=on, read in its source at each tag (internal/dns/run.go,
 * internal/vpn/tunnelup.go, internal/configuration/settings): up to v3.40.1, with DNS over TLS on (DOT, on by
 * default), the DNS loop never reports itself running while the VPN loop waits for it once the tunnel is up, so the
 * VPN loop hangs there (fixed in v3.40.2); after v3.41.1 the option is gone, and
 * gluetun's own resolver answers every name of the pod. A problem, null when the tag names no version, or undefined when it is kept.
 */
function keepNameserverHonoured(image: string, dotOn: boolean): string | null | undefined {
  const tag = imageRelease(image);
  if (!tag) return null;
  if (compareReleases(tag, '3.41.1') > 0)
    return `gluetun ${tag} has no DNS_KEEP_NAMESERVER (removed after 3.41.1): its own resolver answers every name of the pod, and the in-cluster names the indexer manager syncs to stop resolving`;
  if (compareReleases(tag, '3.40.2') < 0 && dotOn)
    return `gluetun ${tag} with DNS_KEEP_NAMESERVER=on and DNS over TLS on (DOT, on unless off) never reports its DNS loop running, and its VPN loop waits for it once the tunnel is up: the loop hangs there, with no public IP and no restart when the tunnel fails (fixed in 3.40.2)`;
  return undefined;
}

/** What mends each cause of media-vpn-sidecars (the remediation lists them all). */
const VPN_FIX = {
  sidecars: 'run prowlarr and qbittorrent as containers of the gluetun pod, and nowhere else',
  resolver: 'set DNS_KEEP_NAMESERVER=on on the gluetun container, on gluetun 3.40.2 to 3.41.1 (or DOT=off before 3.40.2)',
  subnets: "list nodeNetwork's pod and Service networks in the gluetun container's FIREWALL_OUTBOUND_SUBNETS",
} as const;

/** The VPN container's variables as gluetun reads them, with where each is set and the first envFrom source whose keys are unknown. */
interface VpnVariables {
  settings: ReturnType<typeof gluetunReads>;
  entries: readonly GivenVariable[];
  unreadSource: FailurePlace | undefined;
}

/** FIREWALL_OUTBOUND_SUBNETS covers the cluster's pod and Service networks (the cluster facts' nodeNetwork), or those never leave the pod. */
function judgeSubnets(
  ctx: CheckContext,
  { resource: w, vpn }: { resource: Resource; vpn: ContainerRef },
  { settings, entries, unreadSource }: VpnVariables,
): void {
  const network = ctx.repo.facts?.nodeNetwork;
  if (!network) return;
  const entryAt = (index: number): Path => [...vpn.at, ...entries[index]!.at];
  const subnets = settings.get('FIREWALL_OUTBOUND_SUBNETS');
  const listed = (subnets?.value ?? '')
    .split(',')
    .map((cidr) => cidr.trim())
    .filter(Boolean);
  const uncovered = (['pods', 'services'] as const).filter((key) => !listed.some((cidr) => cidrWithin(network[key], cidr)));
  if (uncovered.length > 0 && subnets?.value === undefined && (subnets || unreadSource))
    ctx.notJudged(
      subnets ? { resource: w, path: entryAt(subnets.index) } : unreadSource!,
      `FIREWALL_OUTBOUND_SUBNETS comes from a value the gate does not read: whether the VPN container lets the cluster's networks bypass the tunnel is not judged`,
    );
  else if (uncovered.length > 0)
    ctx.fail(
      {
        resource: w,
        path: subnets ? [...vpn.at, ...givenVariablePath(entries[subnets.index]!, 'value')] : [...vpn.at, 'env'],
      },
      `the VPN container's FIREWALL_OUTBOUND_SUBNETS (${listed.join(', ') || 'unset'}) does not cover the cluster's ${uncovered.map((key) => `${key === 'pods' ? 'pod' : 'Service'} network ${network[key]}`).join(' and ')} (nodeNetwork in the cluster facts): gluetun routes that traffic into the tunnel and its firewall drops it, so the sidecars reach neither the cluster DNS nor the managers they sync with`,
      VPN_FIX.subnets,
    );
}

export const mediaPodChecks: PolicyCheck[] = [
  {
    id: 'media-vpn-sidecars',
    description:
      "The indexer manager and the torrent client are sidecars in the VPN pod, and the pod keeps the cluster resolver (DNS_KEEP_NAMESERVER=on, on a gluetun release that honours it: from 3.40.2, or with DNS over TLS off, up to 3.41.1) and lets the cluster's pod and Service networks (nodeNetwork in the cluster facts) bypass the tunnel (FIREWALL_OUTBOUND_SUBNETS) (M31; DNS constraint A20).",
    invariants: ['M31', 'A20'],
    remediation: Object.values(VPN_FIX).join('; '),
    reads: { kinds: withKeyProviders('Deployment'), files: ['apps/media/facts/media.yaml'] },
    exemptible: false,
    run(ctx) {
      withFacts(ctx, ({ roles }) => {
        const w = requireWorkload(ctx, roles.vpn.workload, 'VPN pod');
        if (!w) return;
        const pod = podSpecOf(w)!;
        const containers = containersOf(pod);
        for (const need of [roles.vpn, roles.indexerManager, roles.torrentClient]) {
          if (need.workload !== roles.vpn.workload || !containers.some((c) => c.name === need.container))
            ctx.fail(
              { resource: w, path: ['spec', 'template', 'spec', 'containers'] },
              `${need.container} is not a container of the VPN pod ${roles.vpn.workload}`,
              VPN_FIX.sidecars,
            );
        }
        const vpn = containers.find((c) => c.name === roles.vpn.container);
        // Each setting as gluetun reads it (its old names, its words for a boolean in any case), not as written.
        const reference = gluetunReference(ctx.repo);
        // Its variables as the kubelet sets them: the keys of the Secrets and ConfigMaps its envFrom names, its env over them.
        const { entries, unread } = vpn ? containerEnvironment(ctx, namespaceOrDestination(ctx.repo, w), vpn.container) : { entries: [], unread: [] };
        const settings = gluetunReads(entries, reference?.ok ? reference.deprecated : undefined);
        const entryAt = (index: number): Path => [...vpn!.at, ...entries[index]!.at];
        // A setting found unset may be one an envFrom source whose keys the repository does not say sets.
        const unreadSource = unread.length > 0 ? { resource: w, path: [...vpn!.at, 'envFrom', unread[0]!.source] } : undefined;
        const keep = settings.get('DNS_KEEP_NAMESERVER');
        const resolverLost = 'the VPN container must keep the cluster resolver (DNS_KEEP_NAMESERVER=on), or in-cluster names stop resolving';
        if (!keep && unreadSource)
          ctx.notJudged(
            unreadSource,
            `DNS_KEEP_NAMESERVER is unset unless an envFrom source whose keys the repository does not say sets it: whether the VPN container keeps the cluster resolver is not judged`,
          );
        else if (!keep) ctx.fail({ resource: w, path: vpn ? [...vpn.at, 'env'] : ['spec'] }, resolverLost, VPN_FIX.resolver);
        else if (keep.value === undefined)
          ctx.notJudged(
            { resource: w, path: entryAt(keep.index) },
            `DNS_KEEP_NAMESERVER comes from a Secret or a field: whether the VPN container keeps the cluster resolver is not judged`,
          );
        else if (gluetunBool(keep.value) !== true) ctx.fail({ resource: w, path: entryAt(keep.index) }, resolverLost, VPN_FIX.resolver);
        else if (vpn) {
          const image = scalarText(vpn.container.image ?? '');
          const dot = settings.get('DOT');
          const judged = keepNameserverHonoured(image, dot?.value === undefined || gluetunBool(dot.value) !== false);
          if (judged === null)
            ctx.notJudged(
              { resource: w, path: [...vpn.at, 'image'] },
              `gluetun's image ${image} names no version, so what it does with DNS_KEEP_NAMESERVER is not known`,
            );
          else if (judged) ctx.fail({ resource: w, path: [...vpn.at, 'image'] }, judged, VPN_FIX.resolver);
        }
        // Everything else leaves through the tunnel: the cluster's own networks must bypass it.
        if (vpn) judgeSubnets(ctx, { resource: w, vpn }, { settings, entries, unreadSource });
        for (const other of ctx.repo.resources.filter(
          (r) => (r.kind === 'Deployment' || r.kind === 'StatefulSet') && MEDIA_NAMESPACES.has(r.namespace ?? '') && r !== w,
        )) {
          const images = containersOf(podSpecOf(other) ?? { spec: {}, at: [] }).map((c) => scalarText(c.container.image ?? ''));
          if (images.some((i) => /\/(prowlarr|qbittorrent):/.test(i)))
            ctx.fail(
              { resource: other, path: ['metadata', 'name'] },
              `${other.name} runs an indexer manager or torrent client outside the VPN pod`,
              VPN_FIX.sidecars,
            );
        }
      });
    },
  },
  {
    id: 'media-exposure',
    description: 'Apps without a login of their own (the subtitle managers) are reachable only through the private gateway (Subtitle managers; M19).',
    invariants: ['M19'],
    remediation: 'annotate login-less workloads homelab-gitops/login: none and give their Ingress ingressClassName: private-gateway',
    reads: { kinds: ['Deployment', 'Ingress', 'Service'], files: ['apps/media/facts/media.yaml'] },
    exemptible: false,
    run(ctx) {
      withFacts(ctx, ({ roles }) => {
        const loginless = new Set(
          ctx.repo.resources
            .filter((r) => (r.object.metadata as { annotations?: Record<string, string> })?.annotations?.['homelab-gitops/login'] === 'none')
            .map((r) => r.name),
        );
        for (const name of roles.subtitleManagers) {
          const w = workload(ctx, name);
          if (w && !loginless.has(name))
            ctx.fail({ resource: w, path: ['metadata'] }, `${name} has no login of its own; annotate it homelab-gitops/login: none`);
        }
        const services = ctx.repo.resources.filter((r) => r.kind === 'Service');
        for (const ingress of ctx.resources.filter((r) => r.kind === 'Ingress')) {
          const backends = list(dig(ingress.object, ['spec', 'rules']))
            .flatMap((rule) => list(dig(rule, ['http', 'paths'])))
            .map((p) => str(dig(p, ['backend', 'service', 'name'])));
          const targets = backends.flatMap((svc) => {
            const s = services.find((x) => x.name === svc && x.namespace === ingress.namespace);
            return [svc, str(dig(s?.object, ['spec', 'selector', 'app.kubernetes.io/name']))];
          });
          const exposed = targets.find((t) => t && loginless.has(t));
          const cls = (ingress.object.spec as { ingressClassName?: string })?.ingressClassName;
          if (exposed && cls !== LAN_GATEWAY)
            ctx.fail(
              { resource: ingress, path: ['spec', 'ingressClassName'] },
              `${exposed} has no login of its own but is exposed through "${cls ?? 'the default class'}"; use ${LAN_GATEWAY}`,
            );
        }
      });
    },
  },
  {
    id: 'media-one-tv-manager',
    description: 'There is no 4K TV manager: one Sonarr; and the 4K movie manager is its own Radarr with its own config (4K movie manager 1, 5; M7).',
    invariants: ['M7', 'M5'],
    remediation: 'remove the second TV manager; give the 4K Radarr its own workload and config claim',
    reads: { kinds: ['Deployment', 'StatefulSet'], files: ['apps/media/facts/media.yaml'] },
    exemptible: false,
    run(ctx) {
      withFacts(ctx, ({ roles }) => {
        const media = ctx.repo.resources.filter((r) => (r.kind === 'Deployment' || r.kind === 'StatefulSet') && MEDIA_NAMESPACES.has(r.namespace ?? ''));
        const imageOf = (r: Resource) => containersOf(podSpecOf(r) ?? { spec: {}, at: [] }).map((c) => scalarText(c.container.image ?? ''));
        for (const r of media.filter((r) => r.name !== roles.tvManager && imageOf(r).some((i) => /\/sonarr:/.test(i))))
          ctx.fail({ resource: r, path: ['metadata', 'name'] }, `${r.name} is a second TV manager; there is no 4K TV manager`);
        const hd = workload(ctx, roles.movieManager);
        const uhd = workload(ctx, roles.movieManager4k);
        if (hd && uhd) {
          const configs = (w: Resource) =>
            new Set(
              mountsOf(w)
                .filter((m) => m.mountPath === '/config')
                .map((m) => m.claim),
            );
          const shared = [...configs(uhd)].filter((c) => configs(hd).has(c));
          if (shared.length)
            ctx.fail(
              { resource: uhd, path: ['spec', 'template', 'spec', 'volumes'] },
              `the 4K movie manager shares its config (${shared.join(', ')}) with the 1080p one`,
            );
        }
      });
    },
  },
  {
    id: 'media-exporters',
    description:
      'Each manager has an exportarr sidecar scraped by a ServiceMonitor, with the app API key from an ExternalSecret (Scrape sources, media app exporters; A8).',
    invariants: ['A8'],
    remediation: 'add the exportarr container with APIKEY from the <app>-api-key ExternalSecret, and the exportarr-<app> ServiceMonitor',
    reads: { kinds: withKeyProviders('Deployment', 'ServiceMonitor'), files: ['apps/media/facts/media.yaml'] },
    exemptible: false,
    run(ctx) {
      withFacts(ctx, ({ roles }) => {
        for (const name of [roles.tvManager, roles.movieManager, roles.movieManager4k]) {
          const w = workload(ctx, name);
          const pod = w && podSpecOf(w);
          if (!w || !pod) continue;
          const exporter = containersOf(pod).find((c) => /\/exportarr:/.test(scalarText(c.container.image ?? '')));
          if (!exporter) {
            ctx.fail({ resource: w, path: ['spec', 'template', 'spec', 'containers'] }, `${name} has no exportarr sidecar`);
            continue;
          }
          // APIKEY as the kubelet sets it: an env entry's Secret key, else the Secret an envFrom entry names.
          const { entries } = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, w), exporter.container);
          const key = entries.findLast((e) => e.name === 'APIKEY');
          const ref = key && secretKeyOf(exporter.container, key)?.secret;
          if (!writtenByExternalSecret(ctx.repo, ref, w.namespace))
            ctx.fail(
              { resource: w, path: key ? [...exporter.at, ...key.at] : [...exporter.at, 'env'] },
              `${name}'s exporter must take APIKEY from a Secret written by an ExternalSecret`,
            );
          if (!ctx.repo.resources.some((r) => r.kind === 'ServiceMonitor' && MEDIA_NAMESPACES.has(r.namespace ?? '') && r.name === `exportarr-${name}`))
            ctx.fail({ resource: w, path: [...exporter.at, 'name'] }, `no ServiceMonitor exportarr-${name} scrapes ${name}'s exporter`);
        }
      });
    },
  },
];
