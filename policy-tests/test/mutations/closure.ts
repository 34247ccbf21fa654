/** Broken copies of the real repository for the checks of policy-tests/checks/closure/: each fails exactly its check, at its line. */
import type { Document } from 'yaml';
import type { Mutation } from '../support/mutation-runner.ts';
import { lineOf, type RepoCopy } from '../support/helpers.ts';
import {
  after,
  appendConfigMap,
  bazarr4kSendsRadarrKey,
  COPY_COMPONENT,
  swap,
  addMountedVolume,
  inFile,
  STORE,
  CLASSES,
  PORTFOLIO_INGRESS,
  PORTFOLIO_MIDDLEWARE,
  throughChain,
  PORTFOLIO_DEPLOYMENT,
  removeApp,
  TUNING,
  dropAlternatives,
  trippingImages,
  API_AUTOSCALER,
  apiAutoscaler,
  PRIVILEGED_NS_DEPLOYMENT,
} from './edits.ts';

/** The API's pods kept one to a node by required pod anti-affinity on the hostname, its replicas (and strategy) as `spec` writes them. */
const apiOneToANode = (spec: string) => (c: RepoCopy) => {
  swap(PORTFOLIO_DEPLOYMENT, '  replicas: 2\n', spec)(c);
  swap(
    PORTFOLIO_DEPLOYMENT,
    '      automountServiceAccountToken: false\n',
    '      automountServiceAccountToken: false\n      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            - topologyKey: kubernetes.io/hostname\n              labelSelector:\n                matchLabels:\n                  app.kubernetes.io/name: portfolio-api\n',
  )(c);
};

/** A PrometheusRule's first group's rules, and a promtool test file's tests, as plain data (what a mutation filters). */
const ownAlerts = (d: Document) => (d.toJS() as { spec: { groups: { rules: { alert?: string }[] }[] } }).spec.groups[0]!.rules;
const promtoolTests = (d: Document) => (d.toJS() as { tests: { alert_rule_test?: { alertname: string }[] }[] }).tests;

const GPU_PLUGIN = 'apps/platform/intel-gpu-plugin/daemonset.yaml';
const CEPH_VALUES = 'apps/platform/rook-ceph-cluster/values.yaml';

/** The GPU plugin's metrics published on each node's `port`. */
const gpuPluginHostPort = (port: number) =>
  swap(
    GPU_PLUGIN,
    '          args: ["-shared-dev-num=2"]\n',
    `          args: ["-shared-dev-num=2"]\n          ports:\n            - {name: metrics, containerPort: ${port}, hostPort: ${port}}\n`,
  );

/**
 * The closure's checks of what a pod asks of the nodes it runs on (their names, network, load balancers, devices,
 * runtime classes, the storage daemons' placement): their mutations run in a test file of their own.
 */
const ON_NODES = new Set([
  'closure-node',
  'closure-node-network',
  'closure-load-balancer',
  'closure-extended-resource',
  'closure-device-capacity',
  'closure-runtime-class',
  'closure-ceph-daemons',
  'ceph-pool-accepted',
  'ceph-cluster-accepted',
]);
export const onNodes = (m: Mutation): boolean => ON_NODES.has(m.check);

/**
 * The closure's checks of what traffic names (a Service's pods and ports, an Ingress's class, rules and middlewares,
 * its TLS and the issuers behind it): their mutations run in a test file of their own.
 */
const ON_TRAFFIC = new Set([
  'closure-service',
  'closure-host-alias',
  'closure-port-name',
  'closure-ingress-class',
  'closure-ingress-rules',
  'closure-middleware',
  'traefik-headers-read',
  'closure-traefik-annotations',
  'closure-traefik-flags',
  'closure-ingress-proxy-class',
  'public-ingress-tls',
  'closure-acme-solver',
  'closure-acme-key',
  'closure-issuer',
]);
export const onTraffic = (m: Mutation): boolean => ON_TRAFFIC.has(m.check);

/** The closure's checks of what a custom resource and a secret store name: their CRDs, stores and the stores' budget. */
const ON_RESOURCES = new Set(['closure-crd', 'closure-secret-store', 'secret-store-reference', 'secret-store-budget']);
export const onResources = (m: Mutation): boolean => ON_RESOURCES.has(m.check);

