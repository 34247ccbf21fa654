/**
 * alloy-tails-its-node: an Alloy that runs on every node (the chart's DaemonSet) and tails pod logs through the API
 * (`loki.source.kubernetes`, its targets a `discovery.kubernetes` of role pod, straight or through `discovery.relabel`s)
 * reads the pods of its own node: a relabelling's keep rule on the pod's node read as a field selector, or a
 * selector of role pod whose field selector is `spec.nodeName=` the node's name, or the source's clustering on (the
 * agents share the targets out). The value is worked out as Alloy evaluates it (model/alloy/evaluate.ts) with what the
 * agent reads of its host: a variable of its container's environment as the kubelet sets it (a `fieldRef` of
 * `spec.nodeName` is the node's name; HOSTNAME, where the pod's spec does not set it, the pod's hostname, as the
 * container runtime sets it) and `constants.hostname` (the pod's hostname: its name, or the node's on the host's
 * network). A node selector compared with the pod's hostname, or with a fixed name, selects no pod (or one node's) on
 * every other node, so those nodes' logs never reach the log store, silently; a field selector the API server refuses
 * for pods (model/programs/field-selectors.ts: its grammar, the fields a Pod is selected by), or a label selector beside
 * it that labels.Parse refuses (model/programs/label-selectors.ts), fails every list, both going in one request; without
 * a node selector every agent tails every pod. A discovery of a role Prometheus' discovery does not run finds nothing,
 * and one of nodes, Services or Ingresses gives targets that carry no pod, which the source refuses (PrepareLabels).
 */
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { dig } from '../../model/core/dig.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { attributeNamed, blocksNamed, parseAlloy, type AlloyExpr, type AlloyStatement } from '../../model/alloy/parser.ts';
import { evaluate, type EvalScope } from '../../model/alloy/evaluate.ts';
import { targetsPath } from '../../model/alloy/references.ts';
import { RELABEL_ACTIONS } from '../../model/alloy/validators.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { podFieldSelector } from '../../model/programs/field-selectors.ts';
import { parseLabelSelector } from '../../model/programs/label-selectors.ts';
import { plainValue, stringParts } from '../../model/alloy/evaluated.ts';
import { scalarText } from '../../model/core/text.ts';
import { dns1123Subdomain } from '../../model/scheduling/label-syntax.ts';
import { NODE_NAME, POD_HOSTNAME } from '../../model/alloy/host.ts';
import { alloyConfiguration } from './alloy-config.ts';

const attr = (body: readonly AlloyStatement[], name: string): AlloyExpr | undefined => attributeNamed(body, name)?.value;

/** An expression's value where the evaluator works it out whole in the agent's scope, else undefined. */
const knownIn = (scope: EvalScope) => (e: AlloyExpr | undefined) => (e ? plainValue(evaluate(e, scope)) : undefined);

/**
 * A selector's node term: the symbol or name `spec.nodeName=` compares with; the API server's refusal of the selector;
 * `unread` where its value is not worked out; undefined where it compares no node.
 */
function nodeTerm(field: AlloyExpr, scope: EvalScope): { symbol: string } | { name: string } | { refused: string } | 'unread' | undefined {
  const parts = stringParts(evaluate(field, scope));
  if (!parts) return 'unread';
  // Each value of the host as a placeholder the selector's grammar reads as plain text (a name holds no `,`, `=` or `\`).
  const text = parts.map((p, i) => (typeof p === 'string' ? p : `\uE000${i}\uE000`)).join('');
  const selector = podFieldSelector(text);
  if ('error' in selector) return { refused: selector.error };
  const term = selector.terms.find((t) => t.field === 'spec.nodeName' && t.op !== '!=');
  if (!term) return undefined;
  const symbol = /^\uE000(\d+)\uE000$/.exec(term.value);
  if (symbol) return parts[Number(symbol[1])] as { symbol: string };
  return term.value.includes('\uE000') ? 'unread' : { name: term.value };
}

