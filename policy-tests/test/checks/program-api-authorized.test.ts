/**
 * program-api-authorized judges what the API server answers the programs the repository runs, beyond the mutations
 * (a rule's group, a resource name, a verb, a pod without its token): the real repository passes, a ServiceAccount
 * that mounts no token fails, a variable set from a Secret and a role the repository does not declare are not judged,
 * and a variable set in the container's env moves the request where the program sends it.
 */
import { describe, expect, it } from 'vitest';
import { programApiAuthorizedCheck } from '../../admission/checks/program-api-authorized.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
// Made-up objects borrow a real one's file and positions.
const template = repo.resources.find((r) => r.kind === 'RoleBinding')!;
const findings = (r: Repo) => runPolicy(r, [programApiAuthorizedCheck]).map((f) => [f.severity ?? 'fail', f.message]);

/** The repository with one resource's object changed. */
function withObject(kind: string, name: string, change: (o: Record<string, unknown>) => Record<string, unknown>): Repo {
  const resources = repo.resources.map((r) =>
    r.kind === kind && r.name === name ? ({ ...r, object: change(structuredClone(r.object) as Record<string, unknown>) } as Resource) : r,
  );
  return { ...repo, resources };
}

/** The status writer's container, changed. */
const writerWith = (change: (c: Record<string, unknown>) => void) =>
  withObject('CronJob', 'portfolio-infra-status-writer', (o) => {
    change(
      (o as { spec: { jobTemplate: { spec: { template: { spec: { containers: Record<string, unknown>[] } } } } } }).spec.jobTemplate.spec.template.spec
        .containers[0]!,
    );
    return o;
  });

