/**
 * alloy-tails-its-node on a rendered alloy chart (the DaemonSet's alloy container and its configuration, as the chart
 * renders them): the node selector's value worked out with the agent's environment as the kubelet and the container
 * runtime set it. Its mutation (monitoring-sources.ts) judges the values offline.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { alloyNodeCheck } from '../../checks/monitoring/alloy-node.ts';
import { alloyConfigCheck } from '../../checks/monitoring/alloy-config.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { judgedWithRender } from '../support/chart-render.ts';
import { podFieldSelector } from '../../model/programs/field-selectors.ts';

const CONFIG = String(
  (parse(readFileSync(join(REPO_ROOT, 'monitoring/alloy/values.yaml'), 'utf8')) as { alloy: { configMap: { content: string } } }).alloy.configMap.content,
);
const SELECTOR = 'coalesce(sys.env("HOSTNAME"), constants.hostname)';
/** The chart's env (templates/containers/_agent.yaml): HOSTNAME and K8S_NODE_NAME from spec.nodeName. */
const CHART_ENV = [
  { name: 'ALLOY_DEPLOY_MODE', value: 'helm' },
  { name: 'HOSTNAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
  { name: 'K8S_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
];

const judged = (o: { config?: string; env?: unknown[]; hostNetwork?: boolean }, check = alloyNodeCheck) =>
  judgedWithRender(check, { app: 'alloy', chart: 'alloy', namespace: 'monitoring' }, [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'alloy', namespace: 'monitoring' }, data: { 'config.alloy': o.config ?? CONFIG } },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'alloy', namespace: 'monitoring' },
      spec: {
        template: {
          spec: {
            ...(o.hostNetwork ? { hostNetwork: true } : {}),
            containers: [{ name: 'alloy', image: 'docker.io/grafana/alloy:v1.18.1', env: o.env ?? CHART_ENV }],
          },
        },
      },
    },
  ]);

describe('alloy-tails-its-node', () => {
  it("passes main's selector: HOSTNAME is the node's name, as the chart sets it", async () => {
    expect(await judged({})).toEqual({ failed: [], notJudged: [] });
    expect(await judged({ config: CONFIG.replace(SELECTOR, 'sys.env("K8S_NODE_NAME")') })).toEqual({ failed: [], notJudged: [] });
  });

  it("fails a selector that reads the pod's hostname: a variable the chart does not set, or HOSTNAME where the spec leaves it to the runtime", async () => {
    const nodeName = await judged({ config: CONFIG.replace(SELECTOR, 'coalesce(sys.env("NODE_NAME"), constants.hostname)') });
    expect(nodeName.failed).toEqual([expect.stringContaining("compares spec.nodeName with the pod's hostname (its name), which names no node")]);
    const runtime = await judged({ env: CHART_ENV.filter((e) => e.name !== 'HOSTNAME') });
    expect(runtime.failed).toHaveLength(1);
  });

  it('fails a fixed node, and no selector without clustering; passes clustering; leaves the host network not judged', async () => {
    expect((await judged({ config: CONFIG.replace(SELECTOR, '"talos-w1"') })).failed).toEqual([
      expect.stringContaining('selects the pods of node "talos-w1" on every node'),
    ]);
    const none = CONFIG.replace(/ {2}selectors \{[^}]*\}\n/, '');
    expect((await judged({ config: none })).failed).toEqual([expect.stringContaining('every agent of the DaemonSet tails every pod of the cluster')]);
    const clustered = none.replace('loki.source.kubernetes "pods" {\n', 'loki.source.kubernetes "pods" {\n  clustering {\n    enabled = true\n  }\n');
    expect(await judged({ config: clustered })).toEqual({ failed: [], notJudged: [] });
    const onHost = await judged({ config: CONFIG.replace(SELECTOR, 'constants.hostname'), hostNetwork: true });
    expect(onHost).toEqual({ failed: [], notJudged: [expect.stringContaining("compares with the node's hostname")] });
  });
});