/** A pod selector's label selector the API server refuses (labels.Parse) as a refused term, or `unread`; undefined where it takes it. */
function labelTerm(
  label: ReturnType<typeof attributeNamed>,
  scope: EvalScope,
): { line: number; term: { refused: string } | 'unread'; relabel: undefined } | undefined {
  if (!label) return undefined;
  const text = plainValue(evaluate(label.value, scope));
  if (typeof text !== 'string') return { line: label.line, term: 'unread', relabel: undefined };
  const parsed = parseLabelSelector(text);
  return 'error' in parsed ? { line: label.line, term: { refused: parsed.error }, relabel: undefined } : undefined;
}

/** The roles Prometheus' Kubernetes discovery runs (its Run's switch); any other discovers nothing. */
const ROLES = ['endpoints', 'endpointslice', 'ingress', 'node', 'pod', 'service'];

/**
 * What a discovery's role gives the pod-log source: pods (`pod`); nothing it tails (an unknown role discovers nothing;
 * a node's, a Service's or an Ingress' targets carry no pod, and PrepareLabels refuses each); or not judged (the
 * endpoints' targets are the pods behind a Service's ports alone; a role not worked out).
 */
function roleProblem(role: unknown): 'pod' | { refused: string } | { unread: string } {
  if (role === 'pod') return role;
  if (typeof role !== 'string') return { unread: 'its role is a value the gate does not work out' };
  if (!ROLES.includes(role))
    return {
      refused: `has the role "${role}", which Prometheus' Kubernetes discovery does not run (${ROLES.join(', ')}): it discovers nothing, and no pod's log reaches the log store`,
    };
  if (role.startsWith('endpoints')) return { unread: `its role ${role} gives the pods behind a Service's ports alone, which pods the gate does not judge` };
  return {
    refused: `discovers ${role}s, whose targets carry no pod: loki.source.kubernetes refuses each (missing pod namespace label), and no pod's log reaches the log store`,
  };
}

type Block = ReturnType<typeof blocksNamed>[number];
type NodeTerm = ReturnType<typeof nodeTerm>;

/**
 * Whether a relabelling's rule may write or drop `__meta_kubernetes_pod_node_name`: its target label, or a label-name
 * action (labelmap, labeldrop, labelkeep) whose regex, anchored, may match the name (one the gate cannot read may).
 */
function touchesNodeLabel(action: string, rule: Block, known: (e: AlloyExpr | undefined) => unknown): boolean {
  const target = known(attr(rule.body, 'target_label'));
  if (target === NODE_LABEL || (attr(rule.body, 'target_label') && typeof target !== 'string')) return true;
  if (!['labelmap', 'labeldrop', 'labelkeep'].includes(action)) return false;
  const regex = attr(rule.body, 'regex') ? known(attr(rule.body, 'regex')) : '(.*)';
  if (typeof regex !== 'string') return true;
  try {
    // Go's RE2 and JavaScript read a label-name pattern alike; one JavaScript refuses is taken as matching.
    const matches = new RegExp(`^(?:${regex})$`).test(NODE_LABEL);
    return action === 'labelkeep' ? !matches : matches;
  } catch {
    return true;
  }
}

const NODE_LABEL = '__meta_kubernetes_pod_node_name';

/**
 * A relabelling's rule that keeps the targets of one node (`action = "keep"` on `__meta_kubernetes_pod_node_name`
 * alone; relabel.Action takes its eleven names as written, `KEEP` refused at load; its Regexp anchors the regex,
 * `^(?s:...)$`): the node its regex names,
 * worked out as the field selector's is, with its line. A regex other than one name or one value of the host, or a
 * rule before it that may write or drop the node's label, is read as not worked out.
 */
