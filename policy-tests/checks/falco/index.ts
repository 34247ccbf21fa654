/**
 * Runtime security (S1-S10): the Falco sensor, its forwarder and network
 * policy, and the discipline of the custom tuning file.
 */
import { parseAppend, parseCondition, walk, ConditionSyntaxError } from '../../model/falco/expr.ts';
import { isHookName, loadFalcoPolicy, FALCO_POLICY_FILE, type FalcoPolicy } from '../../model/falco/policy.ts';
import { normalizeRuleName, tuningFiles, type TuningFile } from '../../model/falco/tuning.ts';
import {
  appendedExclusion,
  exemptedImages,
  exemptionsOf,
  isGeneric,
  IMAGE_FIELD,
  NAMESPACE_FIELD,
  PATH_FIELD,
  pins,
  PROCESS_FIELD,
  safeParse,
  upstreamKind,
} from '../../model/falco/exemptions.ts';
import type { ChartValues } from '../../model/chart-values.ts';
import { dig } from '../../model/dig.ts';
import { eachChartValues, type ValuesFail } from '../kit.ts';
import { extraPlugins, pluginRefProblem, RULES_PLUGIN, renderedFalcoFile } from './plugins.ts';
import type { Path } from '../../model/positions.ts';
import { writtenByExternalSecret } from '../../model/external-secrets.ts';
import type { CheckContext, PolicyCheck } from '../kit.ts';

type Fail = (tuning: TuningFile, path: Path, message: string) => void;

function tuningFailer(ctx: CheckContext): Fail {
  return (tuning, path, message) => {
    const { line, col } = tuning.at(path);
    ctx.fail({ file: tuning.file, line, col }, `${tuning.key}: ${message}`);
  };
}

/** Runs `body` with the policy facts, or reports why they cannot be read. */
function withPolicy(ctx: CheckContext, body: (policy: FalcoPolicy) => void): void {
  const { policy, problem } = loadFalcoPolicy(ctx.repo);
  if (policy) body(policy);
  else ctx.fail({ file: FALCO_POLICY_FILE }, problem!);
}

/** Runs `body` for every tuning file, with the policy facts and a failer that points into it. */
function forEachTuning(ctx: CheckContext, body: (tuning: TuningFile, policy: FalcoPolicy, fail: Fail) => void): void {
  const fail = tuningFailer(ctx);
  withPolicy(ctx, (policy) => {
    for (const tuning of tuningFiles(ctx.repo)) body(tuning, policy, fail);
  });
}

const valuesCheck = (ctx: CheckContext, chart: string, body: (v: ChartValues, fail: ValuesFail) => void) =>
  eachChartValues(ctx, chart, 'security/README.md', body);

