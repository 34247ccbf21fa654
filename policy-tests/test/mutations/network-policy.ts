/** Broken copies of the real repository for the checks of policy-tests/checks/network-policy/network-policy.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { lineOf } from '../support/helpers.ts';
import { after, EGRESS, inFile, SERVICE, swap } from './edits.ts';

const POLICY = 'portfolio-api/deploy/networkpolicy.yaml';
const STATUS_WRITER = 'portfolio-api/deploy/status-writer.yaml';
const FACTS = 'clusters/home/cluster-facts.yaml';
const CILIUM_FACT = `    name: cilium
    enforces:
      - networking.k8s.io/NetworkPolicy
      - cilium.io/CiliumNetworkPolicy
      - cilium.io/CiliumClusterwideNetworkPolicy
    fqdnEgress: true`;

/** A webhook the platform's folder may apply (its project admits webhook configurations), served by the API's Service. */
const WEBHOOK = 'apps/platform/cert-manager/portfolio-webhook.yaml';
const WEBHOOK_TEXT = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: portfolio-content
webhooks:
  - name: content.portfolio.homelab-gitops.dev
    clientConfig:
      service:
        namespace: portfolio
        name: portfolio-api
        port: 80
        path: /validate
    rules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["configmaps"]
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: portfolio
    sideEffects: None
    admissionReviewVersions: ["v1"]