function keptNode(relabels: readonly Block[], scope: EvalScope): { line: number; term: NodeTerm; relabel: string } | undefined {
  const known = knownIn(scope);
  // A rule before the keep that may write or drop the node's label leaves what the keep reads not worked out.
  let touched = false;
  for (const relabel of relabels)
    for (const rule of blocksNamed(relabel.body, 'rule')) {
      const written = known(attr(rule.body, 'action')) ?? 'replace';
      // A name relabel.Action refuses fails the load (alloy-config-loads says so): what it would do is not read.
      const action = typeof written === 'string' && RELABEL_ACTIONS.has(written) ? written : undefined;
      const sources = known(attr(rule.body, 'source_labels'));
      const onNode = Array.isArray(sources) && sources.length === 1 && sources[0] === NODE_LABEL;
      // An action not worked out on the node's label alone may be the keep itself.
      if (action === undefined && onNode) return { line: rule.line, term: 'unread', relabel: relabel.label };
      if (action !== 'keep' || !onNode) {
        touched ||= action === undefined || touchesNodeLabel(action, rule, known);
        continue;
      }
      if (touched) return { line: rule.line, term: 'unread', relabel: relabel.label };
      const regex = attributeNamed(rule.body, 'regex');
      const parts = regex ? stringParts(evaluate(regex.value, scope)) : ['(.*)'];
      const [only] = parts ?? [];
      const term: NodeTerm =
        parts?.length !== 1
          ? 'unread'
          : typeof only === 'object'
            ? only
            : only === '' || dns1123Subdomain(only ?? '') === undefined
              ? { name: only! }
              : 'unread';
      return { line: regex?.line ?? rule.line, term, relabel: relabel.label };
    }
  return undefined;
}

function judge(ctx: CheckContext, v: ChartValues): void {
  const configuration = alloyConfiguration(ctx, v);
  const kind =
    configuration?.render?.workload?.kind ?? (scalarText(dig(v.values, ['controller', 'type']) ?? 'daemonset') === 'daemonset' ? 'DaemonSet' : 'other');
  if (!configuration || kind !== 'DaemonSet') return;
  const { body, errors } = parseAlloy(configuration.text);
  if (errors.length > 0) return;
  const { host } = configuration;
  const scope: EvalScope = { nodeValue: () => undefined, ...(host ? { host } : {}) };
  const known = knownIn(scope);
  for (const source of blocksNamed(body, 'loki.source.kubernetes')) {
    if (blocksNamed(source.body, 'clustering').some((c) => known(attr(c.body, 'enabled')) === true)) continue;
    const path = targetsPath(body, attr(source.body, 'targets'));
    if (!path) {
      ctx.notJudged(
        configuration.place(source.line),
        `loki.source.kubernetes "${source.label}" takes targets the gate does not follow to a discovery.kubernetes (straight, or through discovery.relabel): which pods each agent tails is not judged`,
      );
      continue;
    }
    const { discovery, relabels } = path;
    const through = relabels.length ? ` through ${relabels.map((r) => `discovery.relabel "${r.label}"`).join(' and ')}` : '';
    const where = `discovery.kubernetes "${discovery.label}", which loki.source.kubernetes "${source.label}" tails${through}`;
    const role = roleProblem(known(attr(discovery.body, 'role')));
    if (role !== 'pod') {
      const at = configuration.place(discovery.line);
      if ('refused' in role) ctx.fail(at, `${where}, ${role.refused}`);
      else ctx.notJudged(at, `${where}: ${role.unread}`);
      continue;
    }
    const podSelectors = blocksNamed(discovery.body, 'selectors').filter((s) => known(attr(s.body, 'role')) === 'pod');
    const fields = podSelectors
      .filter((s) => attr(s.body, 'field'))
      .map((s) => ({ line: attributeNamed(s.body, 'field')!.line, term: nodeTerm(attr(s.body, 'field')!, scope), relabel: undefined }));
    // The label selector goes in the same list request: one the API server refuses fails it, whatever the field's.
    const labels = podSelectors.flatMap((s) => labelTerm(attributeNamed(s.body, 'label'), scope) ?? []);
    const selected = labels.find((l) => l.term !== 'unread') ?? fields.find((f) => f.term !== undefined) ?? keptNode(relabels, scope);
    for (const unread of labels.filter((l) => l.term === 'unread'))
      ctx.notJudged(configuration.place(unread.line), `${where}: its label selector reads a value the gate does not work out, which the API server may refuse`);
    verdict(ctx, { at: configuration.place(selected?.line ?? discovery.line), where, host: host !== undefined }, selected);
  }
}

