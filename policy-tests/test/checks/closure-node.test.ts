/**
 * closure-node's reading of the scheduler's NodeAffinity and TaintToleration filters (v1.36: component-helpers'
 * nodeaffinity, v1 Toleration.ToleratesTaint) over the nodes Talos makes: the control-plane nodes and the workers.
 */
import { describe, expect, it } from 'vitest';
import { nodeKinds } from '../../model/scheduling/nodes.ts';
import { oneToANode, placement } from '../../checks/closure/scheduling.ts';
import { daemonSetPortClashes, heldByDaemonSets, hostPorts, surgeHeldPort, talosPortClash } from '../../checks/closure/host-ports.ts';

const facts = (allowSchedulingOnControlPlanes = false, nodeCount = 6, nodeLabels: Record<string, string> = {}) => ({
  nodeCount,
  controlPlaneCount: 3,
  machineConfig: {
    allowedUnsafeSysctls: [],
    allowSchedulingOnControlPlanes,
    nodeLabels,
    kubePrism: { enabled: true, port: 7445 },
    proxyDisabled: false,
    cni: 'none' as const,
    bindAddress: { controllerManager: '0.0.0.0', scheduler: '0.0.0.0' },
  },
});
const nodes = nodeKinds(facts());
const CP = 'node-role.kubernetes.io/control-plane';
const TAINTED = 'the control-plane nodes carry the taint node-role.kubernetes.io/control-plane:NoSchedule, which it does not tolerate';
const NO_MATCH = 'the workers do not match its node selection (their labels: kubernetes.io/os=linux, beta.kubernetes.io/os=linux)';

