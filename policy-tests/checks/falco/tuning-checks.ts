/**
 * The discipline of the custom tuning file (S4-S10): its syntax, no copied upstream rule, changes only through hooks, exemptions scoped to one workload, the boundary rules armed.
 */
import { parseAppend, parseCondition, walk, ConditionSyntaxError, UPSTREAM } from '../../model/falco/expr.ts';
import { macroVisible, readerProblems, undefinedMacros } from '../../model/falco/reader.ts';
import { exceptionRefusals } from '../../model/falco/exceptions.ts';
import { pluginRequirementRefusals } from './plugins.ts';
import { fileLists, resolveLists, unreadableLists } from '../../model/falco/lists.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { fieldProblems, isHookName, loadFalcoPolicy, FALCO_POLICY_FILE, type FalcoPolicy } from '../../model/falco/policy.ts';
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
import type { Path } from '../../model/core/positions.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';

export type Fail = (tuning: TuningFile, path: Path, message: string) => void;

function tuningFailer(ctx: CheckContext): Fail {
  return (tuning, path, message) => {
    const { line, col } = tuning.at(path);
    ctx.fail({ file: tuning.file, line, col }, `${tuning.key}: ${message}`);
  };
}

/** Runs `body` with the policy facts, or reports why they cannot be read. */
function withPolicy(ctx: CheckContext, body: (policy: FalcoPolicy) => void): void {
  const { policy, problem, at } = loadFalcoPolicy(ctx.repo);
  if (policy) body(policy);
  else ctx.fail({ file: FALCO_POLICY_FILE, ...at }, problem!);
}

/** Runs `body` for every tuning file, with the policy facts and a failer that points into it. */
export function forEachTuning(ctx: CheckContext, body: (tuning: TuningFile, policy: FalcoPolicy, fail: Fail) => void): void {
  const fail = tuningFailer(ctx);
  withPolicy(ctx, (policy) => {
    for (const tuning of tuningFiles(ctx.repo)) body(tuning, policy, fail);
  });
}

/** The upstream rules of S10's kernel module load, release_agent and debugfs guards (the escape rule is the repository's own). */
const S10_UPSTREAM_RULES = [
  'Linux Kernel Module Injection Detected',
  'Detect release_agent File Container Escapes',
  'Debugfs Launched in Privileged Container',
];