export const falcoChecks: PolicyCheck[] = [
  {
    id: 'falco-tuning-syntax',
    description: 'The tuning file is a Falco rules file: YAML list items, every condition parses (Runtime-security exemptions; S6).',
    invariants: ['S6'],
    remediation: 'fix the YAML or the condition expression at the reported place',
    reads: { kinds: ['ConfigMap'] },
    exemptible: false,
    run(ctx) {
      const fail = tuningFailer(ctx);
      for (const tuning of tuningFiles(ctx.repo)) {
        for (const e of tuning.errors) ctx.fail({ file: tuning.file, line: e.pos.line, col: e.pos.col }, `${tuning.key}: ${e.message}`);
        for (const item of tuning.items) {
          if (item.type === 'other' && !('required_engine_version' in item.raw) && !('required_plugin_versions' in item.raw))
            fail(tuning, [item.index], 'item is not a rule, macro or list');
          if (!item.condition) continue;
          try {
            if (item.override?.condition === 'append') parseAppend(item.condition);
            else parseCondition(item.condition);
          } catch (err) {
            fail(
              tuning,
              [item.index, 'condition'],
              `${item.type} "${item.name}": condition does not parse: ${(err as Error).message}${err instanceof ConditionSyntaxError ? ` (at character ${err.offset})` : ''}`,
            );
          }
        }
      }
    },
  },
  {
    id: 'falco-no-copied-rule',
    description: 'No upstream rule, macro or list is redefined without override:, nor copied under a near-identical name (Runtime-security exemptions 1; S6).',
    invariants: ['S6'],
    remediation: 'tune the upstream item through its hook (override:) instead of defining your own copy',
    reads: { kinds: ['ConfigMap'], files: ['security/falco/facts/*'] },
    exemptible: false,
    run(ctx) {
      forEachTuning(ctx, (tuning, policy, fail) => {
        const upstreamRules = [...policy.upstream.rules].map((n) => ({ name: n, norm: normalizeRuleName(n) }));
        for (const item of tuning.items) {
          if (item.type === 'other') continue;
          if (upstreamKind(policy, item) && !item.override && item.raw.append === undefined)
            fail(
              tuning,
              [item.index, item.type],
              `${item.type} "${item.name}" is upstream (falco-rules ${policy.upstream.version}); redefining it replaces the upstream definition`,
            );
          if (item.type === 'rule' && !policy.upstream.rules.has(item.name)) {
            const copied = upstreamRules.find((u) => normalizeRuleName(item.name).includes(u.norm));
            if (copied) fail(tuning, [item.index, 'rule'], `rule "${item.name}" is a copy of upstream rule "${copied.name}" under another name`);
          }
        }
      });
    },
  },
  {
    id: 'falco-hooks-only',
    description:
      'Tuning goes through hooks only: macros override condition: replace (exclusion hooks only), lists items: append, a rule condition: append only as and not (...) where its sole hook is an over-broad list; no legacy append: true (S7).',
    invariants: ['S7'],
    remediation:
      'use override: {condition: replace} on a user_/known_/allowed_ macro, override: {items: append} on a list, or a scoped rule append listed in ruleAppendAllowed',
    reads: { kinds: ['ConfigMap'], files: ['security/falco/facts/*'] },
    exemptible: false,
    run(ctx) {
      forEachTuning(ctx, (tuning, policy, fail) => {
        for (const item of tuning.items) {
          if (item.raw.append !== undefined)
            fail(tuning, [item.index, 'append'], `${item.type} "${item.name}" uses legacy append: true (deprecated, removed in Falco 1.0); use override:`);
          if (!item.override || (item.type === 'rule' && policy.boundaryRules.includes(item.name))) continue;
          const keys = Object.entries(item.override)
            .map(([k, v]) => `${k}: ${String(v)}`)
            .sort()
            .join(', ');
          const at: Path = [item.index, 'override'];
          if (!upstreamKind(policy, item)) {
            fail(tuning, at, `${item.type} "${item.name}" overrides nothing upstream`);
          } else if (item.type === 'macro') {
            if (keys !== 'condition: replace') fail(tuning, at, `macro "${item.name}" must be tuned with override {condition: replace}, found {${keys}}`);
            else if (!isHookName(item.name)) fail(tuning, at, `macro "${item.name}" is not an exclusion hook; replacing it changes what upstream rules detect`);
          } else if (item.type === 'list') {
            if (keys !== 'items: append') fail(tuning, at, `list "${item.name}" must be tuned with override {items: append}, found {${keys}}`);
          } else if (item.type === 'rule') {
            if (keys !== 'condition: append') fail(tuning, at, `rule "${item.name}" may only be tuned with override {condition: append}, found {${keys}}`);
            else if (!(item.name in policy.ruleAppendAllowed))
              fail(
                tuning,
                at,
                `rule "${item.name}" has a hook of its own; tune the hook, not the rule (rules whose sole hook is an over-broad list are listed in ${FALCO_POLICY_FILE})`,
              );
            else if (!appendedExclusion(item.condition ?? ''))
              fail(tuning, [item.index, 'condition'], `rule "${item.name}": an appended condition must be exactly "and not (...)"`);
          }
        }
      });
    },
  },
  {
    id: 'falco-exemption-scoped',
    description: 'Every exemption pins the process, the image and the path involved; on a generic image it also pins k8s.ns.name (S8, S9).',
    invariants: ['S8', 'S9'],
    remediation:
      'add proc.name, container.image.repository and a path field (fd.name, proc.exepath, ...) to each alternative, and k8s.ns.name for generic images',
    reads: { kinds: ['ConfigMap'], files: ['security/falco/facts/*'] },
    exemptible: false,
    run(ctx) {
      forEachTuning(ctx, (tuning, policy, fail) => {
        for (const exemption of exemptionsOf(tuning, policy)) {
          const { item } = exemption;
          if (exemption.unscopable) {
            fail(
              tuning,
              [item.index, 'list'],
              `list "${item.name}" exempts by name in every container; append a scoped clause to the rule or its macro instead`,
            );
            continue;
          }
          exemption.clauses.forEach((clause, n) => {
            const { fields, images } = pins(clause);
            const missing = [
              [...fields].some((f) => PROCESS_FIELD.test(f)) ? '' : 'process',
              [...fields].some((f) => IMAGE_FIELD.test(f)) ? '' : 'image',
              [...fields].some((f) => PATH_FIELD.test(f)) ? '' : 'path',
            ].filter(Boolean);
            const where = exemption.clauses.length > 1 ? ` (alternative ${n + 1})` : '';
            if (missing.length) fail(tuning, [item.index, 'condition'], `${item.type} "${item.name}"${where} does not pin the ${missing.join(', ')} involved`);
            const generic = images.filter((i) => isGeneric(i, policy));
            if (generic.length && !fields.has(NAMESPACE_FIELD))
              fail(
                tuning,
                [item.index, 'condition'],
                `${item.type} "${item.name}"${where} exempts generic image ${generic.join(', ')} without pinning k8s.ns.name`,
              );
          });
        }
      });
    },
  },
  {
    id: 'falco-boundary-armed',
    description:
      'The container-boundary rules (kernel module load, release_agent, debugfs, the repo’s escape coverage) exist, are never disabled or tuned, and their hooks never name an image exempted elsewhere (S10).',
    invariants: ['S10'],
    remediation: 'remove the override of the boundary rule, or the exempted image from its hook',
    reads: { kinds: ['ConfigMap'], files: ['security/falco/facts/*'] },
    exemptible: false,
    run(ctx) {
      const fail = tuningFailer(ctx);
      withPolicy(ctx, (policy) => {
        const tunings = tuningFiles(ctx.repo);
        const exempted = exemptedImages(tunings, policy);
        const defined = new Set(tunings.flatMap((t) => t.items.filter((i) => i.type === 'rule').map((i) => i.name)));
        for (const name of policy.boundaryRules) {
          if (!policy.upstream.rules.has(name) && !defined.has(name))
            ctx.fail({ file: FALCO_POLICY_FILE }, `boundary rule "${name}" is neither upstream nor defined in a tuning file`);
        }
        for (const tuning of tunings) {
          for (const item of tuning.items) {
            if (item.type === 'rule' && policy.boundaryRules.includes(item.name)) {
              if (item.raw.enabled === false) fail(tuning, [item.index, 'enabled'], `boundary rule "${item.name}" is disabled`);
              if (item.override) fail(tuning, [item.index, 'override'], `boundary rule "${item.name}" is tuned; it must stay armed`);
            }
            if (policy.boundaryHooks.includes(item.name) && item.override) {
              const named = [
                ...(Array.isArray(item.raw.items) ? item.raw.items.map(String) : []),
                ...(item.condition
                  ? [...walk(safeParse(() => parseCondition(item.condition!)) ?? { kind: 'macro', name: '' })].flatMap((e) =>
                      e.kind === 'compare' ? [e.value] : e.kind === 'list' ? e.items : [],
                    )
                  : []),
              ];
              const clash = named.filter((n) => exempted.has(n));
              if (clash.length)
                fail(
                  tuning,
                  [item.index, item.type],
                  `${item.type} "${item.name}" guards the container boundary but names ${clash.join(', ')}, which is exempted elsewhere`,
                );
            }
          }
        }
      });
    },
  },
  {
    id: 'falco-sensor',
    description:
      'The sensor: modern eBPF driver, on every node (control-plane tolerations match the cluster facts), syscalls as the only event source (no source plugin, no audit log; the container metadata plugin falco-rules 5 requires is the one plugin loaded, at a compatible version), JSON output to the forwarder, metrics every 15 min; judged on the rendered falco.yaml when the chart is rendered (S1, S5, A16).',
    invariants: ['S1', 'S5', 'A16'],
    remediation: `set driver.kind: modern_ebpf, tolerate node-role.kubernetes.io/control-plane, load only the ${RULES_PLUGIN.name} plugin (collectors.containerEngine on, pluginRef ${RULES_PLUGIN.ref}:<${RULES_PLUGIN.required} or later>, collectors.kubernetes off), json_output and http_output on, metrics.interval: 15m`,
    reads: { kinds: ['Application'], charts: ['falco'], renders: true },
    exemptible: false,
    run(ctx) {
      valuesCheck(ctx, 'falco', ({ values }, fail) => {
        if (dig(values, ['driver', 'kind']) !== 'modern_ebpf')
          fail(['driver', 'kind'], `driver.kind is "${String(dig(values, ['driver', 'kind']))}", must be modern_ebpf`);
        const facts = ctx.repo.facts;
        const tolerations = (dig(values, ['tolerations']) ?? []) as { key?: string; operator?: string; effect?: string }[];
        const toleratesControlPlane = tolerations.some(
          (t) => (t.operator === 'Exists' && !t.key) || (t.key === 'node-role.kubernetes.io/control-plane' && (!t.effect || t.effect === 'NoSchedule')),
        );
        if (facts && facts.controlPlaneCount > 0 && !toleratesControlPlane)
          fail(
            ['tolerations'],
            `the sensor would run on ${facts.nodeCount - facts.controlPlaneCount} of ${facts.nodeCount} nodes: no toleration for the control-plane taint`,
          );
        for (const key of ['nodeSelector', 'affinity'] as const) {
          const v = dig(values, [key]);
          if (v && typeof v === 'object' && Object.keys(v).length)
            fail([key], `${key} restricts the sensor to some nodes; it must run on all ${facts?.nodeCount ?? ''} nodes`);
        }
        const loaded = extraPlugins((dig(values, ['falco', 'load_plugins']) ?? []) as unknown[]);
        if (loaded.length)
          fail(
            ['falco', 'load_plugins'],
            `falco.load_plugins loads ${loaded.join(', ')}: syscalls are the only event source, and ${RULES_PLUGIN.name} is the one plugin allowed`,
          );
        const configured = extraPlugins(((dig(values, ['falco', 'plugins']) ?? []) as { name?: unknown }[]).map((p) => p?.name));
        if (configured.length) fail(['falco', 'plugins'], `falco.plugins configures ${configured.join(', ')}: ${RULES_PLUGIN.name} is the one plugin allowed`);
        if (dig(values, ['collectors', 'kubernetes', 'enabled']) === true)
          fail(
            ['collectors', 'kubernetes', 'enabled'],
            `the Kubernetes metadata collector is a plugin (k8smeta); ${RULES_PLUGIN.name} is the one plugin allowed`,
          );
        if (dig(values, ['collectors', 'containerEngine', 'enabled']) === false)
          fail(
            ['collectors', 'containerEngine', 'enabled'],
            `falco-rules 5 requires the ${RULES_PLUGIN.name} plugin (required_plugin_versions: ${RULES_PLUGIN.name} ${RULES_PLUGIN.required}); without it the rules do not load`,
          );
        const ref = dig(values, ['collectors', 'containerEngine', 'pluginRef']);
        const refProblem = typeof ref === 'string' ? pluginRefProblem(ref) : undefined;
        if (refProblem) fail(['collectors', 'containerEngine', 'pluginRef'], refProblem);
        if (dig(values, ['falco', 'json_output']) !== true) fail(['falco', 'json_output'], 'falco.json_output must be true for the forwarder');
        if (dig(values, ['falco', 'http_output', 'enabled']) !== true) fail(['falco', 'http_output'], 'falco.http_output must send events to the forwarder');
        if (dig(values, ['falco', 'metrics', 'enabled']) !== true || dig(values, ['falco', 'metrics', 'interval']) !== '15m')
          fail(['falco', 'metrics'], `sensor metrics must be enabled with interval 15m, found ${JSON.stringify(dig(values, ['falco', 'metrics']) ?? null)}`);
      });
      // What will run: the falco.yaml the chart rendered, with whatever plugins its helpers added.
      const rendered = renderedFalcoFile(ctx.renders, 'falco.yaml');
      if (rendered) {
        const at = { resource: rendered.resource, path: ['data', rendered.key] };
        const loaded = (rendered.data.load_plugins ?? []) as unknown[];
        const extra = [...extraPlugins(loaded), ...extraPlugins(((rendered.data.plugins ?? []) as { name?: unknown }[]).map((p) => p?.name))];
        if (extra.length)
          ctx.fail(at, `the rendered falco.yaml loads or configures ${[...new Set(extra)].join(', ')}: ${RULES_PLUGIN.name} is the one plugin allowed`);
        if (!loaded.includes(RULES_PLUGIN.name)) ctx.fail(at, `the rendered falco.yaml does not load ${RULES_PLUGIN.name}, which falco-rules 5 requires`);
      }
    },
  },
  {
    id: 'falco-rules-source',
    description:
      'Rules come from falco-rules:5, installed and followed every 168h by falcoctl (which installs nothing else but the container plugin the rules require), plus the tuning ConfigMap loaded after them; judged on the rendered falcoctl.yaml when the chart is rendered (S3).',
    invariants: ['S3'],
    remediation:
      'set falcoctl install and follow refs to ["falco-rules:5"], follow.every: 168h, and list the mounted tuning file after /etc/falco/falco_rules.yaml in falco.rules_files',
    reads: { kinds: ['Application', 'ConfigMap'], charts: ['falco'], renders: true },
    exemptible: false,
    run(ctx) {
      valuesCheck(ctx, 'falco', ({ values }, fail) => {
        for (const phase of ['install', 'follow'] as const) {
          if (dig(values, ['falcoctl', 'artifact', phase, 'enabled']) !== true)
            fail(['falcoctl', 'artifact', phase], `falcoctl artifact ${phase} must be enabled`);
          const refs = dig(values, ['falcoctl', 'config', 'artifact', phase, 'refs']);
          if (JSON.stringify(refs) !== JSON.stringify(['falco-rules:5']))
            fail(['falcoctl', 'config', 'artifact', phase, 'refs'], `falcoctl ${phase} refs are ${JSON.stringify(refs ?? null)}, must be ["falco-rules:5"]`);
        }
        const allowed = (dig(values, ['falcoctl', 'config', 'artifact', 'allowedTypes']) ?? []) as unknown[];
        const wider = allowed.map(String).filter((t) => t !== 'rulesfile' && t !== 'plugin');
        if (wider.length)
          fail(
            ['falcoctl', 'config', 'artifact', 'allowedTypes'],
            `falcoctl may install ${wider.join(', ')}: only rulesfile and the ${RULES_PLUGIN.name} plugin`,
          );
        if (dig(values, ['falcoctl', 'config', 'artifact', 'follow', 'every']) !== '168h')
          fail(
            ['falcoctl', 'config', 'artifact', 'follow', 'every'],
            `the rules are re-checked every ${String(dig(values, ['falcoctl', 'config', 'artifact', 'follow', 'every']))}, must be 168h`,
          );
        const rulesFiles = (dig(values, ['falco', 'rules_files']) ?? []) as string[];
        const upstreamAt = rulesFiles.indexOf('/etc/falco/falco_rules.yaml');
        if (upstreamAt === -1) fail(['falco', 'rules_files'], 'falco.rules_files does not load /etc/falco/falco_rules.yaml');
        const mounts = (dig(values, ['mounts', 'volumeMounts']) ?? []) as { name?: string; mountPath?: string }[];
        const volumes = (dig(values, ['mounts', 'volumes']) ?? []) as { name?: string; configMap?: { name?: string } }[];
        const tunings = tuningFiles(ctx.repo);
        if (tunings.length === 0) fail(['falco', 'rules_files'], 'no tuning ConfigMap (label app.kubernetes.io/component: falco-tuning) exists');
        for (const tuning of tunings) {
          const cm = ctx.repo.resources.find((r) => r.file === tuning.file && r.kind === 'ConfigMap')!;
          const volume = volumes.find((v) => v.configMap?.name === cm.name);
          const mount = volume && mounts.find((m) => m.name === volume.name);
          const path = mount?.mountPath ? `${mount.mountPath.replace(/\/$/, '')}/${tuning.key}` : undefined;
          const at = path ? rulesFiles.findIndex((f) => f === path || f === mount!.mountPath) : -1;
          if (!path) fail(['mounts'], `ConfigMap ${cm.name} is not mounted into the sensor`);
          else if (at === -1) fail(['falco', 'rules_files'], `${path} (ConfigMap ${cm.name}) is not in falco.rules_files`);
          else if (at < upstreamAt)
            fail(['falco', 'rules_files'], `${path} is loaded before the upstream rules; overrides need the upstream definitions first`);
        }
      });
      // What falcoctl will do: the falcoctl.yaml the chart rendered, with the plugin ref its helpers added.
      const rendered = renderedFalcoFile(ctx.renders, 'falcoctl.yaml');
      if (rendered) {
        const at = { resource: rendered.resource, path: ['data', rendered.key] };
        const artifact = (rendered.data.artifact ?? {}) as { allowedTypes?: unknown[]; install?: { refs?: unknown[] }; follow?: { refs?: unknown[] } };
        const install = (artifact.install?.refs ?? []).map(String);
        if (!install.includes('falco-rules:5')) ctx.fail(at, `the rendered falcoctl.yaml installs ${JSON.stringify(install)}, without falco-rules:5`);
        for (const ref of install.filter((r) => r !== 'falco-rules:5')) {
          const problem = pluginRefProblem(ref);
          if (problem) ctx.fail(at, `the rendered falcoctl.yaml installs ${problem}`);
        }
        const follow = (artifact.follow?.refs ?? []).map(String);
        if (JSON.stringify(follow) !== JSON.stringify(['falco-rules:5']))
          ctx.fail(at, `the rendered falcoctl.yaml follows ${JSON.stringify(follow)}, must be ["falco-rules:5"]`);
        const wider = (artifact.allowedTypes ?? []).map(String).filter((t) => t !== 'rulesfile' && t !== 'plugin');
        if (wider.length) ctx.fail(at, `the rendered falcoctl.yaml allows ${wider.join(', ')}`);
      }
    },
  },
  {
    id: 'falco-egress',
    description: "The sensor's NetworkPolicy allows egress on 443 (the rules registry), DNS and the forwarder, and nothing wider (S4).",
    invariants: ['S4'],
    remediation: 'give the falco pods a NetworkPolicy with egress rules only for 443/TCP, 53 to the cluster DNS, and 2801/TCP to falcosidekick',
    reads: { kinds: ['NetworkPolicy'] },
    exemptible: false,
    run(ctx) {
      const selects = (r: (typeof ctx.resources)[number]) =>
        (r.object.spec as { podSelector?: { matchLabels?: Record<string, string> } })?.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'falco';
      const policies = ctx.resources.filter(selects);
      if (policies.length === 0) {
        ctx.fail({ file: 'security/README.md' }, 'no NetworkPolicy selects the falco pods (app.kubernetes.io/name: falco)');
        return;
      }
      const allowed = new Set(['53/UDP', '53/TCP', '443/TCP', '2801/TCP']);
      for (const np of policies) {
        const spec = np.object.spec as { policyTypes?: string[]; egress?: { to?: unknown[]; ports?: { port?: number | string; protocol?: string }[] }[] };
        if (!spec.policyTypes?.includes('Egress')) ctx.fail({ resource: np, path: ['spec', 'policyTypes'] }, 'the policy does not restrict egress');
        let has443 = false;
        (spec.egress ?? []).forEach((rule, i) => {
          if (!rule.ports?.length) {
            ctx.fail({ resource: np, path: ['spec', 'egress', i] }, 'an egress rule without ports allows every port');
            return;
          }
          rule.ports.forEach((p, j) => {
            const key = `${String(p.port)}/${p.protocol ?? 'TCP'}`;
            if (key === '443/TCP') has443 = true;
            if (!allowed.has(key)) ctx.fail({ resource: np, path: ['spec', 'egress', i, 'ports', j] }, `egress to ${key} is wider than the sensor needs`);
          });
          if (rule.ports.some((p) => String(p.port) !== '443') && !rule.to?.length)
            ctx.fail({ resource: np, path: ['spec', 'egress', i] }, 'DNS and forwarder egress must name their destination');
        });
        if (!has443) ctx.fail({ resource: np, path: ['spec', 'egress'] }, 'no egress on 443: the sensor cannot pull falco-rules:5 and will not start');
      }
    },
  },
  {
    id: 'falco-forwarder',
    description:
      'falcosidekick runs 2 replicas, posts to chat at priority notice and above with its webhook from an ExternalSecret, its web UI off, and no Alertmanager output (S2, A16).',
    invariants: ['S2', 'A16'],
    remediation:
      'set replicaCount: 2, webui.enabled: false, config.slack.minimumpriority: notice, config.existingSecret to an ExternalSecret target, and no alertmanager hostport',
    reads: { kinds: ['Application', 'ExternalSecret'], charts: ['falcosidekick'] },
    exemptible: false,
    run(ctx) {
      valuesCheck(ctx, 'falcosidekick', ({ values }, fail) => {
        if (dig(values, ['replicaCount']) !== 2) fail(['replicaCount'], `replicaCount is ${String(dig(values, ['replicaCount']))}, must be 2`);
        if (dig(values, ['webui', 'enabled']) !== false) fail(['webui'], 'the web UI must be off');
        if (dig(values, ['config', 'slack', 'minimumpriority']) !== 'notice')
          fail(
            ['config', 'slack', 'minimumpriority'],
            `chat minimum priority is "${String(dig(values, ['config', 'slack', 'minimumpriority']))}", must be notice`,
          );
        if (dig(values, ['config', 'slack', 'webhookurl']))
          fail(['config', 'slack', 'webhookurl'], 'the webhook URL is committed; take it from config.existingSecret');
        const secret = dig(values, ['config', 'existingSecret']);
        if (typeof secret !== 'string' || !writtenByExternalSecret(ctx.repo, secret))
          fail(['config', 'existingSecret'], `config.existingSecret ${JSON.stringify(secret ?? null)} is not the target of any ExternalSecret`);
        if (dig(values, ['config', 'alertmanager', 'hostport'])) fail(['config', 'alertmanager', 'hostport'], 'sensor events must bypass Alertmanager');
      });
    },
  },
];
