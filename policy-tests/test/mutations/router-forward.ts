/**
 * Broken copies of the real repository for the router's port forward (closure-load-balancer, the cluster facts'
 * nodeNetwork.forwards), judged on the rendered proxies: a stand-in of the traefik chart at the version the copies pin
 * renders each proxy's LoadBalancer Service as the real chart's does from `service` (its annotations and spec) and
 * `ports` (web on 80 and websecure on 443, each where its `expose.default` is on), without a selector, since the
 * stand-in runs no pods.
 */
import { parse } from 'yaml';
import { mergeMaps } from '../../model/yaml/helm-values.ts';
import { isMap } from '../../model/core/dig.ts';
import { lineOf } from '../support/helpers.ts';
import type { Mutation, MutationSetup } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';
import { standInChart } from './render.ts';

const CHECK = 'closure-load-balancer';
const VALUES = 'apps/platform/ingress-public/values.yaml';
const APP = 'apps/platform/ingress-public/application.yaml';

/** A CRD of `kind` in `group`, its objects' fields kept as written. */
const crd = (group: string, kind: string, version: string): string => {
  const plural = `${kind.toLowerCase()}s`;
  return `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.${group}\nspec:\n  group: ${group}\n  scope: Namespaced\n  names: { kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}, listKind: ${kind}List }\n  versions:\n    - name: ${version}\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n`;
};

export function standInTraefik(): MutationSetup {
  return standInChart({
    chart: 'traefik',
    repoURL: 'https://traefik.github.io/charts',
    app: APP,
    // Every key either proxy's values set is declared, the Service's annotations empty as the chart's are; the chart's own ports under them (values.yaml at 41).
    values: (copy) => {
      const both = mergeMaps(
        parse(copy.read(VALUES)) as Record<string, unknown>,
        parse(copy.read('apps/platform/ingress-private/values.yaml')) as Record<string, unknown>,
      );
      return {
        ...both,
        service: { ...(isMap(both.service) ? both.service : {}), annotations: {} },
        ports: {
          web: { port: 8000, exposedPort: 80, expose: { default: true } },
          websecure: { port: 8443, exposedPort: 443, expose: { default: true } },
        },
      };
    },
    files: () => ({
      // A CRD of each group the public proxy's app says its render installs (the private one skips them, as the real chart's).
      'crds/middlewares.yaml': crd('traefik.io', 'Middleware', 'v1alpha1'),
      'crds/apis.yaml': crd('hub.traefik.io', 'API', 'v1alpha1'),
      'templates/service.yaml': [
        'apiVersion: v1',
        'kind: Service',
        'metadata:',
        '  name: {{ .Release.Name }}',
        '  namespace: {{ .Release.Namespace }}',
        '  {{- with .Values.service.annotations }}',
        '  annotations: {{- toYaml . | nindent 4 }}',
        '  {{- end }}',
        'spec:',
        '  {{- with .Values.service.spec }}',
        '  {{- toYaml . | nindent 2 }}',
        '  {{- end }}',
        '  ports:',
        '  {{- range $name, $port := .Values.ports }}',
        '  {{- if $port.expose.default }}',
        '    - name: {{ $name }}',
        '      port: {{ $port.exposedPort }}',
        '      targetPort: {{ $port.port }}',
        '      protocol: TCP',
        '  {{- end }}',
        '  {{- end }}',
        '',
      ].join('\n'),
    }),
  });
}

export const routerForwardMutations: Mutation[] = [
  {
    check: CHECK,
    why: "the public proxy's Service no longer asks MetalLB for 192.168.1.240, where the router forwards 80 and 443: it gets the allocator's pick of the moment, which another Service may take first",
    mutate: swap(VALUES, '  annotations:\n    metallb.io/loadBalancerIPs: 192.168.1.240\n', ''),
    at: (c) => ({ file: VALUES, line: lineOf(c, VALUES, 'service:') }),
  },
  {
    check: CHECK,
    why: "the public proxy's websecure port kept off its Service (ports.websecure.expose.default: false): what the router forwards to 443 is refused",
    mutate: swap(VALUES, 'service:\n', 'ports:\n  websecure:\n    expose:\n      default: false\nservice:\n'),
    at: (c) => ({ file: VALUES, line: lineOf(c, VALUES, 'ports:') }),
  },
];