describe('alloy-tails-its-node through discovery.relabel', () => {
  const NO_FIELD = CONFIG.replace(/ {2}selectors \{[^}]*\}\n/, '');
  /** The source fed through a relabelling of the discovery's targets, with its rules. */
  const relabelled = (rules: string, config = CONFIG) =>
    `${config.replace('targets    = discovery.kubernetes.pods.targets', 'targets    = discovery.relabel.pods.output')}discovery.relabel "pods" {\n  targets = discovery.kubernetes.pods.targets\n${rules}}\n`;
  const keep = (regex: string, action = '"keep"') =>
    `  rule {\n    source_labels = ["__meta_kubernetes_pod_node_name"]\n    action        = ${action}\n    regex         = ${regex}\n  }\n`;

  it("follows the targets to their discovery: main's selector passes through a relabelling, and none fails through it", async () => {
    expect(await judged({ config: relabelled('') })).toEqual({ failed: [], notJudged: [] });
    expect((await judged({ config: relabelled('', NO_FIELD) })).failed).toEqual([
      expect.stringContaining('tails through discovery.relabel "pods", selects no node\'s pods'),
    ]);
  });

  it("reads a keep rule on the pod's node as the node it selects: its own passes, the pod's hostname or a fixed node fails", async () => {
    expect(await judged({ config: relabelled(keep('sys.env("HOSTNAME")'), NO_FIELD) })).toEqual({ failed: [], notJudged: [] });
    expect(await judged({ config: relabelled(keep('sys.env("K8S_NODE_NAME")'), NO_FIELD) })).toEqual({ failed: [], notJudged: [] });
    // relabel.Action takes its names as written: KEEP fails the load, and what the rule keeps is not read.
    const upper = relabelled(keep('sys.env("HOSTNAME")', '"KEEP"'), NO_FIELD);
    expect((await judged({ config: upper }, alloyConfigCheck)).failed).toEqual([expect.stringContaining('"KEEP" unrecognized action type "KEEP"')]);
    expect((await judged({ config: upper })).notJudged).toHaveLength(1);
    expect((await judged({ config: relabelled(keep('coalesce(sys.env("NODE_NAME"), constants.hostname)'), NO_FIELD) })).failed).toEqual([
      expect.stringContaining(
        `discovery.relabel "pods"'s keep rule on the pod's node keeps the pods whose node is the pod's hostname (its name), which names no node`,
      ),
    ]);
    expect((await judged({ config: relabelled(keep('sys.env("NODE_NAME")'), NO_FIELD) })).failed).toEqual([
      expect.stringContaining('compares with "", which names no node (a variable nothing sets reads as "")'),
    ]);
    expect((await judged({ config: relabelled(keep('"talos-w1"'), NO_FIELD) })).failed).toEqual([
      expect.stringContaining('selects the pods of node "talos-w1" on every node'),
    ]);
    // A rule that drops, or keeps by another label, selects no node; a regular expression is not read.
    expect((await judged({ config: relabelled(keep('sys.env("HOSTNAME")', '"drop"'), NO_FIELD) })).failed).toHaveLength(1);
    const rewrite = '  rule {\n    target_label = "__meta_kubernetes_pod_node_name"\n    replacement  = "talos-w1"\n  }\n';
    const drops = '  rule {\n    action = "labeldrop"\n    regex  = "__meta_kubernetes_pod_label_.+"\n  }\n';
    expect(await judged({ config: relabelled(drops + keep('sys.env("HOSTNAME")'), NO_FIELD) })).toEqual({ failed: [], notJudged: [] });
    expect((await judged({ config: relabelled(rewrite + keep('sys.env("HOSTNAME")'), NO_FIELD) })).notJudged).toHaveLength(1);
    // Rewritten but never kept by: no node is selected.
    expect((await judged({ config: relabelled(rewrite, NO_FIELD) })).failed).toEqual([expect.stringContaining("selects no node's pods")]);
    expect(await judged({ config: relabelled(keep('".*"'), NO_FIELD) })).toEqual({
      failed: [],
      notJudged: [expect.stringContaining("keep rule on the pod's node reads a value the gate does not work out")],
    });
  });

  it('says a circle of relabellings, which leads to no discovery, not judged', async () => {
    const circle = `${CONFIG.replace('targets    = discovery.kubernetes.pods.targets', 'targets    = discovery.relabel.a.output')}discovery.relabel "a" {\n  targets = discovery.relabel.b.output\n}\ndiscovery.relabel "b" {\n  targets = discovery.relabel.a.output\n}\n`;
    expect((await judged({ config: circle })).notJudged).toEqual([expect.stringContaining('takes targets the gate does not follow to a discovery.kubernetes')]);
  });
});

