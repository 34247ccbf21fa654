/** Broken copies of the real repository for the checks of policy-tests/checks/media/pods.ts: each fails exactly its check, at its line. */
import { type RepoCopy } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { SONARR, GLUETUN } from './edits.ts';

export const mediaPodsMutations: Mutation[] = [
  {
    check: 'media-vpn-sidecars',
    why: 'the cluster resolver is dropped',
    mutate: (c) => c.write(GLUETUN, c.read(GLUETUN).replace('value: "on"', 'value: "off"')),
    at: '- name: DNS_KEEP_NAMESERVER',
    fix: 'set DNS_KEEP_NAMESERVER=on on the gluetun container, on gluetun 3.40.2 to 3.41.1 (or DOT=off before 3.40.2)',
  },
  {
    check: 'media-vpn-sidecars',
    why: 'gluetun back at v3.40.0 with DNS over TLS at its default: its DNS loop never reports running, and the VPN loop hangs waiting for it once the tunnel is up',
    mutate: (c) => c.write(GLUETUN, c.read(GLUETUN).replace('qmcgaw/gluetun:v3.40.4', 'qmcgaw/gluetun:v3.40.0')),
    at: 'image: docker.io/qmcgaw/gluetun:v3.40.0',
    fix: 'set DNS_KEEP_NAMESERVER=on on the gluetun container, on gluetun 3.40.2 to 3.41.1 (or DOT=off before 3.40.2)',
  },
  {
    check: 'media-vpn-sidecars',
    why: 'a bump past 3.41.1, where DNS_KEEP_NAMESERVER no longer exists: the pod loses the cluster resolver while the option still reads on',
    mutate: (c) => c.write(GLUETUN, c.read(GLUETUN).replace('qmcgaw/gluetun:v3.40.4', 'qmcgaw/gluetun:v3.42.0')),
    at: 'image: docker.io/qmcgaw/gluetun:v3.42.0',
  },
  {
    check: 'media-vpn-sidecars',
    why: "the Service network dropped from the VPN's bypass: the sidecars' DNS and their sync with the managers go into the tunnel, and gluetun's firewall drops them",
    mutate: (c) => c.write(GLUETUN, c.read(GLUETUN).replace('value: 10.244.0.0/16,10.96.0.0/12', 'value: 10.244.0.0/16')),
    at: 'value: 10.244.0.0/16',
    fix: "list nodeNetwork's pod and Service networks in the gluetun container's FIREWALL_OUTBOUND_SUBNETS",
  },
  // Renamed rather than removed: removing it would also (rightly) orphan its database backup job.
  {
    check: 'media-vpn-sidecars',
    why: 'the indexer manager is no longer a container of the VPN pod',
    mutate: (c) => c.edit(GLUETUN, 0, (d) => d.setIn(['spec', 'template', 'spec', 'containers', 1, 'name'], 'indexer')),
    at: '      containers:',
    fix: 'run prowlarr and qbittorrent as containers of the gluetun pod, and nowhere else',
  },
  {
    check: 'media-exposure',
    // With a trusted certificate, as a careful publisher would give it: the exposure alone is what fails.
    why: 'a subtitle manager published on the public gateway',
    mutate: (c) => {
      c.edit('apps/media/bazarr/ingress.yaml', 0, (d) => {
        d.setIn(['spec', 'ingressClassName'], 'gateway');
        d.setIn(['spec', 'tls'], d.createNode([{ hosts: ['bazarr.lan.example.net'], secretName: 'bazarr-tls' }]));
      });
      const certificate = [
        'apiVersion: cert-manager.io/v1',
        'kind: Certificate',
        'metadata: {name: bazarr-tls, namespace: media}',
        'spec: {secretName: bazarr-tls, dnsNames: [bazarr.lan.example.net], issuerRef: {kind: ClusterIssuer, name: letsencrypt}}',
      ];
      c.write('apps/media/bazarr/ingress.yaml', `${c.read('apps/media/bazarr/ingress.yaml')}---\n${certificate.join('\n')}\n`);
    },
    at: 'ingressClassName: gateway',
  },
  {
    check: 'media-exposure',
    why: 'the login-less annotation is dropped',
    mutate: (c) => c.edit('apps/media/bazarr-4k/deployment.yaml', 0, (d) => d.deleteIn(['metadata', 'annotations'])),
    at: 'metadata:',
  },
  {
    check: 'media-one-tv-manager',
    why: 'a 4K TV manager appears',
    mutate: (c) => {
      c.write(
        'apps/media/sonarr/sonarr-4k.yaml',
        c
          .read(SONARR)
          .replace(/name: sonarr$/gm, 'name: sonarr-4k')
          .replace('app.kubernetes.io/name: sonarr\n', 'app.kubernetes.io/name: sonarr-4k\n'),
      );
      c.write(
        'apps/media/sonarr/kustomization.yaml',
        c.read('apps/media/sonarr/kustomization.yaml').replace('resources:\n', 'resources:\n  - sonarr-4k.yaml\n'),
      );
    },
    at: (cp: RepoCopy) =>
      cp
        .read('apps/media/sonarr/sonarr-4k.yaml')
        .split('\n')
        .findIndex((l) => l.trim() === 'name: sonarr-4k') + 1,
  },
  {
    check: 'media-exporters',
    why: 'the API key committed in the manifest',
    mutate: (c) =>
      c.write(
        SONARR,
        c
          .read(SONARR)
          .replace(
            /- name: APIKEY\n              valueFrom:\n                secretKeyRef:\n                  name: sonarr-api-key\n                  key: api-key/,
            '- name: APIKEY\n              value: "0123456789abcdef"',
          ),
      ),
    at: '- name: APIKEY',
  },
  {
    check: 'media-exporters',
    why: 'nothing scrapes the 4K manager',
    mutate: (c) => c.write('apps/media/radarr-4k/exporter.yaml', c.read('apps/media/radarr-4k/exporter.yaml').split('---\n').slice(0, 2).join('---\n')),
    at: (cp: RepoCopy) =>
      cp
        .read('apps/media/radarr-4k/deployment.yaml')
        .split('\n')
        .findIndex((l) => l.trim() === '- name: exportarr') + 1,
  },
  {
    check: 'media-one-tv-manager',
    why: 'both movie managers share one config (its backup job pointed there too)',
    mutate: (c) => {
      c.edit('apps/media/radarr-4k/deployment.yaml', 0, (d) =>
        d.setIn(['spec', 'template', 'spec', 'volumes', 0, 'persistentVolumeClaim', 'claimName'], 'radarr-config'),
      );
      // Its backup job follows, through a patch on the component's job.
      c.write(
        'apps/media/radarr-4k/kustomization.yaml',
        `${c.read('apps/media/radarr-4k/kustomization.yaml')}patches:\n  - target: { kind: CronJob, name: radarr-4k-db-backup }\n    patch: |-\n      - op: replace\n        path: /spec/jobTemplate/spec/template/spec/volumes/0/persistentVolumeClaim/claimName\n        value: radarr-config\n`,
      );
    },
    at: '      volumes:',
  },
];
