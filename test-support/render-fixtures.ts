/**
 * Charts and a small repository of the tests' own for the render tier:
 * multiple sources with $values, randAlphaNum, lookup, a hook, capability
 * checks on the Kubernetes version and on an API a CRD of another app adds,
 * and a key no template reads.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ChartSpec } from './chart-repo.ts';
import { crdYaml } from './crd-fixture.ts';

export const REPO_URL = 'https://github.com/example/lab.git';

export const DEMO_CHART: ChartSpec = {
  name: 'demo',
  version: '1.0.0',
  values: { greeting: 'hi', widgetSize: 1, randomPassword: false, nested: { kept: true } },
  files: {
    'templates/cm.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-greeting
  namespace: {{ .Release.Namespace }}
data:
  greeting: {{ .Values.greeting | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  modern: {{ semverCompare ">=1.36.0-0" .Capabilities.KubeVersion.Version | quote }}
  found: {{ if lookup "v1" "Secret" .Release.Namespace "anything" }}"yes"{{ else }}"no"{{ end }}
{{- if .Capabilities.APIVersions.Has "example.com/v1/Widget" }}
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: {{ .Release.Name }}-widget
  namespace: {{ .Release.Namespace }}
spec:
  size: {{ .Values.widgetSize }}
{{- end }}
`,
    'templates/secret.yaml': `{{- if .Values.randomPassword }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-admin
  namespace: {{ .Release.Namespace }}
data:
  password: {{ randAlphaNum 24 | b64enc | quote }}
{{- end }}
`,
    'templates/hook.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  namespace: {{ .Release.Namespace }}
  annotations:
    helm.sh/hook: pre-install
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: busybox:1.37
`,
    'templates/_helpers.tpl': `{{- define "demo.kept" -}}{{ .Values.nested.kept }}{{- end -}}\n`,
  },
};

export const WIDGETS_CHART: ChartSpec = {
  name: 'widgets',
  version: '2.0.0',
  files: {
    'crds/widget.yaml': crdYaml({
      group: 'example.com',
      kind: 'Widget',
      plural: 'widgets',
      specProperties: '                size: { type: integer, format: int32 }',
    }),
  },
};

export interface FixtureRepo {
  root: string;
  write(file: string, text: string): void;
}

/** A small repository: cluster facts, and Applications written by the test. */
export function fixtureRepo(): FixtureRepo {
  const root = mkdtempSync(join(tmpdir(), 'render-repo-'));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  write(
    'clusters/home/cluster-facts.yaml',
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-facts
  namespace: argocd
data:
  kubernetesVersion: "1.36.3"
  talosVersion: "v1.13.9"
  nodeCount: "3"
  controlPlaneCount: "1"
  repoURL: ${REPO_URL}
  revision: main
`,
  );
  return { root, write };
}

/** An Application of the default project: its source block (indented two spaces), its namespace, and `extra` more of its spec. */
function application(name: string, sources: string, namespace: string, extra = ''): string {
  return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ${name}
  namespace: argocd
  finalizers: [resources-finalizer.argocd.argoproj.io]
spec:
  project: default
${sources}  destination:
    server: https://kubernetes.default.svc
    namespace: ${namespace}
${extra}`;
}

/** An Application with one source of this repository: `source` is the rest of it (`path:`, `helm:`, ...), indented four spaces; `extra` more of its spec; deployed to `namespace`. */
export function repoApp(name: string, source: string, extra = '', namespace = 'demo'): string {
  return application(name, `  source:\n    repoURL: ${REPO_URL}\n    targetRevision: main\n${source}\n`, namespace, extra);
}

/** An Application with a chart source and a `ref: values` source, as this repository writes them. */
export function chartApp(
  name: string,
  chart: { repoURL: string; chart: string; version: string },
  helm: Record<string, unknown> = {},
  namespace = 'demo',
): string {
  return application(
    name,
    `  sources:\n    - repoURL: ${chart.repoURL}\n      chart: ${chart.chart}\n      targetRevision: ${chart.version}\n      helm: ${JSON.stringify(helm)}\n    - repoURL: ${REPO_URL}\n      targetRevision: main\n      ref: values\n`,
    namespace,
  );
}