describe('where the scheduler places a pod on the nodes Talos makes', () => {
  it('places a pod that selects nothing on the workers, and one pinned to the control plane only where it tolerates the taint', () => {
    expect(placement({}, nodes).fit).toBe('yes');
    expect(placement({ nodeSelector: { [CP]: '' } }, nodes)).toMatchObject({ fit: 'no', why: [TAINTED, NO_MATCH], unknownKeys: [] });
    for (const toleration of [
      { key: CP, operator: 'Exists', effect: 'NoSchedule' },
      { key: CP, operator: 'Exists' },
      { operator: 'Exists' },
      { key: CP, value: '', effect: 'NoSchedule' },
    ])
      expect(placement({ nodeSelector: { [CP]: '' }, tolerations: [toleration] }, nodes).fit, JSON.stringify(toleration)).toBe('yes');
    for (const toleration of [
      { key: CP, operator: 'Exists', effect: 'NoExecute' },
      { key: CP, value: 'true' },
      { key: 'node-role.kubernetes.io/master', operator: 'Exists' },
    ])
      expect(placement({ nodeSelector: { [CP]: '' }, tolerations: [toleration] }, nodes).fit, JSON.stringify(toleration)).toBe('no');
    // A machine config that lets the control plane run workloads leaves it untainted.
    expect(placement({ nodeSelector: { [CP]: '' } }, nodeKinds(facts(true))).fit).toBe('yes');
  });

  it('reads required node affinity as the scheduler does: terms ORed, requirements ANDed, an empty term matching nothing', () => {
    const affinity = (...nodeSelectorTerms: object[]) => ({
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } },
    });
    const os = (operator: string, values?: string[]) => ({ matchExpressions: [{ key: 'kubernetes.io/os', operator, ...(values ? { values } : {}) }] });
    expect(placement(affinity(os('In', ['linux'])), nodes).fit).toBe('yes');
    expect(placement(affinity(os('In', ['windows'])), nodes)).toMatchObject({
      fit: 'no',
      why: [expect.stringContaining('control-plane nodes do not match'), NO_MATCH],
      unknownKeys: [],
    });
    expect(placement(affinity(os('In', ['windows']), os('Exists')), nodes).fit).toBe('yes');
    expect(placement(affinity(os('NotIn', ['linux'])), nodes).fit).toBe('no');
    expect(placement(affinity({}), nodes).fit).toBe('no');
    expect(placement(affinity({ matchExpressions: [{ key: CP, operator: 'DoesNotExist' }] }), nodes).fit).toBe('yes');
    expect(placement(affinity({ matchExpressions: [{ key: CP, operator: 'Gt', values: ['1'] }] }), nodes).fit).toBe('no');
  });

  it("gives the nodes Talos' labels and the machine config's nodeLabels, and no other: a program here labels no node", () => {
    expect(placement({ nodeSelector: { gpu: 'intel' } }, nodes)).toMatchObject({
      fit: 'no',
      why: [expect.stringContaining('control-plane nodes do not match'), NO_MATCH],
      unknownKeys: [],
    });
    expect(placement({ nodeSelector: { gpu: 'intel' } }, nodeKinds(facts(false, 6, { gpu: 'intel' }))).fit).toBe('yes');
    // A worker role is no label Talos gives, and no kubelet may give its own node a role.
    expect(placement({ nodeSelector: { 'node-role.kubernetes.io/worker': '' } }, nodes)).toMatchObject({ fit: 'no', unknownKeys: [] });
    // The exclusions charts write for nodes this cluster has none of (a serverless node, a virtual kubelet) hold.
    const exclude = {
      matchExpressions: [
        { key: 'eks.amazonaws.com/compute-type', operator: 'NotIn', values: ['fargate'] },
        { key: 'cilium.io/no-schedule', operator: 'DoesNotExist' },
      ],
    };
    expect(placement({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [exclude] } } } }, nodes).fit).toBe(
      'yes',
    );
  });

  it('finds no node for a pod spread over a label no node carries (DoNotSchedule), as the PodTopologySpread filter does', () => {
    const spread = (topologyKey: string, whenUnsatisfiable = 'DoNotSchedule') => ({
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey, whenUnsatisfiable }],
    });
    // No cloud provider runs here, so no node has a zone.
    expect(placement(spread('topology.kubernetes.io/zone'), nodes)).toMatchObject({
      fit: 'no',
      why: [TAINTED, 'the workers carry no label topology.kubernetes.io/zone, over which its topology spread constraint spreads it (DoNotSchedule)'],
    });
    expect(placement(spread('topology.kubernetes.io/zone', 'ScheduleAnyway'), nodes).fit).toBe('yes');
    expect(placement(spread('kubernetes.io/hostname'), nodes).fit).toBe('yes');
    expect(placement(spread('topology.kubernetes.io/zone'), nodeKinds(facts(false, 6, { 'topology.kubernetes.io/zone': 'rack-1' }))).fit).toBe('yes');
    expect(placement(spread('kubernetes.io/arch'), nodes)).toMatchObject({ fit: 'unknown', unknownKeys: ['kubernetes.io/arch'] });
  });

  it('says not known where the pod selects by a label the facts do not give the nodes, unless no node could take it anyway', () => {
    expect(placement({ nodeSelector: { 'kubernetes.io/arch': 'amd64' } }, nodes)).toMatchObject({
      fit: 'unknown',
      why: [TAINTED],
      unknownKeys: ['kubernetes.io/arch'],
    });
    const byName = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
        },
      },
    };
    expect(placement(byName, nodes)).toMatchObject({ fit: 'unknown', unknownKeys: ['metadata.name'] });
    expect(placement({ nodeSelector: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'windows' } }, nodes).fit).toBe('no');
  });

  it('counts the nodes that surely take a pod: the workers alone, unless it tolerates the control plane', () => {
    expect(placement({}, nodes)).toMatchObject({ taking: 3, unknownKinds: 0 });
    expect(placement({ tolerations: [{ operator: 'Exists' }] }, nodes)).toMatchObject({ taking: 6, unknownKinds: 0 });
    expect(placement({ nodeSelector: { 'kubernetes.io/hostname': 'n1' } }, nodes)).toMatchObject({ taking: 0, unknownKinds: 1 });
  });

  it("reads a pod's host ports as the scheduler does, and finds the ones Talos' own processes hold", () => {
    const pod = (spec: Record<string, unknown>) => ({ spec, at: ['spec'] as (string | number)[] });
    const ports = (list: object[]) => [{ name: 'app', ports: list }];
    // On the host's network every container port is a host port; otherwise only a hostPort is.
    expect(hostPorts(pod({ hostNetwork: true, containers: ports([{ containerPort: 9100 }]) })).map((p) => [p.port, p.protocol])).toEqual([[9100, 'TCP']]);
    expect(hostPorts(pod({ containers: ports([{ containerPort: 9100 }, { containerPort: 53, hostPort: 5353, protocol: 'UDP' }]) })).map((p) => p.port)).toEqual(
      [5353],
    );
    // A one-shot init container's ports are not held while the pod runs; a sidecar's are.
    expect(hostPorts(pod({ initContainers: [{ name: 'i', ports: [{ containerPort: 1, hostPort: 1 }] }], containers: [] }))).toEqual([]);
    expect(
      hostPorts(pod({ initContainers: [{ name: 's', restartPolicy: 'Always', ports: [{ containerPort: 2, hostPort: 2 }] }], containers: [] })),
    ).toHaveLength(1);
    const onWorkers = ['no', 'yes'] as const;
    expect(talosPortClash(pod({ containers: ports([{ containerPort: 1, hostPort: 10250 }]) }), nodes, onWorkers)?.text).toBe(
      "its host port 10250/TCP is the one Talos' kubelet listens on, on the control-plane nodes: the two cannot share it".replace(
        'control-plane nodes',
        'workers',
      ),
    );
    // etcd's port is held on the control-plane nodes alone.
    expect(talosPortClash(pod({ containers: ports([{ containerPort: 1, hostPort: 2379 }]) }), nodes, onWorkers)).toBeUndefined();
    expect(talosPortClash(pod({ containers: ports([{ containerPort: 1, hostPort: 2379 }]) }), nodes, ['yes', 'yes'])?.text).toMatch(
      /Talos' etcd listens on, on the control-plane nodes/,
    );
    expect(talosPortClash(pod({ containers: ports([{ containerPort: 1, hostPort: 10250, protocol: 'UDP' }]) }), nodes, ['yes', 'yes'])).toBeUndefined();
  });

  it("keeps a workload's pods one to a node by its own required anti-affinity on the hostname, or by a host port", () => {
    const deployment = (spec: Record<string, unknown>) => {
      const object = { spec: { template: { metadata: { labels: { app: 'a' } }, spec } } };
      return [{ kind: 'Deployment', name: 'a', namespace: 'ns', object } as never, { spec, at: ['spec', 'template', 'spec'] as (string | number)[] }] as const;
    };
    const anti = (term: object) => ({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } });
    const self = { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'a' } } };
    expect(oneToANode(...deployment(anti(self)))).toMatchObject({
      cause: 'required pod anti-affinity on kubernetes.io/hostname',
      path: ['spec', 'template', 'spec', 'affinity', 'podAntiAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 0],
    });
    // Another workload's pods, another topology, no selector (which matches no pod), another namespace: no limit on its own.
    for (const term of [
      { ...self, labelSelector: { matchLabels: { app: 'b' } } },
      { ...self, topologyKey: 'topology.kubernetes.io/zone' },
      { topologyKey: 'kubernetes.io/hostname' },
      { ...self, namespaces: ['other'] },
    ])
      expect(oneToANode(...deployment(anti(term))), JSON.stringify(term)).toBeUndefined();
    expect(oneToANode(...deployment({ containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }] }] }))).toMatchObject({
      cause: 'host port 8080/TCP',
      loosen: 'ask for no host port (a Service reaches the pods)',
    });
  });

  it("gives a node's port to one of two DaemonSets that ask every node for it, and says so of the later one", () => {
    const ds = (name: string, port: number, fits: ('yes' | 'no' | 'unknown')[], extra: object = {}) => ({
      r: { kind: 'DaemonSet', name } as never,
      ports: [{ port, protocol: 'TCP', hostIP: '', path: ['p'], ...extra }],
      fits,
    });
    expect(daemonSetPortClashes([ds('node-exporter', 9100, ['yes', 'yes']), ds('other', 9100, ['no', 'yes'])], nodes).map((c) => c.text)).toEqual([
      'its host port 9100/TCP is one DaemonSet node-exporter also asks every node for, on the workers: one of the two runs no pod there',
    ]);
    // Other nodes, a node not surely shared, another protocol, or two distinct addresses: no clash.
    for (const other of [ds('b', 9100, ['yes', 'no']), ds('b', 9100, ['unknown', 'unknown']), ds('b', 9100, ['yes', 'yes'], { protocol: 'UDP' })])
      expect(daemonSetPortClashes([ds('a', 9100, ['no', 'yes']), other], nodes)).toEqual([]);
    expect(daemonSetPortClashes([ds('a', 9100, ['yes', 'yes'], { hostIP: '10.0.0.1' }), ds('b', 9100, ['yes', 'yes'], { hostIP: '10.0.0.2' })], nodes)).toEqual(
      [],
    );
    expect(daemonSetPortClashes([ds('a', 9100, ['yes', 'yes'], { hostIP: '10.0.0.1' }), ds('b', 9100, ['yes', 'yes'])], nodes)).toHaveLength(1);
  });

  it("stalls a DaemonSet's surging update on a host port the old pod holds, and not one that stops the old pod first", () => {
    const daemonSet = (rollingUpdate: object, spec: Record<string, unknown>, type = 'RollingUpdate') =>
      [{ kind: 'DaemonSet', object: { spec: { updateStrategy: { type, rollingUpdate } } } } as never, { spec, at: ['spec'] as (string | number)[] }] as const;
    const onHost = { hostNetwork: true, containers: [{ name: 'c', ports: [{ containerPort: 9100 }] }] };
    expect(surgeHeldPort(...daemonSet({ maxSurge: 1, maxUnavailable: 0 }, onHost))?.text).toMatch(/holds host port 9100\/TCP until the new one is available/);
    expect(surgeHeldPort(...daemonSet({ maxSurge: '10%', maxUnavailable: 0 }, onHost))).toBeDefined();
    expect(surgeHeldPort(...daemonSet({ maxSurge: 0, maxUnavailable: 1 }, onHost))).toBeUndefined();
    expect(surgeHeldPort(...daemonSet({ maxSurge: '0%', maxUnavailable: 1 }, onHost))).toBeUndefined();
    expect(surgeHeldPort(...daemonSet({ maxSurge: 1, maxUnavailable: 0 }, { containers: [{ name: 'c', ports: [{ containerPort: 9100 }] }] }))).toBeUndefined();
    expect(surgeHeldPort(...daemonSet({ maxSurge: 1 }, onHost, 'OnDelete'))).toBeUndefined();
  });

  it('finds where a DaemonSet holds a host port on every node, for the other pods that ask for it', () => {
    const exporter = {
      r: { kind: 'DaemonSet', name: 'node-exporter' } as never,
      ports: [{ port: 9100, protocol: 'TCP', hostIP: '', path: [] }],
      fits: ['no', 'yes'] as const,
    };
    const asks = [{ port: 9100, protocol: 'TCP', hostIP: '', path: [] }];
    expect([...heldByDaemonSets({} as never, asks, [exporter]).keys()]).toEqual([1]);
    expect(heldByDaemonSets(exporter.r, asks, [exporter]).size).toBe(0);
    expect(heldByDaemonSets({} as never, [{ ...asks[0]!, port: 9101 }], [exporter]).size).toBe(0);
    expect(heldByDaemonSets({} as never, asks, [{ ...exporter, fits: ['unknown', 'unknown'] }]).size).toBe(0);
  });

  it("gives the nodes the kubelet's own labels: its OS always, under the stable and the beta key, and its architecture where the facts say it", () => {
    const arch = (value: string, key = 'kubernetes.io/arch') => ({ nodeSelector: { [key]: value } });
    expect(placement(arch('amd64'), nodes)).toMatchObject({ fit: 'unknown', unknownKeys: ['kubernetes.io/arch'] });
    expect(placement({ nodeSelector: { 'beta.kubernetes.io/os': 'linux' } }, nodes).fit).toBe('yes');
    const amd64 = nodeKinds({ ...facts(), nodeArchitecture: 'amd64' });
    expect(placement(arch('amd64'), amd64)).toMatchObject({ fit: 'yes', taking: 3, unknownKeys: [] });
    expect(placement(arch('amd64', 'beta.kubernetes.io/arch'), amd64).fit).toBe('yes');
    expect(placement(arch('arm64'), amd64)).toMatchObject({ fit: 'no', unknownKeys: [] });
  });

  it('has as many kinds of node as the facts: none of workers when every node is a control-plane node', () => {
    expect(nodeKinds(facts()).map((n) => n.name)).toEqual(['control-plane nodes', 'workers']);
    expect(nodeKinds(facts(false, 3)).map((n) => [n.name, n.count, n.tainted])).toEqual([['control-plane nodes', 3, true]]);
  });
});