export const closureMutations: Mutation[] = [
  // Per-kind closure.
  {
    check: 'closure-crd',
    why: 'the store operator declares its kinds, without ClusterSecretStore',
    mutate: swap(
      'apps/platform/external-secrets/application.yaml',
      'provides-crds: "external-secrets.io, generators.external-secrets.io"',
      'provides-crds: "external-secrets.io/ExternalSecret, generators.external-secrets.io"',
    ),
    at: inFile(STORE, 'apiVersion: external-secrets.io/v1'),
  },
  {
    check: 'closure-load-balancer',
    why: "the LAN proxy's source ranges mistyped 192.186.0.0/16: every LAN client is refused at its Service, and every LAN app is out of reach",
    mutate: swap('apps/platform/ingress-private/values.yaml', '[192.168.0.0/16, 10.0.0.0/8]', '[192.186.0.0/16, 10.0.0.0/8]'),
    at: (c) => ({ file: 'apps/platform/ingress-private/values.yaml', line: lineOf(c, 'apps/platform/ingress-private/values.yaml', '192.186.0.0/16') }),
  },
  {
    check: 'closure-load-balancer',
    why: 'the MetalLB platform app removed (with its speaker’s Falco exemption), so the proxies get no address',
    mutate: (c) => {
      removeApp('apps/platform/metallb', 'metallb')(c);
      swap(TUNING, /    - rule: Packet socket created in container\n[^]*?condition: append\n/, '')(c);
      // Its pool alert and the alert's promtool test go with it: nothing scrapes MetalLB any more (metrics-join).
      c.edit('monitoring/alert-rules/platform-health.yaml', 0, (d) =>
        d.setIn(['spec', 'groups', 0, 'rules'], d.createNode(ownAlerts(d).filter((r) => r.alert !== 'MetalLBPoolExhausted'))),
      );
      c.edit('monitoring/alert-rules/tests/platform-health.test.yaml', 0, (d) =>
        d.setIn(['tests'], d.createNode(promtoolTests(d).filter((t) => !t.alert_rule_test?.some((a) => a.alertname === 'MetalLBPoolExhausted')))),
      );
    },
    at: inFile('apps/platform/ingress-private/application.yaml', 'requires-load-balancer'),
  },
  {
    check: 'closure-crd',
    why: "the Rook operator app removed (with its operators' Falco exemptions), so the Ceph cluster's kinds have no CRD",
    mutate: (c) => {
      // Every exemption of an image its facts describe goes with it, the runtime pods' too, as a real removal must.
      const images = trippingImages(c, 'apps/platform/rook-ceph');
      removeApp('apps/platform/rook-ceph', 'rook-ceph')(c);
      dropAlternatives(...images)(c);
    },
    at: inFile('apps/platform/rook-ceph-cluster/application.yaml', 'requires-crds'),
  },
  {
    check: 'closure-service-account',
    why: "the etcd backup's binding also names an account etcd-backups that nothing declares: the grant waits for whoever makes that account later, outside git (were it the binding's only subject, program-api-authorized would find the backup refused its sentinel)",
    mutate: swap(
      'apps/platform/backups/rbac.yaml',
      '  - kind: ServiceAccount\n    name: etcd-backup\n    namespace: backups\n',
      '  - kind: ServiceAccount\n    name: etcd-backup\n    namespace: backups\n  - kind: ServiceAccount\n    name: etcd-backups\n    namespace: backups\n',
    ),
    at: 'name: etcd-backups',
  },
  {
    check: 'closure-service-account',
    why: 'a pod running as a ServiceAccount nobody declares',
    mutate: (c) => c.edit('apps/media/unpackerr/deployment.yaml', 0, (d) => d.setIn(['spec', 'template', 'spec', 'serviceAccountName'], 'unpackerr')),
    at: 'serviceAccountName: unpackerr',
  },
  {
    check: 'closure-secret',
    why: 'an env var from a Secret nothing writes',
    mutate: swap(PORTFOLIO_DEPLOYMENT, '                  name: portfolio-api\n', '                  name: portfolio-api-old\n'),
    at: 'name: portfolio-api-old',
  },
  {
    check: 'closure-secret',
    why: 'the API pulls its image with a registry Secret nothing writes, as when its package is made private: the kubelet pulls without it, with no credentials, and the image never starts',
    mutate: swap(
      PORTFOLIO_DEPLOYMENT,
      '      terminationGracePeriodSeconds: 15\n',
      '      terminationGracePeriodSeconds: 15\n      imagePullSecrets:\n        - name: ghcr-pull\n',
    ),
    at: '- name: ghcr-pull',
  },
  {
    check: 'closure-secret',
    why: "the status writer's ServiceAccount gives its pods a pull Secret nothing writes: the ServiceAccount admission plugin copies it into each pod, and the kubelet pulls without it, with no credentials",
    mutate: swap(
      'portfolio-api/deploy/rbac.yaml',
      '  name: portfolio-status-writer\n  namespace: portfolio\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n',
      '  name: portfolio-status-writer\n  namespace: portfolio\nimagePullSecrets:\n  - name: ghcr-pull\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n',
    ),
    at: (c) => ({ file: 'portfolio-api/deploy/rbac.yaml', line: lineOf(c, 'portfolio-api/deploy/rbac.yaml', '- name: ghcr-pull') }),
  },
  {
    check: 'closure-secret',
    why: 'the API pulls its image with its own app Secret, which its ExternalSecret writes as Opaque: the kubelet reads a pull Secret only of a registry type, skips it, and pulls with no credentials',
    mutate: swap(
      PORTFOLIO_DEPLOYMENT,
      '      terminationGracePeriodSeconds: 15\n',
      '      terminationGracePeriodSeconds: 15\n      imagePullSecrets:\n        - name: portfolio-api\n',
    ),
    at: (c) => ({ file: PORTFOLIO_DEPLOYMENT, line: lineOf(c, PORTFOLIO_DEPLOYMENT, 'imagePullSecrets:') + 1 }),
    fix: "write the pull Secret as kubernetes.io/dockerconfigjson with a .dockerconfigjson key (an ExternalSecret's target.template.type and data)",
  },
  {
    check: 'closure-config-map',
    why: 'the status ConfigMap, which only a CronJob writes, made mandatory',
    mutate: swap(PORTFOLIO_DEPLOYMENT, '            name: portfolio-infra-status\n            optional: true\n', '            name: portfolio-infra-status\n'),
    at: 'name: portfolio-infra-status',
  },
  {
    check: 'closure-config-map',
    why: 'the optional status ConfigMap renamed in the Deployment alone: the CronJob writes the old name, and the page serves its snapshot forever',
    mutate: swap(PORTFOLIO_DEPLOYMENT, '            name: portfolio-infra-status\n', '            name: portfolio-infra-statu\n'),
    at: 'name: portfolio-infra-statu',
  },
  {
    check: 'closure-claim',
    why: 'a volume from a claim nobody declares',
    mutate: (c) =>
      c.edit('apps/media/unpackerr/deployment.yaml', 0, (d) =>
        addMountedVolume(d, { name: 'scratch', persistentVolumeClaim: { claimName: 'unpackerr-scratch' } }, { mountPath: '/scratch' }),
      ),
    at: 'claimName: unpackerr-scratch',
  },
  {
    check: 'closure-service',
    why: "Jellyseerr's TV server given the host sonar: its resolver looks up a Service sonar in media, there is none, and every request to Sonarr fails",
    mutate: swap('apps/media/jellyseerr/settings/jellyseerr.yaml', '    hostname: sonarr.media.svc\n', '    hostname: sonar\n'),
    at: inFile('apps/media/jellyseerr/settings/jellyseerr.yaml', 'hostname: sonar'),
  },
  {
    check: 'closure-service',
    why: "Jellyseerr's film server sent to radar.lan.example.net, a name of the lab's zone no Ingress serves (the film manager's is radarr.lan.example.net): the proxy answers 404, and no request reaches Radarr",
    mutate: swap('apps/media/jellyseerr/settings/jellyseerr.yaml', '    hostname: radarr.media.svc\n', '    hostname: radar.lan.example.net\n'),
    at: inFile('apps/media/jellyseerr/settings/jellyseerr.yaml', 'hostname: radar.lan.example.net'),
  },
  {
    check: 'closure-service',
    why: "Sonarr's exporter sent to loclahost: the pod's resolver finds no Service of that name in media, every scrape of Sonarr fails, and its queue alerts go blind",
    mutate: swap('apps/media/sonarr/deployment.yaml', 'value: http://localhost:8989', 'value: http://loclahost:8989'),
    at: 'http://loclahost:8989',
  },
  {
    check: 'closure-service',
    why: 'the subtitle manager scaled to 0 replicas: its Service has no endpoints, its route answers 503 and its exporter is scraped for nothing',
    mutate: swap('apps/media/bazarr/deployment.yaml', 'spec:\n  replicas: 1\n', 'spec:\n  replicas: 0\n'),
    at: inFile('apps/media/bazarr/service.yaml', '  selector:'),
  },
  {
    check: 'closure-service',
    why: 'a route to a Service nobody declares',
    mutate: swap('apps/media/sonarr/ingress.yaml', '                name: sonarr\n', '                name: sonarr-web\n'),
    at: 'name: sonarr-web',
  },
  {
    check: 'closure-service',
    why: "Tautulli's Service written without its selector: the endpoints controller fills none, nothing else writes its endpoints, and its route answers 503",
    mutate: swap('apps/media/tautulli/service.yaml', 'spec:\n  selector:\n    app.kubernetes.io/name: tautulli\n', 'spec:\n'),
    at: (c) => ({ file: 'apps/media/tautulli/service.yaml', line: lineOf(c, 'apps/media/tautulli/service.yaml', 'spec:\n') }),
  },
  {
    check: 'closure-service',
    why: "Jellyseerr's settings send it to Radarr at port 7879, written apart from its host: Radarr's Service has 7878, and Jellyseerr reaches no Radarr",
    mutate: swap(
      'apps/media/jellyseerr/settings/jellyseerr.yaml',
      '    hostname: radarr.media.svc\n    port: 7878\n',
      '    hostname: radarr.media.svc\n    port: 7879\n',
    ),
    at: 'port: 7879',
  },
  {
    check: 'closure-service',
    why: "the TV manager's exporter monitor selects by an expression naming an app that does not exist (sonar): it selects no Service, and the exporter is never scraped (its expressions were read as no selector at all)",
    mutate: swap(
      'apps/media/sonarr/exporter.yaml',
      '  selector:\n    matchLabels:\n      app.kubernetes.io/name: sonarr\n      app.kubernetes.io/component: exporter\n',
      '  selector:\n    matchExpressions:\n      - { key: app.kubernetes.io/name, operator: In, values: [sonar] }\n',
    ),
    at: after('apps/media/sonarr/exporter.yaml', 'kind: ServiceMonitor', '  selector:'),
  },
  {
    check: 'closure-service',
    why: 'a monitor scraping a port its Service lacks',
    mutate: swap('apps/media/sonarr/exporter.yaml', '    - port: metrics', '    - port: prometheus'),
    at: 'port: prometheus',
  },
  {
    check: 'closure-service',
    why: "the exporter's Service selects a label no pod carries: its monitor has no target, and MediaExporterDown's up series is never written",
    mutate: swap(
      'apps/media/sonarr/exporter.yaml',
      '  selector:\n    app.kubernetes.io/name: sonarr\n',
      '  selector:\n    app.kubernetes.io/name: sonarr-exporter\n',
    ),
    at: '  selector:',
  },
  {
    check: 'closure-service',
    why: "the TV manager's own Service selects a label its pods lack: its route answers 503 and every app that dials sonarr.media.svc gets no answer, with no monitor behind it to notice",
    mutate: swap('apps/media/sonarr/service.yaml', '  selector:\n    app.kubernetes.io/name: sonarr\n', '  selector:\n    app.kubernetes.io/name: sonar\n'),
    at: inFile('apps/media/sonarr/service.yaml', '  selector:'),
  },
  {
    check: 'closure-service',
    why: "the transcode node dials a server address cluster DNS does not resolve (the Service's name changed)",
    mutate: swap('apps/media/tdarr/deployment.yaml', 'value: tdarr.media.svc\n', 'value: tdarr-server.media.svc\n'),
    at: 'tdarr-server.media.svc',
  },
  {
    check: 'closure-service',
    why: 'an address on a port its Service does not have',
    mutate: swap('apps/media/tdarr/deployment.yaml', 'value: tdarr.media.svc\n', 'value: tdarr.media.svc:8276\n'),
    at: 'tdarr.media.svc:8276',
  },
  {
    check: 'closure-service',
    why: "the subtitle manager's settings address a Sonarr Service that does not exist",
    mutate: swap('apps/media/bazarr/settings/bazarr.yaml', 'url: http://sonarr.media.svc:8989', 'url: http://sonarr-tv.media.svc:8989'),
    at: 'sonarr-tv.media.svc',
  },
  {
    check: 'closure-host-alias',
    why: "Sonarr's pod aliases the torrent client's Service name to 10.0.0.9 in its /etc/hosts: every download it hands over goes there, while the name still checks out",
    mutate: swap(
      'apps/media/sonarr/deployment.yaml',
      '      automountServiceAccountToken: false\n',
      '      automountServiceAccountToken: false\n      hostAliases: [{ip: 10.0.0.9, hostnames: [qbittorrent.media-vpn.svc.cluster.local]}]\n',
    ),
    at: 'hostAliases',
  },
  {
    check: 'closure-middleware',
    why: "the public proxy stops reading Traefik's CRDs, so the API's headers middleware does not exist for it",
    mutate: swap('apps/platform/ingress-public/values.yaml', '    enabled: true\n    ingressClass: gateway', '    enabled: false\n    ingressClass: gateway'),
    at: (c) => ({ file: 'apps/platform/ingress-public/values.yaml', line: lineOf(c, 'apps/platform/ingress-public/values.yaml', 'kubernetesCRD:') + 1 }),
  },
  {
    check: 'closure-middleware',
    why: "the API's headers Middleware left with every header commented out (spec: {}): a Middleware of no type, which Traefik will not build, and the public route answers 404",
    mutate: (c) => {
      const text = c.read('portfolio-api/deploy/middleware.yaml');
      c.write('portfolio-api/deploy/middleware.yaml', text.slice(0, text.indexOf('spec:\n  headers:')) + 'spec: {}\n');
    },
    at: (c) => ({ file: 'portfolio-api/deploy/middleware.yaml', line: lineOf(c, 'portfolio-api/deploy/middleware.yaml', 'spec: {}') }),
  },
  {
    check: 'closure-middleware',
    why: 'the Ingress names its middleware without the namespace Traefik puts first',
    mutate: swap(PORTFOLIO_INGRESS, 'portfolio-portfolio-headers@kubernetescrd', 'portfolio-headers@kubernetescrd'),
    at: 'router.middlewares',
  },
  {
    check: 'closure-middleware',
    why: "the API's Service names its own middleware (service.middlewares) without the namespace Traefik puts first: Traefik builds no service for it",
    mutate: swap(
      'portfolio-api/deploy/service.yaml',
      '  name: portfolio-api\n',
      '  name: portfolio-api\n  annotations:\n    traefik.ingress.kubernetes.io/service.middlewares: portfolio-headers@kubernetescrd\n',
    ),
    at: 'service.middlewares',
  },
  {
    check: 'closure-middleware',
    why: "the Ingress's middlewares key is written router.Middlewares, which Traefik's decoder reads case aside, and names a Middleware the repository does not declare",
    mutate: swap(
      PORTFOLIO_INGRESS,
      'router.middlewares: portfolio-portfolio-headers@kubernetescrd',
      'router.Middlewares: portfolio-portfolio-haeders@kubernetescrd',
    ),
    at: 'router.Middlewares',
  },
  {
    check: 'closure-middleware',
    why: "the API's route goes through a chain Middleware whose headers entry is misspelt: Traefik's builder finds no such Middleware, and the route answers 404",
    mutate: throughChain('{name: portfolio-headers}', '{name: portfolio-haeders}'),
    at: (c) => ({ file: PORTFOLIO_MIDDLEWARE, line: lineOf(c, PORTFOLIO_MIDDLEWARE, 'portfolio-haeders') }),
  },
  {
    check: 'closure-middleware',
    why: "the chain names the headers Middleware in the proxy's namespace: the public proxy's CRD provider does not allow another namespace, drops the chain, and the route answers 404",
    mutate: throughChain('{name: portfolio-headers, namespace: ingress}'),
    at: (c) => ({ file: PORTFOLIO_MIDDLEWARE, line: lineOf(c, PORTFOLIO_MIDDLEWARE, 'namespace: ingress}') }),
  },
  {
    check: 'closure-middleware',
    why: 'the chain names itself: Traefik\'s builder reports "recursion detected" and builds no router',
    mutate: throughChain('{name: portfolio-headers}', '{name: portfolio-chain, namespace: portfolio}'),
    at: (c) => ({ file: PORTFOLIO_MIDDLEWARE, line: lineOf(c, PORTFOLIO_MIDDLEWARE, '{name: portfolio-chain') }),
  },
  {
    check: 'closure-ingress-rules',
    why: "the film manager's LAN host written under lan.exmaple.net, beside every other app's lan.example.net: no client looks it up there, and the app is unreachable at its name",
    mutate: swap('apps/media/radarr/ingress.yaml', 'host: radarr.lan.example.net\n', 'host: radarr.lan.exmaple.net\n'),
    at: inFile('apps/media/radarr/ingress.yaml', 'host: radarr.lan.exmaple.net'),
  },
  {
    check: 'closure-ingress-rules',
    why: "the TV manager's Ingress routes its host through spec.defaultBackend beside a rule without http: Traefik skips the rule and reads no default backend of an Ingress with rules, so the host answers 404",
    mutate: swap(
      'apps/media/sonarr/ingress.yaml',
      '      http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend:\n              service:\n                name: sonarr\n                port:\n                  name: http\n',
      '  defaultBackend:\n    service:\n      name: sonarr\n      port:\n        name: http\n',
    ),
    at: '- host: sonarr.lan.example.net',
  },
  {
    check: 'closure-ingress-rules',
    why: "the LAN proxy's IngressClass names controller trafeik.io/ingress-controller: Traefik lists only the classes of traefik.io/ingress-controller, and no LAN app is served",
    mutate: swap('apps/platform/ingress-private/ingressclass.yaml', 'controller: traefik.io/ingress-controller', 'controller: trafeik.io/ingress-controller'),
    at: 'controller: trafeik.io/ingress-controller',
  },
  {
    check: 'public-ingress-tls',
    why: "the request manager's public Ingress lost its TLS: the proxy would answer with its self-signed certificate",
    mutate: swap('apps/media/jellyseerr/ingress.yaml', '  tls:\n    - hosts: ["requests.example.net"]\n      secretName: jellyseerr-tls\n', ''),
    at: 'host: requests.example.net',
  },
  {
    check: 'public-ingress-tls',
    why: "Plex's certificate names another host",
    mutate: swap('apps/media/plex/service.yaml', 'dnsNames: ["plex.example.net"]', 'dnsNames: ["media.example.net"]'),
    at: 'host: plex.example.net',
  },
  {
    check: 'closure-load-balancer',
    why: 'a second entry to the public proxy asks MetalLB for an address outside its pool (.240-.249)',
    mutate: (c) =>
      c.write(
        'apps/platform/ingress-public/second-entry.yaml',
        [
          'apiVersion: v1',
          'kind: Service',
          'metadata:',
          '  name: traefik-second-entry',
          '  namespace: ingress',
          '  annotations:',
          '    metallb.io/loadBalancerIPs: 192.168.1.250',
          'spec:',
          '  type: LoadBalancer',
          '  selector: {app.kubernetes.io/name: traefik, app.kubernetes.io/instance: traefik-public-ingress}',
          '  ports: [{name: web, port: 80, targetPort: web}]',
          '',
        ].join('\n'),
      ),
    at: 'metallb.io/loadBalancerIPs',
  },
  {
    check: 'closure-node-network',
    why: 'the layer-2 pool gets a second range on another VLAN: MetalLB would answer ARP for it where the router never asks',
    mutate: swap(
      'apps/platform/metallb/addresses.yaml',
      '    - 192.168.1.240-192.168.1.249\n',
      '    - 192.168.1.240-192.168.1.249\n    - 10.0.20.240-10.0.20.249\n',
    ),
    at: inFile('apps/platform/metallb/addresses.yaml', '- 10.0.20.240-10.0.20.249'),
    fix: "keep MetalLB's layer-2 pool (apps/platform/metallb/addresses.yaml) inside nodeNetwork's subnet and clear of its addresses; a fork on another LAN changes nodeNetwork in clusters/home/cluster-facts.yaml first",
  },
  {
    check: 'closure-node-network',
    why: 'the pool widened down to the gateway (.1): MetalLB could hand the router its own address',
    mutate: swap(
      'apps/platform/metallb/addresses.yaml',
      '    - 192.168.1.240-192.168.1.249\n',
      '    - 192.168.1.1-192.168.1.9\n    - 192.168.1.240-192.168.1.249\n',
    ),
    at: inFile('apps/platform/metallb/addresses.yaml', '- 192.168.1.1-192.168.1.9'),
  },
  {
    check: 'closure-node-network',
    why: "the media backups' NFS volume names the NAS nas.aln: the node cannot resolve it, the mount fails, and every backup job stays ContainerCreating",
    mutate: swap('apps/media/storage/backups.yaml', 'server: nas.lan\n', 'server: nas.aln\n'),
    at: inFile('apps/media/storage/backups.yaml', 'server: nas.aln'),
    fix: "name a machine of nodeNetwork's hosts in clusters/home/cluster-facts.yaml, or add the LAN machine there",
  },
  {
    check: 'closure-node-network',
    why: 'the second hypervisor misspelt as the exporter target: pve2.aln resolves nowhere, every scrape fails, and its host metrics are gone',
    mutate: swap('monitoring/pve-exporter/servicemonitor.yaml', 'target: [pve2.lan]\n', 'target: [pve2.aln]\n'),
    at: inFile('monitoring/pve-exporter/servicemonitor.yaml', 'target: [pve2.aln]'),
  },
  {
    check: 'closure-node-network',
    why: 'unpoller sent to the UniFi gateway at gateway.aln: the name resolves nowhere, every poll fails, and the network metrics are gone',
    mutate: swap('monitoring/unpoller/deployment.yaml', 'value: https://gateway.lan\n', 'value: https://gateway.aln\n'),
    at: inFile('monitoring/unpoller/deployment.yaml', 'value: https://gateway.aln'),
  },
  {
    check: 'closure-node-network',
    why: 'the etcd backup asks a worker for its etcd snapshot: workers run no etcd',
    mutate: swap('apps/platform/backups/etcd-backup.yaml', 'value: 192.168.1.11\n', 'value: 192.168.1.21\n'),
    at: inFile('apps/platform/backups/etcd-backup.yaml', 'value: 192.168.1.21'),
    fix: 'name a node address of nodeNetwork in clusters/home/cluster-facts.yaml as TALOS_NODE, a control-plane one where the call needs etcd',
  },
  {
    check: 'closure-node-network',
    why: "the etcd backup's node moved into a ConfigMap its envFrom names, as a worker's address: workers run no etcd",
    mutate: (c) => {
      const file = 'apps/platform/backups/etcd-backup.yaml';
      swap(
        file,
        '            - name: TALOS_NODE\n              value: 192.168.1.11\n            - name: TALOSCONFIG\n',
        '            - name: TALOSCONFIG\n',
      )(c);
      swap(
        file,
        '            envFrom:\n            - secretRef:\n                name: backup-restic\n',
        '            envFrom:\n            - secretRef:\n                name: backup-restic\n            - configMapRef:\n                name: etcd-node\n',
      )(c);
      appendConfigMap(file, { name: 'etcd-node', namespace: 'backups', data: { TALOS_NODE: '192.168.1.21' } })(c);
    },
    at: inFile('apps/platform/backups/etcd-backup.yaml', '- configMapRef:'),
    fix: 'name a node address of nodeNetwork in clusters/home/cluster-facts.yaml as TALOS_NODE, a control-plane one where the call needs etcd',
  },
  {
    check: 'closure-node-network',
    why: "Cilium sent to localhost:6443, the API server's own port, which only the control-plane nodes serve: KubePrism listens on 7445, and the agents on the workers never reach the API server",
    mutate: swap('apps/platform/cilium/values.yaml', 'k8sServicePort: 7445\n', 'k8sServicePort: 6443\n'),
    at: inFile('apps/platform/cilium/values.yaml', 'k8sServicePort: 6443'),
    fix: 'point k8sServiceHost and k8sServicePort at KubePrism as the machine config runs it (localhost and machine.features.kubePrism.port), and say so in machineConfig in clusters/home/cluster-facts.yaml',
  },
  {
    check: 'closure-node-network',
    why: 'the machine config patch without KubePrism (the facts copied from an older talosctl gen config): nothing listens on localhost:7445, and no Cilium agent reaches the API server',
    mutate: swap('clusters/home/cluster-facts.yaml', '          enabled: true\n          port: 7445\n', '          enabled: false\n          port: 7445\n'),
    at: inFile('apps/platform/cilium/values.yaml', 'k8sServiceHost: localhost'),
  },
  {
    check: 'closure-node-network',
    why: "the machine config patch turns kube-proxy off, as the kube-proxy-free Cilium guides do, while the Cilium values keep kubeProxyReplacement off: nothing routes a Service's address",
    mutate: swap(
      'clusters/home/cluster-facts.yaml',
      '      allowSchedulingOnControlPlanes: false\n',
      '      allowSchedulingOnControlPlanes: false\n      proxy:\n        disabled: true\n',
    ),
    at: inFile('apps/platform/cilium/values.yaml', 'kubeProxyReplacement: false'),
    fix: "keep kube-proxy (cluster.proxy.disabled: false, Talos' default) or turn on Cilium's kubeProxyReplacement, and say which in machineConfig in clusters/home/cluster-facts.yaml",
  },
  {
    check: 'closure-node-network',
    why: 'the machine config patch without its cni: none, as talosctl gen config writes a config by default: Talos deploys Flannel beside the Cilium the platform app deploys',
    mutate: swap('clusters/home/cluster-facts.yaml', '          name: none\n', '          name: flannel\n'),
    at: inFile('clusters/home/cluster-facts.yaml', 'machineConfig: |'),
    fix: 'tell Talos to deploy no CNI (cluster.network.cni.name: none) where the repository deploys one, and say so in machineConfig in clusters/home/cluster-facts.yaml',
  },
  {
    check: 'closure-port-name',
    why: "the TV manager's liveness probe names a port its container does not declare: the kubelet fails it and restarts the container for good",
    mutate: (c) =>
      c.edit('apps/media/sonarr/deployment.yaml', 0, (d) => d.setIn(['spec', 'template', 'spec', 'containers', 0, 'livenessProbe', 'httpGet', 'port'], 'web')),
    at: inFile('apps/media/sonarr/deployment.yaml', 'port: web'),
  },
  {
    check: 'closure-port-name',
    why: "the transcode server's Service sends its nodes to a mistyped port number (8268) the server never declares",
    mutate: swap('apps/media/tdarr/service.yaml', '      port: 8266\n      targetPort: server\n', '      port: 8266\n      targetPort: 8268\n'),
    at: inFile('apps/media/tdarr/service.yaml', 'targetPort: 8268'),
  },
  {
    check: 'closure-port-name',
    why: "the VPN pod's exporter Service sends to a port name the pod does not declare: Prometheus's target for the torrent client has no endpoint",
    mutate: swap('apps/media/gluetun/exporters.yaml', '      targetPort: metrics-qbt\n', '      targetPort: metrics-torrent\n'),
    at: inFile('apps/media/gluetun/exporters.yaml', 'targetPort: metrics-torrent'),
  },
  {
    check: 'closure-port-name',
    why: 'a Service port whose named targetPort the pod declares for UDP only: the endpoints controller matches name and protocol',
    mutate: swap('apps/media/gluetun/exporters.yaml', '      targetPort: metrics-qbt\n', '      targetPort: metrics-qbt\n      protocol: UDP\n'),
    at: inFile('apps/media/gluetun/exporters.yaml', 'targetPort: metrics-qbt'),
  },
  {
    check: 'closure-role',
    why: "the etcd backup's binding names its Role with a typo: the API server stores it, and the sentinel write before every snapshot is forbidden",
    mutate: swap('apps/platform/backups/rbac.yaml', '  name: backup-sentinel-writer\nsubjects:', '  name: backup-sentinel-writter\nsubjects:'),
    at: inFile('apps/platform/backups/rbac.yaml', 'name: backup-sentinel-writter'),
  },
  {
    check: 'closure-annotation-keys',
    why: "the Ceph cluster's Application has its sync wave under argocd.argorpoj.io: Argo CD reads no such key, and syncs it in wave 0",
    mutate: swap('apps/platform/rook-ceph-cluster/application.yaml', 'argocd.argoproj.io/sync-wave: "-6"', 'argocd.argorpoj.io/sync-wave: "-6"'),
    at: 'argocd.argorpoj.io/sync-wave',
  },
  {
    check: 'closure-annotation-keys',
    why: "the Ceph snapshot class's sync options are under argocd.argoproj.io/sync-option: Argo CD reads no such key, and the class loses SkipDryRunOnMissingResource=true",
    mutate: swap(
      'apps/platform/rook-ceph-cluster/classes.yaml',
      'argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true',
      'argocd.argoproj.io/sync-option: SkipDryRunOnMissingResource=true',
    ),
    at: 'argocd.argoproj.io/sync-option:',
  },
  {
    check: 'closure-annotation-keys',
    why: "the backups namespace's Pod Security label is written enforse: Pod Security reads no such label, and the namespace falls to the cluster's default level",
    mutate: swap(
      'clusters/home/namespaces.yaml',
      '  name: backups\n  labels:\n    # Only the backup jobs run here; they need nothing the restricted profile forbids.\n    pod-security.kubernetes.io/enforce: restricted',
      '  name: backups\n  labels:\n    # Only the backup jobs run here; they need nothing the restricted profile forbids.\n    pod-security.kubernetes.io/enforse: restricted',
    ),
    at: 'pod-security.kubernetes.io/enforse',
  },
  {
    check: 'closure-annotation-keys',
    why: "Rook's declaration that it upgrades one minor at a time written upgrade-one-minor-at-a-time: the gate reads no such key, and a pull request moving Rook two minors at once is judged as any other bump",
    mutate: swap(
      'apps/platform/rook-ceph/application.yaml',
      'gate.homelab-gitops/upgrades-one-minor-at-a-time',
      'gate.homelab-gitops/upgrade-one-minor-at-a-time',
    ),
    at: 'gate.homelab-gitops/upgrade-one-minor-at-a-time',
  },
  {
    check: 'closure-ingress-proxy-class',
    why: 'the public proxy names no Ingress class: Traefik serves every class of its controller there, the LAN-only apps on the public address',
    mutate: swap('apps/platform/ingress-public/values.yaml', '  kubernetesIngress:\n    ingressClass: gateway\n', '  kubernetesIngress: {}\n'),
    at: 'kubernetesIngress: {}',
  },
  {
    check: 'closure-ingress-proxy-class',
    why: 'the LAN proxy names its class private-gatway: no IngressClass or Ingress has that name, and the LAN proxy serves nothing',
    mutate: swap('apps/platform/ingress-private/values.yaml', 'ingressClass: private-gateway', 'ingressClass: private-gatway'),
    at: 'ingressClass: private-gatway',
  },
  {
    check: 'closure-ingress-proxy-class',
    why: 'the LAN proxy serves the public class too: the public routes are served on both addresses',
    mutate: swap('apps/platform/ingress-private/values.yaml', 'ingressClass: private-gateway', 'ingressClass: gateway'),
    at: 'ingressClass: gateway',
  },
  {
    check: 'closure-traefik-flags',
    why: 'the public proxy is started with --tracing.otlp.grpc.tls.insecureSkipVerfy: Traefik finds no such field of its configuration and exits at start, and every public route is down',
    mutate: swap('apps/platform/ingress-public/values.yaml', '      insecure: true\n', '      insecure: true\n      tls:\n        insecureSkipVerfy: true\n'),
    at: 'insecureSkipVerfy: true',
  },
  {
    check: 'traefik-headers-read',
    why: "the public API's security headers misspell frame-ancestors: browsers skip the directive, and only the older X-Frame-Options keeps the API's answers out of other sites' frames",
    mutate: swap('portfolio-api/deploy/middleware.yaml', "frame-ancestors 'none'", "farme-ancestors 'none'"),
    at: 'contentSecurityPolicy:',
  },
  {
    check: 'traefik-headers-read',
    why: "the public API's policy runs its two directives together: frame-ancestors is read as a host default-src allows",
    mutate: swap('portfolio-api/deploy/middleware.yaml', "default-src 'none'; frame-ancestors", "default-src 'none' frame-ancestors"),
    at: 'contentSecurityPolicy:',
  },
  {
    check: 'closure-traefik-annotations',
    why: "the portfolio's Ingress names its middlewares under router.midlewares: Traefik's decoder finds no such field and drops the Ingress, and the public API answers 404",
    mutate: swap('portfolio-api/deploy/ingress.yaml', 'traefik.ingress.kubernetes.io/router.middlewares:', 'traefik.ingress.kubernetes.io/router.midlewares:'),
    at: 'traefik.ingress.kubernetes.io/router.midlewares',
  },
  {
    check: 'closure-traefik-annotations',
    why: "the portfolio's Service asks Traefik to reach its pods in htps: the proxy's transport speaks no such scheme, and every request to the public API is a 500",
    mutate: swap(
      'portfolio-api/deploy/service.yaml',
      '  namespace: portfolio\n  labels:\n',
      '  namespace: portfolio\n  annotations:\n    traefik.ingress.kubernetes.io/service.serversscheme: htps\n  labels:\n',
    ),
    at: 'traefik.ingress.kubernetes.io/service.serversscheme',
  },
  {
    check: 'closure-annotation-keys',
    why: "bazarr's backup target is marked config.kubernetes.io/lcoal-config: kustomize reads no such key, and applies the record meant for its build alone",
    mutate: swap('apps/media/bazarr/backup-target.yaml', 'config.kubernetes.io/local-config', 'config.kubernetes.io/lcoal-config'),
    at: 'config.kubernetes.io/lcoal-config',
  },
  {
    check: 'closure-secret-key',
    why: "the secret store reads its service account's token under key otken: the Secret bootstrap makes holds token alone, the store never authenticates, and no ExternalSecret is written",
    mutate: swap('apps/platform/external-secrets/clustersecretstore.yaml', '          key: token\n', '          key: otken\n'),
    at: 'key: otken',
  },
  {
    check: 'closure-volume',
    why: 'the backups share is mounted with "onatime" for noatime: the NFS client knows no such option, the mount fails, and no backup job starts',
    mutate: swap('apps/media/storage/backups.yaml', '"hard", "noatime"]', '"hard", "onatime"]'),
    at: 'mountOptions: ["nfsvers=4.1", "hard", "onatime"]',
  },
  {
    check: 'closure-volume',
    why: 'Sonarr\'s config claim asks for no class (storageClassName ""): Ceph\'s provisioner never serves it, every volume without a class is reserved for another claim, and Sonarr stays Pending',
    mutate: swap('apps/media/sonarr/pvc.yaml', '  storageClassName: ceph-block\n', '  storageClassName: ""\n'),
    at: 'storageClassName: ""',
  },
  {
    check: 'closure-volume',
    why: "the torrent client's share volume is reserved for media's claim: media-vpn's claim of it stays Pending, and so does the VPN pod",
    mutate: swap(
      'apps/media/gluetun/storage.yaml',
      '  claimRef:\n    namespace: media-vpn\n    name: media-data\n',
      '  claimRef:\n    namespace: media\n    name: media-data\n',
    ),
    at: inFile('apps/media/gluetun/storage.yaml', 'volumeName: media-data-vpn'),
  },
  {
    check: 'closure-volume',
    why: "the share's claim lost its empty class: admission gives it the default class (ceph-block), and the NAS volume has none",
    mutate: swap('apps/media/storage/share.yaml', '  storageClassName: ""\n  volumeName: media-data\n', '  volumeName: media-data\n'),
    at: inFile('apps/media/storage/share.yaml', 'volumeName: media-data'),
  },
  {
    check: 'closure-volume',
    why: "the VPN pod's backups claim requests more than its volume holds",
    mutate: swap(
      'apps/media/gluetun/storage.yaml',
      '  volumeName: media-vpn-backups\n  resources:\n    requests:\n      storage: 500Gi\n',
      '  volumeName: media-vpn-backups\n  resources:\n    requests:\n      storage: 600Gi\n',
    ),
    at: inFile('apps/media/gluetun/storage.yaml', 'volumeName: media-vpn-backups'),
  },
  {
    check: 'closure-load-balancer',
    why: 'two Services ask MetalLB for the same address without sharing it',
    mutate: (c) => {
      const service = (name: string) =>
        `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: ingress\n  annotations:\n    metallb.io/loadBalancerIPs: 192.168.1.245\nspec:\n  type: LoadBalancer\n  selector: {app.kubernetes.io/name: traefik}\n  ports: [{name: web, port: 80, targetPort: web}]\n`;
      c.write('apps/platform/ingress-public/second-entry.yaml', `${service('traefik-entry-a')}---\n${service('traefik-entry-b')}`);
    },
    at: (c) => ({
      file: 'apps/platform/ingress-public/second-entry.yaml',
      line: c.read('apps/platform/ingress-public/second-entry.yaml').split('\n').lastIndexOf('    metallb.io/loadBalancerIPs: 192.168.1.245') + 1,
    }),
  },
  {
    check: 'closure-load-balancer',
    why: "a game server's LoadBalancer pinned to a pool by the name MetalLB's docs use (metallb.io/address-pool: production): MetalLB has no such pool, and the Service stays <pending>",
    mutate: (c) =>
      c.write(
        'apps/platform/ingress-public/game-server.yaml',
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: game-server\n  namespace: ingress\n  annotations:\n    metallb.io/address-pool: production\nspec:\n  type: LoadBalancer\n  selector: {app.kubernetes.io/name: traefik}\n  ports: [{name: game, port: 25565, targetPort: web}]\n',
      ),
    at: inFile('apps/platform/ingress-public/game-server.yaml', 'metallb.io/address-pool: production'),
  },
  {
    check: 'closure-load-balancer',
    why: 'a second pool for LAN-only Services (.230-.239) and a Service pinned to it, while the L2Advertisement still names only the first pool: the Service gets .230, and no node answers ARP for it',
    mutate: (c) => {
      c.write(
        'apps/platform/metallb/addresses.yaml',
        c
          .read('apps/platform/metallb/addresses.yaml')
          .replace(
            '---\n',
            '---\napiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: lan-only\n  namespace: metallb-system\n  annotations:\n    argocd.argoproj.io/sync-wave: "1"\n    argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true\nspec:\n  addresses:\n    - 192.168.1.230-192.168.1.239\n  autoAssign: false\n---\n',
          ),
      );
      c.write(
        'apps/platform/ingress-public/lan-only.yaml',
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: lan-dashboard\n  namespace: ingress\n  annotations:\n    metallb.io/address-pool: lan-only\nspec:\n  type: LoadBalancer\n  selector: {app.kubernetes.io/name: traefik}\n  ports: [{name: web, port: 80, targetPort: web}]\n',
      );
    },
    at: inFile('apps/platform/ingress-public/lan-only.yaml', '  type: LoadBalancer'),
  },
  {
    check: 'closure-load-balancer',
    why: 'layer-2 announcements kept to the workers by node-role.kubernetes.io/worker, a label Talos never gives a node: every address MetalLB hands out is announced by no node',
    mutate: (c) => {
      c.write(
        'apps/platform/metallb/addresses.yaml',
        c
          .read('apps/platform/metallb/addresses.yaml')
          .replace('  ipAddressPools: [lan]\n', '  ipAddressPools: [lan]\n  nodeSelectors:\n    - matchLabels:\n        node-role.kubernetes.io/worker: ""\n'),
      );
      c.write(
        'apps/platform/ingress-public/lan-only.yaml',
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: lan-dashboard\n  namespace: ingress\nspec:\n  type: LoadBalancer\n  selector: {app.kubernetes.io/name: traefik}\n  ports: [{name: web, port: 80, targetPort: web}]\n',
      );
    },
    at: inFile('apps/platform/ingress-public/lan-only.yaml', '  type: LoadBalancer'),
  },
  {
    check: 'closure-secret-key',
    why: "the hypervisor exporter's ExternalSecret stops reading the cluster's CA, which its template still writes: External Secrets fails the template, and the exporter's config is never written",
    mutate: swap('monitoring/pve-exporter/externalsecret.yaml', '    - secretKey: ca\n      remoteRef:\n        key: pve-exporter/pve-root-ca\n', ''),
    at: 'pve-root-ca.pem: "{{ .ca }}"',
  },
  {
    check: 'closure-secret-key',
    why: "the etcd backups' Secret decodes the restic password with a function External Secrets does not define (b64decode, where sprig's is b64dec): it cannot parse the template, the sync fails, and no Secret is written",
    mutate: swap('apps/platform/backups/secrets.yaml', 'RESTIC_PASSWORD: "{{ .password }}"', 'RESTIC_PASSWORD: "{{ .password | b64decode }}"'),
    at: 'RESTIC_PASSWORD: "{{ .password | b64decode }}"',
  },
  {
    check: 'closure-secret-key',
    why: "the API's STATUS_FILE names a file the status writer never writes into its ConfigMap (it writes status.json): the page serves its built-in snapshot forever",
    mutate: swap(PORTFOLIO_DEPLOYMENT, 'value: /status/status.json', 'value: /status/state.json'),
    at: 'value: /status/state.json',
  },
  {
    check: 'closure-secret-key',
    why: "the TV manager's exporter reads a key its API-key Secret does not have",
    mutate: swap(
      'apps/media/sonarr/deployment.yaml',
      '                  name: sonarr-api-key\n                  key: api-key\n',
      '                  name: sonarr-api-key\n                  key: apikey\n',
    ),
    at: 'key: apikey',
  },
  {
    check: 'closure-secret-key',
    why: "the API's status volume mounted at /tsatus: STATUS_FILE still names /status/status.json, on the image where nothing is, and the status page serves its built-in snapshot for good",
    mutate: swap('portfolio-api/deploy/deployment.yaml', '              mountPath: /status\n', '              mountPath: /tsatus\n'),
    at: 'value: /status/status.json',
  },
  {
    check: 'closure-service',
    why: "radarr-4k's exporter ServiceMonitor left with no endpoint: the operator writes no scrape job, and the 4K manager's queue is never watched",
    mutate: swap('apps/media/radarr-4k/exporter.yaml', /  endpoints:\n(    [^\n]*\n|      [^\n]*\n)+/, '  endpoints: []\n'),
    at: inFile('apps/media/radarr-4k/exporter.yaml', 'endpoints: []'),
  },
  {
    check: 'closure-secret-key',
    why: "the restore drill's backups volume mounted at /backup: BACKUP_DIR still names /backups, on the image, and the drill finds no backup to restore (backup-job-hygiene leaves a slip to this check)",
    mutate: swap('apps/platform/backups/restore-test.yaml', 'mountPath: /backups', 'mountPath: /backup'),
    at: 'value: /backups',
  },
  {
    check: 'closure-extended-resource',
    why: 'the GPU device plugin no longer says it advertises gpu.intel.com/i915, so nothing offers what Plex and the Tdarr node ask for',
    mutate: swap('apps/platform/intel-gpu-plugin/daemonset.yaml', '    gate.homelab-gitops/advertises-resources: gpu.intel.com/i915\n', ''),
    at: inFile('apps/media/plex/deployment.yaml', 'gpu.intel.com/i915'),
  },
  {
    check: 'closure-node',
    why: 'the API is pinned to the control-plane nodes, beside the API server, without tolerating the taint Talos gives them: no node takes it, and it stays Pending',
    mutate: swap(
      PORTFOLIO_DEPLOYMENT,
      '      automountServiceAccountToken: false\n',
      '      automountServiceAccountToken: false\n      nodeSelector:\n        node-role.kubernetes.io/control-plane: ""\n',
    ),
    at: inFile(PORTFOLIO_DEPLOYMENT, '      nodeSelector:'),
    fix: "tolerate the taint of the nodes the pod is pinned to (tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]), or select labels the nodes carry; a label the nodes' machine config gives them (machine.nodeLabels) goes in the cluster facts' machineConfig too",
  },
  {
    check: 'closure-node',
    why: "the API's four replicas are kept one to a node, and only the three workers take them: one stays Pending",
    mutate: apiOneToANode('  replicas: 4\n'),
    at: inFile(PORTFOLIO_DEPLOYMENT, '            - topologyKey: kubernetes.io/hostname'),
    fix: 'ask for at most as many replicas as there are nodes that take them, or make the anti-affinity preferred',
  },
  {
    check: 'closure-node',
    why: "the API's three replicas are kept one to a node on the three workers, and its rolling update starts a pod before it stops one: the new pod has no node, and the rollout never ends",
    mutate: apiOneToANode('  replicas: 3\n  strategy:\n    rollingUpdate: {maxUnavailable: 0}\n'),
    at: inFile(PORTFOLIO_DEPLOYMENT, '            - topologyKey: kubernetes.io/hostname'),
    fix: 'let the rolling update take a pod away first (maxUnavailable: 1, or maxSurge: 0), or make the anti-affinity preferred',
  },
  {
    check: 'closure-node',
    why: "the VPN pod's control server asks the node for port 10250, where Talos' kubelet listens on every node: the two cannot share it",
    mutate: swap(PRIVILEGED_NS_DEPLOYMENT, '              containerPort: 8000\n', '              containerPort: 8000\n              hostPort: 10250\n'),
    at: inFile(PRIVILEGED_NS_DEPLOYMENT, '              hostPort: 10250'),
    fix: "ask for a host port nothing else on those nodes listens on (another DaemonSet, or Talos itself: the kubelet's 10250, apid's 50000; on the control-plane nodes etcd's 2379 and 2380, the API server's 6443, 10257, 10259, trustd's 50001), or for none: a Service reaches the pod",
  },
  {
    check: 'closure-node',
    why: "the GPU plugin's metrics are published on each node's port 9090, and its rolling update is made to start each node's new pod before it stops the old one: the old pod holds the port, and the update stalls at the first node",
    mutate: (c) => {
      swap(GPU_PLUGIN, '      maxSurge: 0\n      maxUnavailable: 1\n', '      maxSurge: 1\n      maxUnavailable: 0\n')(c);
      gpuPluginHostPort(9090)(c);
    },
    at: inFile(GPU_PLUGIN, '      maxSurge: 1'),
    fix: 'let the rolling update stop the old pod first: updateStrategy.rollingUpdate.maxSurge: 0, with maxUnavailable: 1',
  },
  {
    check: 'closure-node',
    why: "the API is spread over zones, as a cloud's chart would spread it, and must be (DoNotSchedule): no node of the lab has a zone, and the scheduler places it on none",
    mutate: swap(
      PORTFOLIO_DEPLOYMENT,
      '      automountServiceAccountToken: false\n',
      '      automountServiceAccountToken: false\n      topologySpreadConstraints:\n        - maxSkew: 1\n          topologyKey: topology.kubernetes.io/zone\n          whenUnsatisfiable: DoNotSchedule\n          labelSelector:\n            matchLabels:\n              app.kubernetes.io/name: portfolio-api\n',
    ),
    at: inFile(PORTFOLIO_DEPLOYMENT, '      topologySpreadConstraints:'),
  },
  {
    check: 'closure-node',
    why: "the GPU plugin, now on every worker whatever its architecture, publishes its metrics on each node's port 8000, which the VPN pod's control server also asks the node for: every node that takes the VPN pod has the port taken",
    mutate: (c) => {
      swap(GPU_PLUGIN, '      nodeSelector:\n        kubernetes.io/arch: amd64\n', '')(c);
      gpuPluginHostPort(8000)(c);
      swap(PRIVILEGED_NS_DEPLOYMENT, '              containerPort: 8000\n', '              containerPort: 8000\n              hostPort: 8000\n')(c);
    },
    at: inFile(PRIVILEGED_NS_DEPLOYMENT, '              hostPort: 8000'),
    fix: "ask for a host port nothing else on those nodes listens on (another DaemonSet, or Talos itself: the kubelet's 10250, apid's 50000; on the control-plane nodes etcd's 2379 and 2380, the API server's 6443, 10257, 10259, trustd's 50001), or for none: a Service reaches the pod",
  },
  {
    check: 'closure-node',
    why: 'the TV manager asks by node affinity for a node that is no Linux node: every Talos node is one',
    mutate: swap(
      'apps/media/sonarr/deployment.yaml',
      '      automountServiceAccountToken: false\n',
      '      automountServiceAccountToken: false\n      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n              - matchExpressions:\n                  - {key: kubernetes.io/os, operator: In, values: [windows]}\n',
    ),
    at: inFile('apps/media/sonarr/deployment.yaml', '        nodeAffinity:'),
  },
  {
    check: 'closure-node',
    why: 'the cluster facts say the three control-plane nodes are all the nodes, and their machine config keeps them from running workloads: nothing runs',
    mutate: (c) => {
      swap('clusters/home/cluster-facts.yaml', '  nodeCount: "6"\n', '  nodeCount: "3"\n')(c);
      swap('clusters/home/cluster-facts.yaml', /    workers: \[[^\n]*\]\n/, '    workers: []\n')(c);
    },
    at: inFile('clusters/home/cluster-facts.yaml', '  machineConfig: |'),
    fix: 'set cluster.allowSchedulingOnControlPlanes: true in the machine config and in the cluster facts (machineConfig), or add worker nodes',
  },
  {
    check: 'closure-device-capacity',
    why: "the GPU plugin gives the lab's one GPU to one container again: Plex and the Tdarr node both ask for it, and one of them stays Pending",
    mutate: swap('apps/platform/intel-gpu-plugin/daemonset.yaml', '          args: ["-shared-dev-num=2"]\n', ''),
    at: inFile('apps/media/plex/deployment.yaml', 'gpu.intel.com/i915'),
  },
  {
    check: 'closure-device-capacity',
    why: 'the sharing flag is given as two words, the way Go reads it too, and says one container',
    mutate: swap('apps/platform/intel-gpu-plugin/daemonset.yaml', 'args: ["-shared-dev-num=2"]', 'args: ["--shared-dev-num", "1"]'),
    at: inFile('apps/media/tdarr/deployment.yaml', 'gpu.intel.com/i915'),
  },
  {
    check: 'closure-extended-resource',
    why: "Plex, running as user 1000, is not in the group that owns the GPU's device files",
    mutate: swap('apps/media/plex/deployment.yaml', /( {8}# The GPU's device nodes[^\n]*\n[^\n]*\n) {8}supplementalGroups: \[44\]\n/, ''),
    at: inFile('apps/media/plex/deployment.yaml', '      securityContext:'),
  },
  {
    check: 'closure-secret-key',
    why: "the issuer reads Cloudflare's token under a key its Secret does not have",
    mutate: swap(
      'apps/platform/cert-manager/clusterissuer.yaml',
      'name: cloudflare-api-token\n              key: api-token',
      'name: cloudflare-api-token\n              key: token',
    ),
    at: 'key: token',
  },
  {
    check: 'closure-secret-key',
    why: "the hypervisor exporter's CA bundle variable names a file its Secret does not write",
    mutate: swap('monitoring/pve-exporter/deployment.yaml', 'value: /etc/pve-exporter/pve-root-ca.pem', 'value: /etc/pve-exporter/ca.pem'),
    at: 'value: /etc/pve-exporter/ca.pem',
  },
  {
    check: 'closure-secret-key',
    why: "the hypervisor exporter's CA bundle variable moved into a ConfigMap its envFrom names, naming a file its Secret does not write",
    mutate: (c) => {
      const file = 'monitoring/pve-exporter/deployment.yaml';
      swap(
        file,
        "          env:\n            # Python's requests trusts only its public roots unless given a CA file: the hosts' cluster CA.\n            - name: REQUESTS_CA_BUNDLE\n              value: /etc/pve-exporter/pve-root-ca.pem\n",
        '          envFrom:\n            - configMapRef:\n                name: pve-exporter-settings\n',
      )(c);
      appendConfigMap(file, { name: 'pve-exporter-settings', namespace: 'monitoring', data: { REQUESTS_CA_BUNDLE: '/etc/pve-exporter/ca.pem' } })(c);
    },
    at: inFile('monitoring/pve-exporter/deployment.yaml', '- configMapRef:'),
  },
  {
    check: 'closure-secret-key',
    why: "the folder job's script reads a table its ConfigMap does not hold",
    mutate: swap('apps/media/storage/folders.yaml', 'done < /folders/folders.tsv', 'done < /folders/folder-table.tsv'),
    // The script is one block scalar: the finding names the line it starts on.
    at: (c) => lineOf(c, 'apps/media/storage/folders.yaml', 'args:') + 1,
  },
  {
    check: 'closure-storage-class',
    why: 'the StorageClass the claims ask for renamed',
    mutate: swap(CLASSES, 'name: ceph-block\n  annotations:\n    storageclass', 'name: ceph-rbd\n  annotations:\n    storageclass'),
    at: 'storageClassName: ceph-block',
  },
  {
    check: 'closure-storage-class',
    why: 'the snapshot class VolSync uses renamed',
    mutate: swap(CLASSES, 'name: ceph-block\n  annotations:\n    snapshot', 'name: ceph-snapshots\n  annotations:\n    snapshot'),
    at: inFile(COPY_COMPONENT, 'volumeSnapshotClassName: ceph-block'),
  },
  {
    check: 'closure-storage-class',
    why: "the storage platform app's classes removed",
    mutate: (c) => c.remove('apps/platform/rook-ceph-cluster/classes.yaml'),
    at: 'storageClassName: ceph-block',
  },
  {
    check: 'closure-ingress-class',
    why: 'the private IngressClass renamed',
    mutate: swap('apps/platform/ingress-private/ingressclass.yaml', 'name: private-gateway', 'name: lan-gateway'),
    at: 'ingressClassName: private-gateway',
  },
  // The public API's headers middleware goes with the proxy whose CRD it needs, or closure-crd would name it too.
  {
    check: 'closure-ingress-class',
    why: 'the public proxy app removed',
    mutate: (c) => {
      c.remove('apps/platform/ingress-public');
      c.remove('portfolio-api/deploy/middleware.yaml');
    },
    at: inFile(PORTFOLIO_INGRESS, 'ingressClassName: gateway'),
  },
  {
    check: 'closure-secret-store',
    why: 'the store every ExternalSecret reads renamed',
    mutate: swap('apps/platform/external-secrets/clustersecretstore.yaml', 'name: homelab', 'name: vault'),
    at: 'name: homelab',
  },
  {
    check: 'closure-secret-store',
    why: 'an ExternalSecret naming a store nobody declares',
    mutate: swap('monitoring/kube-prometheus-stack/externalsecrets.yaml', 'name: homelab', 'name: homelab-old'),
    at: 'name: homelab-old',
  },
  {
    check: 'closure-issuer',
    why: 'the ClusterIssuer the Certificate names renamed',
    mutate: swap('apps/platform/cert-manager/clusterissuer.yaml', 'name: letsencrypt\n', 'name: letsencrypt-production\n'),
    at: inFile(PORTFOLIO_INGRESS, 'name: letsencrypt'),
  },
  {
    check: 'closure-acme-solver',
    why: "the ClusterIssuer's DNS-01 solver narrowed to the LAN zone: cert-manager picks no solver for the public names, and their Orders fail",
    mutate: swap(
      'apps/platform/cert-manager/clusterissuer.yaml',
      '    solvers:\n      - dns01:\n',
      '    solvers:\n      - selector:\n          dnsZones: ["lan.example.net"]\n        dns01:\n',
    ),
    at: inFile(PORTFOLIO_INGRESS, 'dnsNames: ["portfolio.example.net"]'),
  },
  {
    check: 'closure-acme-key',
    why: "Plex's certificate asks Let's Encrypt for a P-521 key: cert-manager accepts it, Let's Encrypt refuses the CSR at finalize, and Plex's TLS is never issued",
    mutate: swap(
      'apps/media/plex/service.yaml',
      '\n  secretName: plex-tls\n  dnsNames',
      '\n  secretName: plex-tls\n  privateKey:\n    algorithm: ECDSA\n    size: 521\n  dnsNames',
    ),
    at: inFile('apps/media/plex/service.yaml', 'size: 521'),
  },
  {
    check: 'closure-acme-key',
    why: "the API's certificate asks for an Ed25519 key, which no public CA signs: the Order fails and the public site keeps no certificate",
    mutate: swap(
      PORTFOLIO_INGRESS,
      '  secretName: portfolio-tls\n  dnsNames',
      '  secretName: portfolio-tls\n  privateKey:\n    algorithm: Ed25519\n  dnsNames',
    ),
    at: inFile(PORTFOLIO_INGRESS, 'algorithm: Ed25519'),
  },
  {
    check: 'closure-crd',
    why: 'the snapshot-controller platform app removed, and with it the VolumeSnapshot CRDs',
    mutate: removeApp('apps/platform/snapshot-controller', 'snapshot-controller'),
    at: inFile(CLASSES, 'apiVersion: snapshot.storage.k8s.io/v1'),
  },
  {
    check: 'closure-crd',
    why: "the secret store's operator no longer says it installs the ExternalSecret CRDs",
    mutate: (c) =>
      c.write(
        'apps/platform/external-secrets/application.yaml',
        c.read('apps/platform/external-secrets/application.yaml').replace(/ +gate\.homelab-gitops\/provides-crds: .*\n/, ''),
      ),
    at: 'apiVersion: external-secrets.io/v1',
  },
  {
    check: 'closure-priority-class',
    why: 'a pod asking for a PriorityClass nobody declares',
    mutate: (c) => c.edit('apps/media/unpackerr/deployment.yaml', 0, (d) => d.setIn(['spec', 'template', 'spec', 'priorityClassName'], 'homelab-critical')),
    at: 'priorityClassName: homelab-critical',
  },
  {
    check: 'closure-runtime-class',
    why: 'Plex asking for the nvidia RuntimeClass, which no manifest declares (the Talos extension installs the handler, not the object)',
    mutate: (c) => c.edit('apps/media/plex/deployment.yaml', 0, (d) => d.setIn(['spec', 'template', 'spec', 'runtimeClassName'], 'nvidia')),
    at: 'runtimeClassName: nvidia',
  },
  {
    check: 'closure-namespace',
    why: 'the cert-manager namespace renamed in namespaces.yaml, so nothing creates the one the app uses',
    mutate: swap('clusters/home/namespaces.yaml', '  name: cert-manager\n', '  name: certmanager\n'),
    at: 'namespace: cert-manager',
  },
  {
    check: 'closure-api-key',
    why: "Unpackerr sends the 4K movie manager the key of the other movie manager: both Secrets are the store's, but different items, so every call to the 4K manager gets 401 and its downloads stay packed",
    mutate: swap('apps/media/unpackerr/deployment.yaml', '                  name: radarr-4k-api-key\n', '                  name: radarr-api-key\n'),
    at: after('apps/media/unpackerr/deployment.yaml', '            - name: UN_RADARR_1_API_KEY', '              valueFrom:'),
  },
  {
    check: 'closure-api-key',
    why: "the TV manager's exporter, in its pod at localhost, reads the movie manager's key: the store's, but another item, so every scrape gets 401 and the TV metrics are gone",
    mutate: (c) => {
      const file = 'apps/media/sonarr/deployment.yaml';
      const text = c.read(file);
      const exporter = text.indexOf('            - name: APIKEY\n');
      c.write(
        file,
        text.slice(0, exporter) + text.slice(exporter).replace('                  name: sonarr-api-key\n', '                  name: radarr-api-key\n'),
      );
    },
    at: after('apps/media/sonarr/deployment.yaml', '            - name: APIKEY', '              valueFrom:'),
  },
  {
    check: 'closure-api-key',
    why: "the 4K subtitle manager takes the other subtitle manager's key as its own (DYNACONF_AUTH__APIKEY, which its settings read over config.yaml) while its exporter sends its own: every scrape gets 401",
    mutate: swap(
      'apps/media/bazarr-4k/deployment.yaml',
      '            - name: DYNACONF_AUTH__APIKEY\n              valueFrom:\n                secretKeyRef:\n                  name: bazarr-4k-api-key\n',
      '            - name: DYNACONF_AUTH__APIKEY\n              valueFrom:\n                secretKeyRef:\n                  name: bazarr-api-key\n',
    ),
    at: after('apps/media/bazarr-4k/deployment.yaml', '            - name: APIKEY', '              valueFrom:'),
  },
  {
    check: 'closure-api-key',
    why: "the 4K subtitle manager calls the 4K movie manager its settings name (radarr.url) with the other movie manager's key: the store's, but another item, so every call gets 401 and no 4K movie gets subtitles",
    mutate: bazarr4kSendsRadarrKey,
    at: after('apps/media/bazarr-4k/deployment.yaml', '            - name: DYNACONF_RADARR__APIKEY', '              valueFrom:'),
  },
  {
    check: 'secret-store-budget',
    why: "the TV manager's key re-read every minute: 1,440 reads a day of a store whose 1Password account allows 1,000, so by afternoon no ExternalSecret syncs",
    mutate: swap('apps/media/sonarr/exporter.yaml', '  refreshInterval: 24h\n', '  refreshInterval: 1m\n'),
    at: (c) => ({
      file: 'apps/platform/external-secrets/clustersecretstore.yaml',
      line: lineOf(c, 'apps/platform/external-secrets/clustersecretstore.yaml', '  provider:'),
    }),
  },
  {
    check: 'secret-store-reference',
    why: "the TV manager's key read in the Connect provider's form, the item in key and its field in property: the 1Password SDK store resolves op://homelab/sonarr, which names no field, and the exporter's Secret is never written",
    mutate: swap('apps/media/sonarr/exporter.yaml', '        key: sonarr/api-key\n', '        key: sonarr\n        property: api-key\n'),
    at: 'property: api-key',
  },
  {
    check: 'secret-store-reference',
    why: "the VPN's private key read by the item's title alone: op://homelab/vpn is no secret reference, and gluetun's Secret is never written",
    mutate: swap('apps/media/gluetun/storage.yaml', '        key: vpn/wireguard-private-key\n', '        key: vpn\n'),
    at: inFile('apps/media/gluetun/storage.yaml', '        key: vpn'),
  },
  {
    check: 'secret-store-reference',
    why: 'the chat webhook asked for at an earlier version: the 1Password SDK provider implements none, and the Secret is never written',
    mutate: swap(
      'monitoring/kube-prometheus-stack/externalsecrets.yaml',
      '        key: chat-webhook/url\n',
      '        key: chat-webhook/url\n        version: "2"\n',
    ),
    at: 'version: "2"',
  },
  {
    check: 'closure-autoscaler',
    why: "an autoscaler for the API, its target's name misspelt, in a cluster with no metrics-server: it finds nothing to scale, nor the CPU it scales by",
    mutate: (c) => c.write(API_AUTOSCALER, apiAutoscaler('portfolio-apii')),
    at: inFile(API_AUTOSCALER, 'name: portfolio-apii'),
  },
  {
    check: 'closure-ceph-daemons',
    why: 'five monitors for more failure tolerance, on a cluster whose three workers alone take them (the control-plane nodes keep their taint): two stay Pending, and Rook never gets past its monitors to make an OSD',
    mutate: swap(CEPH_VALUES, '  mon:\n    count: 3\n', '  mon:\n    count: 5\n'),
    at: inFile(CEPH_VALUES, '    count: 5'),
    fix: 'run as many monitors as nodes take them (mon.count, an odd number), or let the monitors onto more nodes (placement.mon or placement.all: tolerations, node affinity)',
  },
  {
    check: 'closure-ceph-daemons',
    why: 'the block pool keeps four replicas, one per host, and OSDs run on the three workers: its placement groups never hold the fourth',
    mutate: swap(CEPH_VALUES, '        size: 3\n', '        size: 4\n'),
    at: inFile(CEPH_VALUES, '        size: 4'),
    fix: 'keep as many replicas (replicated.size), or data and coding chunks (erasureCoded), as hosts run OSDs, or let the OSDs onto more hosts (placement.osd or placement.all, storage.nodes)',
  },
  {
    check: 'closure-ceph-daemons',
    why: 'the block pool erasure coded 4+2, as a guide for a larger cluster has it: each chunk on a host of its own, six chunks, and OSDs on three hosts: its placement groups never become active, and no volume takes a write',
    mutate: swap(CEPH_VALUES, '      replicated:\n        size: 3\n', '      erasureCoded:\n        dataChunks: 4\n        codingChunks: 2\n'),
    at: inFile(CEPH_VALUES, '      erasureCoded:'),
  },
  {
    check: 'ceph-pool-accepted',
    why: "the block pool's failure domain written as the Kubernetes word, node: no CRUSH type has that name, so Rook refuses the pool, creates nothing in Ceph, and no volume is provisioned",
    mutate: swap(CEPH_VALUES, '      failureDomain: host\n', '      failureDomain: node\n'),
    at: inFile(CEPH_VALUES, '      failureDomain: node'),
  },
  {
    check: 'ceph-cluster-accepted',
    why: "Ceph's data moved to /rook on the host, a short path of its own: Rook reserves it, logs the error and leaves the cluster alone, with no condition, and no Ceph daemon ever runs",
    mutate: swap(CEPH_VALUES, '  dataDirHostPath: /var/lib/rook\n', '  dataDirHostPath: /rook\n'),
    at: inFile(CEPH_VALUES, '  dataDirHostPath: /rook'),
  },
];