export const falcoTuningChecks: PolicyCheck[] = [
  {
    id: 'falco-tuning-syntax',
    description:
      'The tuning file is a Falco rules file: YAML list items, each read as the rules reader of Falco reads it (a defined rule has condition, output, desc and a known priority; booleans decode; overrides name keys their item takes; an exception has fields, comps of the filter grammar and values of their shape; a required engine version is one the sensor has, and each required plugin version one the plugins the sensor values load meet; a list named in a condition reads there), every condition (an exception compiled into its rule as Falco compiles it) parses as Falco parses it, reads only fields the deployed Falco knows and uses only macros defined before it (Runtime-security exemptions; S6).',
    invariants: ['S6'],
    remediation: 'fix the YAML, the condition expression or the field name at the reported place',
    reads: { kinds: ['ConfigMap', 'Application'], charts: ['falco'], files: ['security/falco/facts/*'] },
    exemptible: false,
    run(ctx) {
      const fail = tuningFailer(ctx);
      // The fields the sensor knows, where the policy names them (falco-tuning-policy reports facts it cannot read).
      const policy = loadFalcoPolicy(ctx.repo).policy;
      const fields = policy?.fields;
      const tunings = tuningFiles(ctx.repo);
      for (const tuning of tunings) {
        for (const e of tuning.errors) ctx.fail({ file: tuning.file, line: e.pos.line, col: e.pos.col }, `${tuning.key}: ${e.message}`);
        const others = tunings.filter((t) => t !== tuning).flatMap((t) => t.items);
        // The file's lists, read once for its exceptions, its lists' items and its conditions.
        const own = fileLists(tuning.items);
        for (const { item, path, message } of exceptionRefusals(tuning.items, fields, own))
          fail(tuning, [item.index, ...path], `rule "${item.name}": ${message}: Falco refuses the rules file at start, and does not run`);
        for (const r of pluginRequirementRefusals(ctx.repo, tuning.items)) fail(tuning, [r.item.index, ...r.path], r.message);
        for (const { item, message } of unreadableLists(tuning.items, policy?.upstream.lists ?? new Set(), own))
          fail(tuning, [item.index, 'items'], `list "${item.name}": ${message}: Falco refuses the rules file at start, and does not run`);
        // Falco writes every list's items into a condition's text before it parses it.
        const lists = [...own, ...fileLists(others)];
        for (const item of tuning.items) {
          if (item.type === 'other' && !('required_engine_version' in item.raw) && !('required_plugin_versions' in item.raw))
            fail(tuning, [item.index], 'item is not a rule, macro or list');
          for (const problem of readerProblems(item))
            fail(
              tuning,
              [item.index, ...problem.path],
              `${item.type === 'other' ? 'required_engine_version' : `${item.type} "${item.name}"`}: ${problem.message}: Falco refuses the rules file at start, and does not run`,
            );
          if (!item.condition) continue;
          const text = resolveLists(item.condition, lists);
          try {
            const expr = item.override?.condition === 'append' ? parseAppend(text) : parseCondition(text);
            for (const problem of fieldProblems(expr, fields))
              fail(tuning, [item.index, 'condition'], `${item.type} "${item.name}": ${problem}: Falco refuses the rules file at start, and does not run`);
            const visible = policy && macroVisible({ upstream: policy.upstream.macros, items: tuning.items, others, at: item });
            for (const name of visible ? undefinedMacros(expr, visible, UPSTREAM) : [])
              fail(
                tuning,
                [item.index, 'condition'],
                `${item.type} "${item.name}": Undefined macro '${name}' used in filter${didYouMean(name, policy!.upstream.macros)}${item.type === 'macro' ? ', or defined after it' : ''}: Falco refuses the rules file at start, and does not run`,
              );
          } catch (err) {
            fail(
              tuning,
              [item.index, 'condition'],
              `${item.type} "${item.name}": condition does not parse: ${(err as Error).message}${err instanceof ConditionSyntaxError ? ` (at character ${err.offset}${text === item.condition ? '' : ` of ${JSON.stringify(text)}, its lists written in as Falco writes them`})` : ''}`,
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
      'The container-boundary rules (kernel module load, release_agent, debugfs, the repo’s escape coverage) exist, are listed under the tuning policy’s boundaryRules (the three upstream ones by name), are never disabled or tuned (an exception written in the rule is a tuning too), and their hooks never name an image exempted elsewhere (S10).',
    invariants: ['S10'],
    remediation: 'list each of those rules under boundaryRules; remove the override of the boundary rule, or the exempted image from its hook',
    reads: { kinds: ['ConfigMap'], files: ['security/falco/facts/*'] },
    exemptible: false,
    run(ctx) {
      const fail = tuningFailer(ctx);
      withPolicy(ctx, (policy) => {
        const tunings = tuningFiles(ctx.repo);
        const exempted = exemptedImages(tunings, policy);
        const defined = new Set(tunings.flatMap((t) => t.items.filter((i) => i.type === 'rule').map((i) => i.name)));
        // S10 names these upstream rules' guards; a policy that leaves one out (or drops the list) guards it with nothing.
        const listed = ctx.repo.dataFiles.get(FALCO_POLICY_FILE)?.positions.at(['boundaryRules'], 'key');
        for (const name of S10_UPSTREAM_RULES.filter((r) => policy.upstream.rules.has(r) && !policy.boundaryRules.includes(r)))
          ctx.fail({ file: FALCO_POLICY_FILE, ...listed }, `boundaryRules leaves out upstream rule "${name}", which S10 keeps armed: nothing holds it to that`);
        for (const name of policy.boundaryRules) {
          if (!policy.upstream.rules.has(name) && !defined.has(name))
            ctx.fail({ file: FALCO_POLICY_FILE }, `boundary rule "${name}" is neither upstream nor defined in a tuning file`);
        }
        for (const tuning of tunings) {
          for (const item of tuning.items) {
            if (item.type === 'rule' && policy.boundaryRules.includes(item.name)) {
              if (item.raw.enabled === false) fail(tuning, [item.index, 'enabled'], `boundary rule "${item.name}" is disabled`);
              if (item.override) fail(tuning, [item.index, 'override'], `boundary rule "${item.name}" is tuned; it must stay armed`);
              // An exception is a tuning written inside the rule: what it matches the rule no longer sees.
              if (Array.isArray(item.raw.exceptions) && item.raw.exceptions.length > 0)
                fail(tuning, [item.index, 'exceptions'], `boundary rule "${item.name}" carries exceptions, which exempt what it guards; it must stay armed`);
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
];
