/** An ApplicationSet for a broken copy of the real repository, written as a fork writes one: the tests' and the mutations' one shape. */

const REPO_URL = 'https://github.com/homelab-operator/homelab-gitops.git';

export interface SetTemplate {
  name: string;
  path: string;
  project?: string;
  namespace?: string;
}

/** `extras` in argocd, with `head` (goTemplate, its options, a patch) and `generators` written as given, and one template. */
export function applicationSet(head: readonly string[], generators: readonly string[], template: SetTemplate): string {
  return [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: ApplicationSet',
    'metadata:',
    '  name: extras',
    '  namespace: argocd',
    'spec:',
    ...head.map((l) => `  ${l}`),
    '  generators:',
    ...generators.map((l) => `    ${l}`),
    '  template:',
    '    metadata:',
    `      name: '${template.name}'`,
    '    spec:',
    `      project: ${template.project ?? 'media'}`,
    '      source:',
    `        repoURL: ${REPO_URL}`,
    '        targetRevision: main',
    `        path: '${template.path}'`,
    '      destination:',
    '        server: https://kubernetes.default.svc',
    `        namespace: ${template.namespace ?? 'media'}`,
    '      syncPolicy:',
    '        automated:',
    '          prune: true',
    '          selfHeal: true',
    '',
  ].join('\n');
}
