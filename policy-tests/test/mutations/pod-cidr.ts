/**
 * Broken copies of the real repository for network-policy-pod-cidr, judged on the rendered cilium-config: a stand-in
 * of the cilium chart at the version the copy pins renders that ConfigMap as the real chart's does from `ipam` (the
 * mode, and for a cluster pool its list joined by blanks), with the real chart's defaults (cluster-pool, 10.0.0.0/8).
 */
import { parse } from 'yaml';
import { lineOf } from '../support/helpers.ts';
import type { Mutation, MutationSetup } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';
import { standInChart } from './render.ts';

const CHECK = 'network-policy-pod-cidr';
const VALUES = 'apps/platform/cilium/values.yaml';
const APP = 'apps/platform/cilium/application.yaml';

export function standInCilium(): MutationSetup {
  return standInChart({
    chart: 'cilium',
    repoURL: 'https://helm.cilium.io/',
    app: APP,
    // Every key the copy's values set is declared; the chart's own IPAM defaults (values.yaml at 1.19) under them.
    values: (copy) => ({
      ...(parse(copy.read(VALUES)) as Record<string, unknown>),
      ipam: { mode: 'cluster-pool', operator: { clusterPoolIPv4PodCIDRList: ['10.0.0.0/8'] } },
    }),
    files: (_copy, version) => ({
      // The agent's image as a data key (metrics-catalog-current holds the catalog's cilium entries to what the render runs).
      'templates/standin.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cilium-standin\n  namespace: {{ .Release.Namespace }}\ndata:\n  image: "quay.io/cilium/cilium:v${version}"\n`,
      'templates/cilium-configmap.yaml': [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: cilium-config',
        '  namespace: {{ .Release.Namespace }}',
        'data:',
        '  ipam: {{ .Values.ipam.mode | quote }}',
        '{{- if eq .Values.ipam.mode "cluster-pool" }}',
        '  cluster-pool-ipv4-cidr: {{ .Values.ipam.operator.clusterPoolIPv4PodCIDRList | join " " | quote }}',
        '{{- end }}',
        '',
      ].join('\n'),
    }),
  });
}

export const podCidrMutations: Mutation[] = [
  {
    check: CHECK,
    why: "the IPAM setting dropped from Cilium's values: the chart's default cluster pool, 10.0.0.0/8, gives pods addresses outside Talos' pod network and over the Service network",
    mutate: swap(VALUES, 'ipam:\n  mode: kubernetes\n', ''),
    at: (c) => ({ file: APP, line: lineOf(c, APP, 'chart: cilium') }),
  },
  {
    check: CHECK,
    why: "a cluster pool of the operator's own (10.42.0.0/16, k3s' habit) beside Talos' 10.244.0.0/16: the VPN pod's firewall lets none of the pods through",
    mutate: swap(VALUES, 'ipam:\n  mode: kubernetes\n', 'ipam:\n  mode: cluster-pool\n  operator:\n    clusterPoolIPv4PodCIDRList: ["10.42.0.0/16"]\n'),
    at: (c) => ({ file: VALUES, line: lineOf(c, VALUES, 'clusterPoolIPv4PodCIDRList') }),
  },
];
