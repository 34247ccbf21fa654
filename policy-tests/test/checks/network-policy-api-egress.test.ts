/**
 * network-policy-api-egress beyond its mutation (the status writer's rule written for 443): the API server is reached
 * by Cilium's entities that hold it, toServices default/kubernetes, or a NetworkPolicy rule to every destination on
 * 6443; never by a rule to pods or to `world`; an address block or a node entity is said not judged; and a default
 * deny that shuts several programs at once is one finding, at the policy.
 */
import { describe, expect, it } from 'vitest';
import { apiEgressCheck } from '../../checks/network-policy/api-egress.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const WRITER_POLICY = 'portfolio-status-writer-egress';

/** The repository with the status writer's egress policy's API rule replaced by `rule` (none: the rule dropped). */
function withWriterRule(rule: Record<string, unknown> | undefined, kind = 'CiliumNetworkPolicy'): Repo {
  const resources = repo.resources.map((r) => {
    if (r.name !== WRITER_POLICY) return r;
    const object = structuredClone(r.object) as { kind: string; spec: Record<string, unknown> & { egress: unknown[] } };
    object.spec.egress = rule ? [object.spec.egress[0], rule] : [object.spec.egress[0]];
    if (kind === 'NetworkPolicy') {
      object.kind = kind;
      object.spec = { podSelector: object.spec.endpointSelector, policyTypes: ['Egress'], egress: rule ? [rule] : [] };
    }
    return { ...r, kind, apiVersion: kind === 'NetworkPolicy' ? 'networking.k8s.io/v1' : r.apiVersion, object } as Resource;
  });
  return { ...repo, resources };
}
/** The repository with the status writer's pod changed by `change` (its container, its pod spec). */
function withWriterPod(base: Repo, change: (pod: Record<string, unknown>, container: Record<string, unknown>) => void): Repo {
  const resources = base.resources.map((r) => {
    if (r.kind !== 'CronJob' || r.name !== 'portfolio-infra-status-writer') return r;
    const object = structuredClone(r.object) as {
      spec: { jobTemplate: { spec: { template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } } } } };
    };
    const pod = object.spec.jobTemplate.spec.template.spec;
    change(pod, pod.containers[0]!);
    return { ...r, object } as Resource;
  });
  return { ...base, resources };
}
const findings = (r: Repo) => runPolicy(r, [apiEgressCheck]).map((f) => [f.severity ?? 'fail', f.message]);
const REFUSED =
  /^CronJob portfolio-infra-status-writer runs "node dist\/status-writer\/main\.js" \(container writer\), which calls the API server \(\d+ requests\), and the egress policies that select its pods in portfolio \(NetworkPolicy default-deny, (Cilium)?NetworkPolicy portfolio-status-writer-egress\) have no rule to the API server/;