`;

export const networkPolicyMutations: Mutation[] = [
  {
    check: 'service-external-ips',
    why: "Sonarr's Service claims the NAS's address (externalIPs: [192.168.1.5]): kube-proxy sends every pod's and node's traffic to the NAS on 8989 to Sonarr, and a Service of anyone's could claim any machine the same way",
    mutate: swap('apps/media/sonarr/service.yaml', '  selector:\n', '  externalIPs: [192.168.1.5]\n  selector:\n'),
    at: 'externalIPs',
  },
  {
    check: 'network-policy-webhook-path',
    why: "a validating webhook for the portfolio's ConfigMaps, served by the API's Service: the API's policies let in only the proxy and Prometheus, the API server (on the control-plane nodes' network, no pod) is let in by none, and every ConfigMap write in portfolio times out and is refused",
    mutate: (c) => c.write(WEBHOOK, WEBHOOK_TEXT),
    at: (c) => ({ file: WEBHOOK, line: lineOf(c, WEBHOOK, '      service:') }),
  },
  {
    check: 'network-policy-api-egress',
    why: "the status writer's way to the API server written for the kubernetes Service's port, 443: Cilium enforces egress after the Service's address is translated, so it sees 6443, and every request of the writer times out",
    mutate: (c) =>
      c.write(
        POLICY,
        c
          .read(POLICY)
          .replace(
            '    - toEntities: [kube-apiserver]\n      toPorts:\n        - ports:\n            - port: "6443"',
            '    - toEntities: [kube-apiserver]\n      toPorts:\n        - ports:\n            - port: "443"',
          ),
      ),
    at: (c) => ({ file: STATUS_WRITER, line: lineOf(c, STATUS_WRITER, 'serviceAccountName: portfolio-status-writer') - 1 }),
  },
  {
    check: 'network-policy-selects',
    why: 'a policy added for the API selects a label its pods do not carry',
    mutate: (c) =>
      c.write(
        POLICY,
        `${c.read(POLICY)}---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: portfolio-extra\n  namespace: portfolio\nspec:\n  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: portfolio\n  policyTypes: ["Ingress"]\n  ingress:\n    - from:\n        - namespaceSelector:\n            matchLabels:\n              kubernetes.io/metadata.name: monitoring\n`,
      ),
    at: (c) => ({ file: POLICY, line: lineOf(c, POLICY, 'name: portfolio-extra') + 3 }),
  },
  {
    check: 'network-policy-selects',
    why: "the etcd backup check's egress policy selects a misspelt label key: under the namespace's default-deny the check reaches only DNS, and never the off-site repository",
    mutate: swap(
      'apps/platform/backups/networkpolicy.yaml',
      '    matchLabels:\n      app.kubernetes.io/name: etcd-backup-check\n',
      '    matchLabels:\n      aqp.kubernetes.io/name: etcd-backup-check\n',
    ),
    at: (c) => ({
      file: 'apps/platform/backups/networkpolicy.yaml',
      line: lineOf(c, 'apps/platform/backups/networkpolicy.yaml', 'aqp.kubernetes.io/name') - 2,
    }),
  },
  {
    check: 'network-policy-peers',
    why: "Falco's allowance to the forwarder names a namespace that does not exist (as the proxy's allowance once named 'gateway')",
    mutate: swap(EGRESS, 'kubernetes.io/metadata.name: security', 'kubernetes.io/metadata.name: securty'),
    at: (c) => ({ file: EGRESS, line: lineOf(c, EGRESS, 'kubernetes.io/metadata.name: securty') - 2 }),
  },
  {
    check: 'network-policy-peers',
    why: "a second scraper's namespace, let in beside the stack's own, is misspelt",
    mutate: swap(
      POLICY,
      '              kubernetes.io/metadata.name: monitoring\n',
      '              kubernetes.io/metadata.name: monitoring\n        - namespaceSelector:\n            matchLabels:\n              kubernetes.io/metadata.name: monitorng\n',
    ),
    at: (c) => ({ file: POLICY, line: inFile(POLICY, 'kubernetes.io/metadata.name: monitorng')(c).line - 2 }),
  },
  {
    check: 'network-policy-ports',
    why: 'the metrics scraper is let in on a port number the container does not listen on',
    mutate: swap(POLICY, '        - port: metrics', '        - port: metrics\n        - port: 9090'),
    at: inFile(POLICY, '        - port: 9090'),
  },
  {
    check: 'network-policy-ports',
    why: 'the metrics scraper is let in on a port name the container does not have',
    mutate: swap(POLICY, '        - port: metrics', '        - port: metrics\n        - port: prometheus'),
    at: inFile(POLICY, '        - port: prometheus'),
  },
  {
    check: 'network-policy-ingress-path',
    why: "in the default-deny namespace, the API's policy lets the proxy's rule in from the monitoring namespace instead: the public route is blocked at the pod",
    mutate: swap(POLICY, 'kubernetes.io/metadata.name: ingress', 'kubernetes.io/metadata.name: monitoring'),
    at: (c) => ({ file: 'portfolio-api/deploy/ingress.yaml', line: inFile('portfolio-api/deploy/ingress.yaml', '              service:')(c).line }),
  },
  {
    check: 'network-policy-scrape-path',
    why: "the VPN pod's callers tidied into one rule per port set, the torrent client's exporter port moved to the managers' rule: every port is still let in from somewhere, but Prometheus' scrape of it from monitoring times out, and the torrent series are gone",
    mutate: (c) => {
      const policy = 'apps/media/gluetun/networkpolicy.yaml';
      swap(policy, '        - port: 9710\n        - port: 9713\n', '        - port: 9710\n')(c);
      swap(policy, '        - port: 8080\n        - port: 9696\n', '        - port: 8080\n        - port: 9696\n        - port: 9713\n')(c);
    },
    at: inFile('apps/media/gluetun/exporters.yaml', '    - port: metrics-qbt'),
  },
  {
    check: 'network-policy-egress-path',
    why: "the VPN pod's egress to the managers written for its own namespace: every object is accepted, and Prowlarr's pushes of indexers to Sonarr and both Radarrs time out",
    mutate: swap('apps/media/gluetun/networkpolicy.yaml', 'k8s:io.kubernetes.pod.namespace: media\n', 'k8s:io.kubernetes.pod.namespace: media-vpn\n'),
    at: inFile('apps/media/gluetun/settings/prowlarr.yaml', 'baseUrl: http://sonarr.media.svc:8989'),
  },
  {
    check: 'network-policy-dial-ingress',
    why: "the VPN pod's callers narrowed to Sonarr's pods: every object is accepted, and both Radarrs' downloads through the torrent client time out at its pod",
    mutate: swap(
      'apps/media/gluetun/networkpolicy.yaml',
      '              kubernetes.io/metadata.name: media\n        - namespaceSelector:',
      '              kubernetes.io/metadata.name: media\n          podSelector:\n            matchLabels:\n              app.kubernetes.io/name: sonarr\n        - namespaceSelector:',
    ),
    at: inFile('apps/media/radarr/settings/radarr.yaml', '    port: 8080'),
  },
  {
    check: 'network-policy-dns-egress',
    why: "the VPN pod's rule to kube-dns narrowed to TCP: every object is accepted, and Prowlarr's lookups of the managers' names, which go over UDP, time out",
    mutate: swap(
      'apps/media/gluetun/networkpolicy.yaml',
      'k8s:k8s-app: kube-dns\n      toPorts:\n        - ports:\n            - port: "53"\n              protocol: ANY\n    - toEndpoints:',
      'k8s:k8s-app: kube-dns\n      toPorts:\n        - ports:\n            - port: "53"\n              protocol: TCP\n    - toEndpoints:',
    ),
    at: inFile('apps/media/gluetun/settings/prowlarr.yaml', 'baseUrl: http://sonarr.media.svc:8989'),
  },
  {
    check: 'network-policy-dns-egress',
    why: "the API's DNS rule narrowed to TCP: its policy lets it reach the blog feed's host by name (toFQDNs), its lookups go over UDP and time out, and /api/v1/blog never reaches the feed",
    mutate: swap('portfolio-api/deploy/networkpolicy.yaml', 'protocol: ANY\n          rules:', 'protocol: TCP\n          rules:'),
    // The toFQDNs entry, not the DNS rule's matchName of the same host above it.
    at: (c) => ({
      file: 'portfolio-api/deploy/networkpolicy.yaml',
      line:
        c
          .read('portfolio-api/deploy/networkpolicy.yaml')
          .split('\n')
          .findIndex((l, i, all) => l.includes('matchName: blog.example.net') && all[i - 1]!.includes('toFQDNs:')) + 1,
    }),
  },
  {
    check: 'network-policy-external-egress',
    why: "the API's rule to the blog feed's host narrowed to port 80: its feed URL is https (443, its image's default), every fetch times out, and /api/v1/blog never has a post, with every object accepted",
    mutate: swap(
      'portfolio-api/deploy/networkpolicy.yaml',
      '- matchName: blog.example.net\n      toPorts:\n        - ports:\n            - port: "443"',
      '- matchName: blog.example.net\n      toPorts:\n        - ports:\n            - port: "80"',
    ),
    // The toFQDNs rule's ports, which let the host through on another port.
    at: (c) => ({
      file: 'portfolio-api/deploy/networkpolicy.yaml',
      line:
        c
          .read('portfolio-api/deploy/networkpolicy.yaml')
          .split('\n')
          .findIndex((l, i, all) => l.includes('toPorts:') && all[i - 1]!.includes('matchName: blog.example.net') && all[i - 2]!.includes('toFQDNs:')) + 1,
    }),
  },
  {
    check: 'network-policy-external-egress',
    why: 'the API given a feed on another port (8443) than the one its egress policy lets the host through on: every fetch times out',
    mutate: swap(
      'portfolio-api/deploy/deployment.yaml',
      '            - name: STATUS_FILE',
      '            - name: BLOG_FEED_URL\n              value: https://blog.example.net:8443/rss.xml\n            - name: STATUS_FILE',
    ),
    at: inFile('portfolio-api/deploy/deployment.yaml', 'value: https://blog.example.net:8443/rss.xml'),
  },
  {
    check: 'network-policy-enforced',
    why: 'the CNI fact switched back to Flannel, which Talos ships: every policy is inert, and the Cilium app contradicts the fact',
    mutate: swap(FACTS, CILIUM_FACT, '    name: flannel\n    enforces: []\n    fqdnEgress: false'),
    at: (c) => ({ file: POLICY, line: lineOf(c, POLICY, 'kind: NetworkPolicy') }),
  },
  {
    check: 'network-policy-enforced',
    why: 'the fact claims Flannel enforces NetworkPolicy',
    mutate: swap(FACTS, CILIUM_FACT, '    name: flannel\n    enforces:\n      - networking.k8s.io/NetworkPolicy\n    fqdnEgress: false'),
    at: (c) => ({ file: FACTS, line: lineOf(c, FACTS, '  cni: |') }),
  },
  {
    check: 'network-policy-fqdn-dns',
    why: "the API's DNS no longer goes through Cilium's DNS proxy, so its feed host never resolves to an allowed address",
    mutate: swap(POLICY, /          rules:\n            dns:\n(?:              .*\n)+/, ''),
    at: (c) => ({ file: POLICY, line: lineOf(c, POLICY, 'toFQDNs:') }),
  },
  {
    check: 'network-policy-default-deny',
    why: "the API's Node inspector port opened on its container and its Service for a debugging session, in the default-deny namespace, and no policy lets anyone in on it: the Service answers no one there",
    mutate: (c) => {
      swap(
        'portfolio-api/deploy/deployment.yaml',
        '              containerPort: 9464\n',
        '              containerPort: 9464\n            - name: inspector\n              containerPort: 9229\n',
      )(c);
      swap(
        'portfolio-api/deploy/deployment.yaml',
        '          env:\n',
        '          env:\n            - name: NODE_OPTIONS\n              value: --inspect=0.0.0.0:9229\n',
      )(c);
      swap(SERVICE, '      targetPort: metrics\n', '      targetPort: metrics\n    - name: inspector\n      port: 9229\n      targetPort: inspector\n')(c);
    },
    at: (c) => ({ file: SERVICE, line: lineOf(c, SERVICE, '- name: inspector') }),
  },
  {
    check: 'network-policy-allowances',
    why: "a Cilium DNS allowance names a namespace that does not exist (the status writer's, which dials nothing by name)",
    mutate: swap(
      POLICY,
      'k8s:io.kubernetes.pod.namespace: kube-system\n            k8s:k8s-app: kube-dns\n      toPorts:\n        - ports:\n            - port: "53"\n              protocol: ANY\n    - toEntities',
      'k8s:io.kubernetes.pod.namespace: kube-sytem\n            k8s:k8s-app: kube-dns\n      toPorts:\n        - ports:\n            - port: "53"\n              protocol: ANY\n    - toEntities',
    ),
    at: (c) => ({ file: POLICY, line: lineOf(c, POLICY, 'kube-sytem') - 1 }),
  },
  {
    check: 'network-policy-allowances',
    why: "Falco's egress allows a registry host its annotation does not document",
    mutate: swap(EGRESS, '      ghcr.io: the OCI registry holding falco-rules and the container plugin\n', ''),
    at: after(EGRESS, 'toFQDNs:', '- matchName: ghcr.io'),
  },
  {
    check: 'network-policy-allowances',
    why: 'a documented external host no rule allows any more',
    mutate: swap(POLICY, '      blog.example.net: the blog feed', '      cdn.example.net: the images\n      blog.example.net: the blog feed'),
    at: (c) => ({ file: POLICY, line: lineOf(c, POLICY, 'gate.homelab-gitops/external-peers') }),
  },
];

/** The attacks that widened the API's reach past the gate: each a rule added to its egress policy, or a policy beside it. */
const widen = (rule: string) =>
  swap(POLICY, '    - toFQDNs:\n        - matchName: blog.example.net', `${rule}\n    - toFQDNs:\n        - matchName: blog.example.net`);
const WIDE_OPEN = 'portfolio-api/deploy/networkpolicy-wide.yaml';

networkPolicyMutations.push(
  {
    check: 'network-policy-allowances',
    why: 'egress to the cluster entity: every pod and node in the cluster',
    mutate: widen('    - toEntities: [cluster]'),
    at: inFile(POLICY, 'toEntities: [cluster]'),
  },
  {
    check: 'network-policy-allowances',
    why: "egress to the pods of every namespace but one nobody has (NotIn), which is not the policy's own namespace",
    mutate: widen(
      '    - toEndpoints:\n        - matchExpressions:\n            - { key: k8s:io.kubernetes.pod.namespace, operator: NotIn, values: [nowhere] }',
    ),
    at: inFile(POLICY, '- matchExpressions:'),
  },
  {
    check: 'network-policy-allowances',
    why: 'egress to the host, the other nodes and the API server',
    mutate: widen('    - toEntities: [host, remote-node, kube-apiserver]'),
    at: inFile(POLICY, 'toEntities: [host, remote-node, kube-apiserver]'),
  },
  {
    check: 'network-policy-allowances',
    why: 'a NetworkPolicy whose egress rule is empty: everything, the internet included',
    mutate: (c) =>
      c.write(
        WIDE_OPEN,
        'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: portfolio-api-anywhere\n  namespace: portfolio\nspec:\n  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: portfolio-api\n  policyTypes: ["Egress"]\n  egress:\n    - {}\n',
      ),
    at: inFile(WIDE_OPEN, '- {}'),
  },
  {
    check: 'network-policy-allowances',
    why: 'a NetworkPolicy letting every namespace in and out (namespaceSelector: {} both ways)',
    mutate: (c) =>
      c.write(
        WIDE_OPEN,
        'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: portfolio-api-any-namespace\n  namespace: portfolio\nspec:\n  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: portfolio-api\n  policyTypes: ["Ingress", "Egress"]\n  ingress:\n    - from:\n        - namespaceSelector: {}\n  egress:\n    - to:\n        - namespaceSelector: {}\n',
      ),
    at: inFile(WIDE_OPEN, 'namespaceSelector: {}'),
  },
);

const BACKUP_POLICY = 'apps/platform/backups/networkpolicy.yaml';
const CILIUM_VALUES = 'apps/platform/cilium/values.yaml';
const TALOS_API_RULE = '    - toCIDR: [192.168.1.11/32]';

networkPolicyMutations.push(
  {
    check: 'network-policy-node-cidr',
    why: "Cilium left at its default CIDR matching: the etcd backup's rule to the control-plane node's Talos API allows nothing",
    mutate: swap(CILIUM_VALUES, 'policyCIDRMatchMode: [nodes]\n', ''),
    at: inFile(BACKUP_POLICY, TALOS_API_RULE),
    fix: 'set policyCIDRMatchMode: [nodes] in apps/platform/cilium/values.yaml, or allow the nodes as an entity (toEntities: [remote-node, host]) on that port',
  },
  {
    check: 'network-policy-node-cidr',
    why: 'the same, with the rule on a port no node serves alone: the address is still the node TALOS_NODE names',
    mutate: (c) => {
      swap(CILIUM_VALUES, 'policyCIDRMatchMode: [nodes]\n', '')(c);
      swap(BACKUP_POLICY, '            - port: "50000"', '            - port: "50005"')(c);
    },
    at: inFile(BACKUP_POLICY, TALOS_API_RULE),
  },
  {
    check: 'network-policy-node-cidr',
    why: "the backup's rule to the Talos API still allows the node's address before the LAN moved (10.0.10.11): no node of the facts' nodeNetwork has it, so the call to TALOS_NODE is dropped",
    mutate: (c) => {
      swap(BACKUP_POLICY, '      192.168.1.11/32: the first', '      10.0.10.11/32: the first')(c);
      swap(BACKUP_POLICY, TALOS_API_RULE, '    - toCIDR: [10.0.10.11/32]')(c);
    },
    at: inFile(BACKUP_POLICY, '    - toCIDR: [10.0.10.11/32]'),
    fix: "name a node's address from nodeNetwork in clusters/home/cluster-facts.yaml",
  },
  {
    check: 'network-policy-node-cidr',
    why: 'CIDRs select nodes, and the agents never restart to read it: a sync changes the ConfigMap and nothing else',
    mutate: swap(CILIUM_VALUES, 'rollOutCiliumPods: true\n', ''),
    at: inFile(CILIUM_VALUES, 'policyCIDRMatchMode: [nodes]'),
    fix: 'set rollOutCiliumPods: true in apps/platform/cilium/values.yaml, so a change of policyCIDRMatchMode restarts the agents',
  },
  {
    check: 'network-policy-fqdn-dns',
    why: "the sensor's DNS rule is back to one label (*.cluster.local): its resolver asks falcosidekick.security.svc.falco.svc.cluster.local first, the proxy refuses it, and no event reaches the forwarder",
    mutate: swap('security/falco/networkpolicy.yaml', '- matchPattern: "**.cluster.local"', '- matchPattern: "*.cluster.local"'),
    at: inFile('security/falco/networkpolicy.yaml', '- matchPattern: "*.cluster.local"'),
  },
  {
    check: 'network-policy-fqdn-dns',
    why: "the API's DNS rules let its feed host through, and not the search path before it: the proxy refuses blog.example.net.portfolio.svc.cluster.local",
    mutate: swap(POLICY, '              - matchPattern: "**.cluster.local"\n', ''),
    at: (c) => ({ file: POLICY, line: lineOf(c, POLICY, 'toFQDNs:') + 1 }),
  },
  {
    check: 'network-policy-cilium-accepted',
    why: "the etcd backup's two node-side allowances merged into one rule (the API server as an entity beside the Talos node's address): Cilium's agent refuses the whole policy, and the backup reaches neither, nor its DNS, nor the off-site repository",
    mutate: swap(
      BACKUP_POLICY,
      '    - toEntities: [kube-apiserver]\n      toPorts:\n        - ports:\n            - port: "6443"\n              protocol: TCP\n    - toCIDR:',
      '    - toEntities: [kube-apiserver]\n      toCIDR:',
    ),
    at: inFile(BACKUP_POLICY, '    - toEntities: [kube-apiserver]'),
    fix: 'split the rule the finding names as Cilium requires (one kind of peer per rule; DNS rules in an egress rule to port 53), or turn on the agent setting it names in apps/platform/cilium/values.yaml',
  },
);