describe('alloy-config-loads on a rendered chart', () => {
  it("reads a variable of the agent's environment by its value: a wait of 5 with no unit refused", async () => {
    const config = CONFIG.replace('url = "http://loki', 'batch_wait = sys.env("WAIT")\n    url = "http://loki');
    const env = [...CHART_ENV, { name: 'WAIT', value: '5' }];
    expect((await judged({ config, env }, alloyConfigCheck)).failed).toEqual([expect.stringContaining('sys.env("WAIT") time: missing unit in duration "5"')]);
    expect((await judged({ config, env: [...CHART_ENV, { name: 'WAIT', value: '5s' }] }, alloyConfigCheck)).failed).toEqual([]);
  });
});

describe('a field selector as the API server reads one for pods', () => {
  it('parses terms by their first operator, unescapes values, converts spec.host and refuses what the server refuses', () => {
    expect(podFieldSelector('spec.nodeName=w1,status.phase!=Failed')).toEqual({
      terms: [
        { field: 'spec.nodeName', op: '=', value: 'w1' },
        { field: 'status.phase', op: '!=', value: 'Failed' },
      ],
    });
    expect(podFieldSelector('spec.host==w1')).toEqual({ terms: [{ field: 'spec.nodeName', op: '==', value: 'w1' }] });
    expect(podFieldSelector('metadata.name=a\\,b')).toEqual({ terms: [{ field: 'metadata.name', op: '=', value: 'a,b' }] });
    expect(podFieldSelector('spec.node=w1')).toEqual({ error: 'field label not supported: spec.node' });
    expect(podFieldSelector('spec.nodeName')).toEqual({ error: "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'" });
    expect(podFieldSelector('metadata.name=a\\b')).toEqual({ error: 'invalid field selector: invalid escape sequence: \\b' });
    expect(podFieldSelector('metadata.name=a=b')).toEqual({ error: 'invalid field selector: unescaped character in value: 61' });
  });

  it("fails a discovery of a role Prometheus' discovery does not run, or of targets that carry no pod; leaves the endpoints' not judged", async () => {
    const role = (r: string) => judged({ config: CONFIG.replace('  role = "pod"\n', `  role = "${r}"\n`) });
    expect((await role('pods')).failed).toEqual([expect.stringContaining('has the role "pods", which Prometheus\' Kubernetes discovery does not run')]);
    expect((await role('service')).failed).toEqual([expect.stringContaining('discovers services, whose targets carry no pod')]);
    expect(await role('endpointslice')).toEqual({ failed: [], notJudged: [expect.stringContaining("gives the pods behind a Service's ports alone")] });
  });

  it('fails a discovery whose node selector the API server refuses', async () => {
    const refused = await judged({ config: CONFIG.replace('"spec.nodeName=" + ', '"spec.node=" + ') });
    expect(refused.failed).toEqual([expect.stringContaining('the API server refuses every list of pods it sends (field label not supported: spec.node)')]);
  });

  it('fails a label selector beside the node selector that the API server refuses (labels.Parse), and reads a good one through', async () => {
    const withLabel = (label: string) => judged({ config: CONFIG.replace('    role  = "pod"\n', `    role  = "pod"\n    label = ${label}\n`) });
    expect(await withLabel('"app.kubernetes.io/name notin (loki,alloy),!batch.kubernetes.io/job-name"')).toEqual({ failed: [], notJudged: [] });
    expect((await withLabel('"app in (loki"')).failed).toEqual([
      expect.stringContaining("the API server refuses every list of pods it sends (unable to parse requirement: found '', expected: ',' or ')')"),
    ]);
    expect((await withLabel('"tier>=2"')).failed).toEqual([expect.stringContaining("(unable to parse requirement: found '=', expected: identifier)")]);
    // A variable the chart does not set reads as "", the empty selector, which selects every pod.
    expect(await withLabel('sys.env("SELECTOR")')).toEqual({ failed: [], notJudged: [] });
    // Not worked out, a label selector may be one the server refuses: said, and the node selector still judged.
    expect(await withLabel('encoding.from_json(sys.env("SELECTOR_JSON"))')).toEqual({
      failed: [],
      notJudged: [expect.stringContaining('its label selector reads a value the gate does not work out')],
    });
  });
});