describe('network-policy-api-egress', () => {
  it("passes the repository's own policies: each API caller's way out is Cilium's kube-apiserver entity on 6443", () => {
    expect(findings(repo)).toEqual([]);
  });

  it('reaches the API server by the entities that hold it, toServices default/kubernetes, or every destination on 6443', () => {
    const ports = [{ ports: [{ port: '6443', protocol: 'TCP' }] }];
    expect(findings(withWriterRule({ toEntities: ['cluster'], toPorts: ports }))).toEqual([]);
    expect(findings(withWriterRule({ toEntities: ['all'] }))).toEqual([]);
    expect(findings(withWriterRule({ toServices: [{ k8sService: { serviceName: 'kubernetes', namespace: 'default' } }] }))).toEqual([]);
    expect(findings(withWriterRule({ ports: [{ port: 6443 }] }, 'NetworkPolicy'))).toEqual([]);
  });

  it('fails a rule to pods, to the world, or to the Service port 443, and none at all', () => {
    expect(findings(withWriterRule(undefined))).toEqual([['fail', expect.stringMatching(REFUSED)]]);
    expect(findings(withWriterRule({ toEntities: ['world'] }))).toEqual([['fail', expect.stringMatching(REFUSED)]]);
    expect(findings(withWriterRule({ toEntities: ['kube-apiserver'], toPorts: [{ ports: [{ port: '443', protocol: 'TCP' }] }] }))).toEqual([
      ['fail', expect.stringMatching(REFUSED)],
    ]);
    expect(findings(withWriterRule({ to: [{ namespaceSelector: {} }] }, 'NetworkPolicy'))).toEqual([['fail', expect.stringMatching(REFUSED)]]);
    expect(findings(withWriterRule({ ports: [{ port: 'https' }] }, 'NetworkPolicy'))).toEqual([['fail', expect.stringMatching(REFUSED)]]);
  });

  it("judges an address block by the cluster facts' control-plane nodes, and says one node entity is not judged", () => {
    const block = (cidr: string, except?: string[]) => withWriterRule({ to: [{ ipBlock: { cidr, except } }], ports: [{ port: 6443 }] }, 'NetworkPolicy');
    expect(findings(block('192.168.1.0/24'))).toEqual([]);
    expect(findings(withWriterRule({ toCIDR: ['192.168.1.8/29'] }))).toEqual([]);
    // The VIP alone, a block with a node cut out, the Service's own address: the endpoints are the nodes' addresses.
    const leftOut = expect.stringMatching(
      /only where it holds every control-plane node of the cluster facts: 192\.168\.1\.11, 192\.168\.1\.12, 192\.168\.1\.13\): each request times out/,
    );
    expect(findings(block('192.168.1.10/32'))).toEqual([['fail', leftOut]]);
    expect(findings(block('192.168.1.0/24', ['192.168.1.12/32']))).toEqual([['fail', leftOut]]);
    expect(findings(block('10.96.0.1/32'))).toEqual([['fail', leftOut]]);
    expect(findings(withWriterRule({ toEntities: ['remote-node'] }))).toEqual([['not-judged', expect.stringMatching(/is not known/)]]);
  });

  it('holds a pod whose account is granted a role to the same rule: a finding where its image is known to connect, not judged where not', () => {
    // A command the image's facts do not list: what it asks is unread, but its account's RoleBinding says it calls.
    const unlisted = withWriterPod(withWriterRule(undefined), (_pod, c) => (c.command = ['node', 'dist/other.js']));
    expect(findings(unlisted)).toEqual([
      [
        'not-judged',
        expect.stringMatching(
          /^CronJob portfolio-infra-status-writer runs as ServiceAccount portfolio\/portfolio-status-writer, which RoleBinding \S+ grants a role, and the egress policies .* whether its program calls it is not known/,
        ),
      ],
    ]);
    // An image whose facts say it connects (cert-manager's cainjector: callsApiServer) is a finding.
    const connects = withWriterPod(withWriterRule(undefined), (_pod, c) => (c.image = 'quay.io/jetstack/cert-manager-cainjector:v1.21.1'));
    expect(findings(connects)).toEqual([
      [
        'fail',
        expect.stringMatching(
          /grants a role and whose image quay\.io\/jetstack\/cert-manager-cainjector:v1\.21\.1 connects to the API server \(its facts\), and the egress policies .* have no rule to the API server/,
        ),
      ],
    ]);
    // A pod on the node's network is no endpoint the policies select; a pod that mounts no token calls nothing.
    expect(findings(withWriterPod(withWriterRule(undefined), (pod) => (pod.hostNetwork = true)))).toEqual([]);
    expect(
      findings(withWriterPod(withWriterRule(undefined), (pod, c) => ((pod.automountServiceAccountToken = false), (c.command = ['node', 'x.js'])))),
    ).toEqual([]);
  });

  it("reads an image whose facts say which settings make it call from the container's variables, its envFrom sources' among them", () => {
    // falcosidekick's facts: it calls only with PolicyReport on, or a function output given a kubeconfig.
    const sidekick = (base: Repo, env: Record<string, string>[], envFrom?: unknown[]) =>
      withWriterPod(base, (_pod, c) => {
        for (const key of ['command', 'args', 'env', 'envFrom']) delete c[key];
        Object.assign(c, { image: 'docker.io/falcosecurity/falcosidekick:2.32.0', env }, envFrom ? { envFrom } : {});
      });
    const withObjects = (...added: Record<string, unknown>[]): Repo => {
      const objects = added.map((object) => {
        const metadata = object.metadata as { name: string };
        return { kind: object.kind, name: metadata.name, namespace: 'portfolio', object } as unknown as Resource;
      });
      return { ...withWriterRule(undefined), resources: [...withWriterRule(undefined).resources, ...objects] };
    };
    const secret = (data: Record<string, string>) => ({
      kind: 'Secret',
      metadata: { name: 'sidekick', namespace: 'portfolio' },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    });
    const shut = expect.stringMatching(
      /whose image docker\.io\/falcosecurity\/falcosidekick:2\.32\.0 \(with POLICYREPORT_ENABLED=True\) connects to the API server \(its facts\), and the egress policies .* have no rule to the API server/,
    );
    // None of the settings on: its role is granted, and it sends nothing, so no rule to the API server is wanted.
    expect(findings(sidekick(withWriterRule(undefined), [{ name: 'POLICYREPORT_ENABLED', value: 'false' }]))).toEqual([]);
    expect(
      findings(
        sidekick(withWriterRule(undefined), [
          { name: 'KUBELESS_FUNCTION', value: 'f' },
          { name: 'KUBELESS_NAMESPACE', value: 'x' },
        ]),
      ),
    ).toEqual([]);
    expect(findings(sidekick(withWriterRule(undefined), [{ name: 'POLICYREPORT_ENABLED', value: 'True' }]))).toEqual([['fail', shut]]);
    // From the chart's Secret by envFrom, as the chart sets them; the last source that holds a name wins, its prefix cut first.
    const fromSecret = (value: string, prefix?: string) =>
      sidekick(withObjects(secret({ POLICYREPORT_ENABLED: value })), [], [{ secretRef: { name: 'sidekick' }, ...(prefix ? { prefix } : {}) }]);
    expect(findings(fromSecret('false'))).toEqual([]);
    expect(findings(fromSecret('True'))).toEqual([['fail', shut]]);
    expect(findings(fromSecret('True', 'X_'))).toEqual([]);
    // A key an ExternalSecret writes holds a value the gate does not read: whether the output is on is not known.
    const external = {
      kind: 'ExternalSecret',
      metadata: { name: 'sidekick', namespace: 'portfolio' },
      spec: { data: [{ secretKey: 'FISSION_KUBECONFIG', remoteRef: { key: 'k' } }] },
    };
    const unread = sidekick(withObjects(external), [{ name: 'FISSION_FUNCTION', value: 'f' }], [{ secretRef: { name: 'sidekick' } }]);
    expect(findings(unread)).toEqual([
      [
        'not-judged',
        expect.stringMatching(/is not known, as the facts say it calls only with some settings, and FISSION_KUBECONFIG comes from an envFrom source/),
      ],
    ]);
    // Without the function, that output is off whatever the kubeconfig: judged, and nothing is wanted.
    expect(findings(sidekick(withObjects(external), [], [{ secretRef: { name: 'sidekick' } }]))).toEqual([]);
  });

  it("passes a pod whose image's facts say its program never calls (the SNMP exporter), unless a command replaces its binary", () => {
    const snmp = (command?: string[]) =>
      withWriterPod(withWriterRule(undefined), (_pod, c) => {
        for (const key of ['command', 'args']) delete c[key];
        Object.assign(c, { image: 'quay.io/prometheus/snmp-exporter:v0.30.1', args: ['--config.file=/config/snmp.yaml'] }, command ? { command } : {});
      });
    expect(findings(snmp())).toEqual([]);
    expect(findings(snmp(['/bin/sh', '-c', 'exec /bin/snmp_exporter']))).toEqual([
      ['not-judged', expect.stringMatching(/whether its program calls it is not known, as no facts of its images say it connects there/)],
    ]);
  });

  it("gives one finding, at the policy, for a default deny that shuts several programs' way out", () => {
    const withoutAllowances = { ...repo, resources: repo.resources.filter((r) => !(r.kind === 'CiliumNetworkPolicy' && r.namespace === 'backups')) };
    const result = runPolicy(withoutAllowances, [apiEgressCheck]);
    expect(result.map((f) => [f.file, f.message])).toEqual([
      [
        'apps/platform/backups/networkpolicy.yaml',
        expect.stringMatching(/^NetworkPolicy \S+ isolates the egress of \d+ programs in backups that call the API server \(CronJob /),
      ],
    ]);
  });
});