/** The finding for the node a source's pods are selected by: its field selector's term, or a relabelling's keep rule's. */
function verdict(
  ctx: CheckContext,
  o: { at: FailurePlace; where: string; host: boolean },
  selected: { term: NodeTerm; relabel: string | undefined } | undefined,
): void {
  const { at, where } = o;
  const term = selected?.term;
  const by = selected?.relabel === undefined ? 'its spec.nodeName selector' : `discovery.relabel "${selected.relabel}"'s keep rule on the pod's node`;
  if (!selected)
    ctx.fail(
      at,
      `${where}, selects no node's pods (no spec.nodeName field selector of role pod, nor a relabelling that keeps its own node's) and its clustering is off: every agent of the DaemonSet tails every pod of the cluster, each pod's log read from the API server once for each node`,
    );
  else if (term === 'unread' || term === undefined)
    ctx.notJudged(at, `${where}: ${by} reads a value the gate does not work out${o.host ? '' : " (the agent's environment is read from the chart's render)"}`);
  else if ('refused' in term)
    ctx.fail(at, `${where}: the API server refuses every list of pods it sends (${term.refused}), so it finds no pod, and no pod's log reaches the log store`);
  else if ('name' in term && term.name === '')
    // A variable nothing sets reads as "" (os.Getenv): no node is named so.
    ctx.fail(
      at,
      `${where}: ${by} compares with "", which names no node (a variable nothing sets reads as ""): no pod is selected, and no pod's log reaches the log store`,
    );
  else if ('name' in term)
    ctx.fail(
      at,
      `${where}, selects the pods of node "${term.name}" on every node: the agents on the other nodes tail none of their own pods, whose logs never reach the log store`,
    );
  else if (term.symbol === POD_HOSTNAME)
    ctx.fail(
      at,
      selected.relabel === undefined
        ? `${where}, compares spec.nodeName with ${POD_HOSTNAME}, which names no node: the discovery finds no pod, and no pod's log reaches the log store`
        : `${where}: ${by} keeps the pods whose node is ${POD_HOSTNAME}, which names no node: it keeps no pod, and no pod's log reaches the log store`,
    );
  else if (term.symbol !== NODE_NAME) ctx.notJudged(at, `${where}: ${by} compares with ${term.symbol}, which may not be the node's name`);
}

export const alloyNodeCheck: PolicyCheck = {
  id: 'alloy-tails-its-node',
  description:
    "Each Alloy the chart runs on every node (a DaemonSet) that tails pod logs through the API (loki.source.kubernetes over a discovery.kubernetes of role pod) tails the pods of its own node: a selector of role pod whose field is spec.nodeName= the node's name (or, where its targets pass through discovery.relabel, a rule that keeps them by __meta_kubernetes_pod_node_name alone with the node's name as its regex), worked out as Alloy evaluates it with the agent's environment as the kubelet and the container runtime set it (a fieldRef of spec.nodeName is the node's name; an unset HOSTNAME, and constants.hostname, the pod's hostname), or the source's clustering on; a selector compared with the pod's hostname, or a fixed node's name, leaves the other nodes' pods shipping no log, a field selector the API server refuses for pods (its grammar, a field a Pod is not selected by), or a label selector beside it that labels.Parse refuses (its grammar, a key or value no label has, a Gt or Lt not an integer), fails every list, and none makes every agent tail every pod; a discovery of a role Prometheus' discovery does not run finds nothing, and one of nodes, Services or Ingresses gives targets that carry no pod. Offline (no render) a value read from the agent's environment is not judged (A2).",
  invariants: ['A2'],
  remediation:
    'select the node\'s pods in the discovery: selectors { role = "pod"; field = "spec.nodeName=" + sys.env("HOSTNAME") } (the chart sets HOSTNAME from spec.nodeName), or turn clustering on in the source',
  reads: { kinds: withKeyProviders('Application', 'ConfigMap', 'DaemonSet', 'Deployment', 'StatefulSet'), charts: ['alloy'], renders: true },
  exemptible: false,
  run(ctx) {
    for (const v of chartValues(ctx.repo, 'alloy')) judge(ctx, v);
  },
};