describe('program-api-authorized', () => {
  it('passes the real repository', () => {
    expect(findings(repo)).toEqual([]);
  });

  it('fails a program whose ServiceAccount mounts no token, where its pod does not say otherwise', () => {
    const r = withObject('ServiceAccount', 'portfolio-status-writer', (o) => ({ ...o, automountServiceAccountToken: false }));
    expect(findings(r)).toEqual([
      ['fail', expect.stringMatching(/^CronJob portfolio-infra-status-writer runs "node dist\/status-writer\/main.js" .* the pod mounts none/)],
    ]);
  });

  it('reads a variable the container sets, and says a request is not judged where a Secret sets its part', () => {
    expect(findings(writerWith((c) => (c.env = [{ name: 'STATUS_NAMESPACE', value: 'other' }])))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /refuses 5 of its 8 requests: GET \/apis\/cert-manager.io\/v1\/namespaces\/other\/certificates\/portfolio-tls: certificates.cert-manager.io "portfolio-tls" is forbidden: User "system:serviceaccount:portfolio:portfolio-status-writer" cannot get resource "certificates" in API group "cert-manager.io" in the namespace "other"/,
        ),
      ],
    ]);
    expect(findings(writerWith((c) => (c.env = [{ name: 'CERTIFICATE', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }])))).toEqual([
      [
        'not-judged',
        expect.stringMatching(
          /whether the API server allows GET \/apis\/cert-manager.io\/.*\$\{CERTIFICATE:-portfolio-tls\} \(CERTIFICATE is set from a source the gate does not read\) is not known/,
        ),
      ],
    ]);
  });

  it("judges a chart's k8s-sidecar by its environment: a Role in its namespace does not let it read every namespace", () => {
    const make = (kind: string, name: string, namespace: string | undefined, body: Record<string, unknown>) =>
      ({ ...template, kind, name, namespace, object: { kind, metadata: { name, namespace }, ...body } }) as unknown as Resource;
    const env = ['LABEL=grafana_dashboard', 'FOLDER=/d', 'NAMESPACE=ALL'].map((e) => ({ name: e.split('=')[0], value: e.split('=')[1] }));
    const sidecar = { name: 'grafana-sc-dashboard', image: 'quay.io/kiwigrid/k8s-sidecar:2.10.1', env };
    const grafana = make('Deployment', 'grafana', 'monitoring', { spec: { template: { spec: { serviceAccountName: 'grafana', containers: [sidecar] } } } });
    const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }];
    const subjects = [{ kind: 'ServiceAccount', name: 'grafana', namespace: 'monitoring' }];
    const bound = (scope: 'Role' | 'ClusterRole') => [
      make(scope, 'grafana', scope === 'Role' ? 'monitoring' : undefined, { rules }),
      make(`${scope}Binding`, 'grafana', scope === 'Role' ? 'monitoring' : undefined, { roleRef: { kind: scope, name: 'grafana' }, subjects }),
    ];
    const judged = (extra: Resource[]) => findings({ ...repo, resources: [...repo.resources, grafana, ...extra] });
    expect(judged(bound('Role'))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Deployment grafana runs k8s-sidecar \(container grafana-sc-dashboard\) as ServiceAccount monitoring\/grafana, and the API server refuses 2 of its 2 requests: GET \/api\/v1\/configmaps\?labelSelector=grafana_dashboard&limit=5: configmaps is forbidden: .* cannot list resource "configmaps" in API group "" at the cluster scope; GET .*&watch=True: .* cannot watch/,
        ),
      ],
    ]);
    expect(judged(bound('ClusterRole'))).toEqual([]);
  });

  it("judges a rendered Alloy by its configuration: a Role in its namespace does not let it tail every namespace's pods", () => {
    const rendered = { id: 'alloy#0', app: 'alloy', source: 'chart alloy 1.11.1' };
    const make = (kind: string, name: string, namespace: string | undefined, body: Record<string, unknown>) =>
      ({ ...template, kind, name, namespace, rendered, object: { kind, metadata: { name, namespace }, ...body } }) as unknown as Resource;
    const source = 'loki.source.kubernetes "pods" {\n  targets    = discovery.kubernetes.pods.targets\n  forward_to = []\n}\n';
    const config = `discovery.kubernetes "pods" {\n  role = "pod"\n}\n${source}`;
    const env = [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }];
    const alloy = (configuration: string) => [
      make('DaemonSet', 'alloy', 'monitoring', {
        spec: { template: { spec: { serviceAccountName: 'alloy', containers: [{ name: 'alloy', image: 'docker.io/grafana/alloy:v1.18.1', env }] } } },
      }),
      make('ConfigMap', 'alloy', 'monitoring', { data: { 'config.alloy': configuration } }),
      make('Role', 'alloy', 'monitoring', { rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] }] }),
      make('RoleBinding', 'alloy', 'monitoring', {
        roleRef: { kind: 'Role', name: 'alloy' },
        subjects: [{ kind: 'ServiceAccount', name: 'alloy', namespace: 'monitoring' }],
      }),
    ];
    const everyNamespace = [
      [
        'fail',
        expect.stringMatching(
          /^DaemonSet alloy runs Alloy's configuration \(container alloy\) as ServiceAccount monitoring\/alloy, and the API server refuses 4 of its 4 requests: GET \/api\/v1\/pods: pods is forbidden: .* at the cluster scope; .* GET \/api\/v1\/namespaces\/\{any\}\/pods\/\{pod\}\/log: pods "\{pod\}" is forbidden: .* cannot get resource "pods\/log"/,
        ),
      ],
    ];
    const judgedWith = (configuration: string) => findings({ ...repo, resources: [...repo.resources, ...alloy(configuration)] });
    expect(judgedWith(config)).toEqual(everyNamespace);
    // Its namespaces worked out with its environment: the pod's own namespace (a fieldRef) is what the Role grants.
    const names = (value: string) => `discovery.kubernetes "pods" {\n  role = "pod"\n  namespaces {\n    names = [${value}]\n  }\n}\n${source}`;
    expect(judgedWith(names('sys.env("POD_NAMESPACE")'))).toEqual([]);
    // A variable the container does not set is "": Prometheus' discovery reads every namespace, which the Role does not grant.
    expect(judgedWith(names('sys.env("NAMESPACE")'))).toEqual(everyNamespace);
    // remote.kubernetes.secret gets its one Secret, which the Role does not grant; in a fork's Role by its name, it passes.
    const secret = `${names('sys.env("POD_NAMESPACE")')}remote.kubernetes.secret "auth" {\n  namespace = "monitoring"\n  name = "loki-auth"\n}\n`;
    expect(judgedWith(secret)).toEqual([
      [
        'fail',
        expect.stringMatching(/refuses 1 of its 5 requests: GET \/api\/v1\/namespaces\/monitoring\/secrets\/loki-auth: secrets "loki-auth" is forbidden: /),
      ],
    ]);
    const granted = alloy(secret);
    const role = granted.find((r) => r.kind === 'Role')!.object as { rules: unknown[] };
    role.rules.push({ apiGroups: [''], resources: ['secrets'], resourceNames: ['loki-auth'], verbs: ['get'] });
    expect(findings({ ...repo, resources: [...repo.resources, ...granted] })).toEqual([]);
  });

  it('judges kube-state-metrics by its flags, and spells out four refusals of many', () => {
    const ksm = {
      ...template,
      kind: 'Deployment',
      name: 'ksm',
      namespace: 'monitoring',
      object: {
        kind: 'Deployment',
        metadata: { name: 'ksm', namespace: 'monitoring' },
        spec: {
          template: {
            spec: {
              serviceAccountName: 'ksm',
              containers: [{ name: 'ksm', image: 'registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.20.0', args: ['--resources=cronjobs,jobs,pods'] }],
            },
          },
        },
      },
    } as unknown as Resource;
    expect(findings({ ...repo, resources: [...repo.resources, ksm] })).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Deployment ksm runs kube-state-metrics \(container ksm\) as ServiceAccount monitoring\/ksm, and the API server refuses 6 of its 6 requests: GET \/apis\/batch\/v1\/cronjobs: cronjobs.batch is forbidden: .*; and 2 more$/,
        ),
      ],
    ]);
  });

  it("judges a rendered Prometheus' discoveries by the monitors it loads, as the account it runs as", () => {
    const rendered = { id: 'kps#0', app: 'kube-prometheus-stack', source: 'chart kube-prometheus-stack 88.5.3' };
    const make = (kind: string, name: string, namespace: string | undefined, body: Record<string, unknown>) =>
      ({ ...template, kind, name, namespace, rendered, object: { kind, metadata: { name, namespace }, ...body } }) as unknown as Resource;
    const prometheus = (spec: Record<string, unknown>) =>
      make('Prometheus', 'k8s', 'monitoring', {
        spec: { serviceAccountName: 'prometheus', serviceMonitorSelector: {}, serviceMonitorNamespaceSelector: {}, ...spec },
      });
    const rules = [{ apiGroups: [''], resources: ['endpoints', 'services', 'pods'], verbs: ['get', 'list', 'watch'] }];
    const subjects = [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'monitoring' }];
    const bound = (scope: 'Role' | 'ClusterRole') => [
      make(scope, 'prometheus', scope === 'Role' ? 'monitoring' : undefined, { rules }),
      make(`${scope}Binding`, 'prometheus', scope === 'Role' ? 'monitoring' : undefined, { roleRef: { kind: scope, name: 'prometheus' }, subjects }),
    ];
    const judged = (...extra: Resource[]) => findings({ ...repo, resources: [...repo.resources, ...extra] });
    // The repository's ServiceMonitors sit in five namespaces: a Role in monitoring leaves four unread.
    expect(judged(prometheus({}), ...bound('Role'))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Prometheus k8s runs its Kubernetes discovery \(container prometheus\) as ServiceAccount monitoring\/prometheus, and the API server refuses 24 of its 30 requests: GET \/api\/v1\/namespaces\/media\/endpoints: endpoints is forbidden: User "system:serviceaccount:monitoring:prometheus" cannot list resource "endpoints" in API group "" in the namespace "media"; .*; and 20 more \(rendered by kube-prometheus-stack/,
        ),
      ],
    ]);
    expect(judged(prometheus({}), ...bound('ClusterRole'))).toEqual([]);
    // EndpointSlice discovery reads endpointslices, which the role does not grant.
    expect(judged(prometheus({ serviceDiscoveryRole: 'EndpointSlice' }), ...bound('ClusterRole'))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /refuses 10 of its 30 requests: GET \/apis\/discovery.k8s.io\/v1\/namespaces\/media\/endpointslices: endpointslices.discovery.k8s.io is forbidden/,
        ),
      ],
    ]);
    expect(judged(prometheus({ automountServiceAccountToken: false }), ...bound('ClusterRole'))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Prometheus k8s runs its Kubernetes discovery .* the pod mounts none \(automountServiceAccountToken false\): each of its 30 requests fails/,
        ),
      ],
    ]);
    expect(judged(prometheus({ apiserverConfig: { host: 'https://elsewhere' } }))).toEqual([
      [
        'not-judged',
        expect.stringMatching(/its discoveries, which its apiserverConfig sends to another API server with other credentials \(its requests are not read\)/),
      ],
    ]);
  });

  it('says a command of an API-calling image that its facts do not list is not judged, where the pod holds a token, and passes it where it holds none', () => {
    const moved = writerWith((c) => (c.command = ['node', '/app/dist/status-writer/main.js']));
    expect(findings(moved)).toEqual([
      [
        'not-judged',
        expect.stringMatching(
          /^CronJob portfolio-infra-status-writer runs "node \/app\/dist\/status-writer\/main.js" .*: whether the API server allows what it asks \(its command and args are none its image's facts list\) is not known$/,
        ),
      ],
    ]);
    // The real repository's other commands of the two images (an app's file backup, the API itself) mount no token.
    expect(findings(repo)).toEqual([]);
  });

  it("fails a pod that mounts no token where its image's facts say its program connects, unless a projected token sits where client-go reads it", () => {
    // Bazarr's pod mounts no token (automountServiceAccountToken: false); run cert-manager's cainjector there, a controller.
    const pod = (o: Record<string, unknown>) =>
      (o as { spec: { template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } } } }).spec.template.spec;
    const controller = (extra: (spec: ReturnType<typeof pod>) => void = () => {}) =>
      withObject('Deployment', 'bazarr', (o) => {
        const spec = pod(o);
        expect(spec.automountServiceAccountToken).toBe(false);
        spec.containers[0]!.image = 'quay.io/jetstack/cert-manager-cainjector:v1.21.1';
        extra(spec);
        return o;
      });
    expect(findings(controller())).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Deployment bazarr runs quay\.io\/jetstack\/cert-manager-cainjector:v1\.21\.1 \(container bazarr\), whose program calls the API server with its pod's token \(its image's facts\), and the pod mounts none \(automountServiceAccountToken false on the pod/,
        ),
      ],
    ]);
    const projected = controller((spec) => {
      spec.volumes = [...((spec.volumes as unknown[]) ?? []), { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }];
      const c = spec.containers[0]!;
      c.volumeMounts = [...((c.volumeMounts as unknown[]) ?? []), { name: 'token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }];
    });
    expect(findings(projected)).toEqual([]);
    // An image that trips the rule only by another binary than the one the container starts: Argo CD's, as its repo server.
    const repoServer = controller((spec) => {
      spec.containers[0]!.image = 'quay.io/argoproj/argocd:v3.5.1';
      spec.containers[0]!.args = ['/usr/local/bin/argocd-repo-server'];
    });
    expect(findings(repoServer)).toEqual([]);
    const appController = controller((spec) => {
      spec.containers[0]!.image = 'quay.io/argoproj/argocd:v3.5.1';
      spec.containers[0]!.args = ['/usr/local/bin/argocd-application-controller'];
    });
    expect(findings(appController)).toEqual([['fail', expect.stringMatching(/^Deployment bazarr runs quay\.io\/argoproj\/argocd:v3\.5\.1/)]]);
  });

  it('says a request is not judged where only a role the repository does not declare could allow it', () => {
    const r = withObject('ClusterRoleBinding', 'portfolio-status-writer', (o) => ({
      ...o,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    }));
    expect(findings(r)).toEqual([
      [
        'not-judged',
        expect.stringMatching(
          /GET \/api\/v1\/nodes \(a role bound to system:serviceaccount:portfolio:portfolio-status-writer is not declared in the repository\)/,
        ),
      ],
    ]);
  });
});
