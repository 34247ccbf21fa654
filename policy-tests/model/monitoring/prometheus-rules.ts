/** PrometheusRules of the repository, as Prometheus rule files and alert label sets. */
import type { Repo } from '../repository/repo.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { dig, isMap, list, objects } from '../core/dig.ts';

/** One rule of a PrometheusRule, as written, with its path in the resource. */
export interface RuleEntry {
  resource: Resource;
  rule: Record<string, unknown>;
  path: Path;
}

/** Every rule of the PrometheusRules among `resources`, each with its path: the one walk the readers of a rule's fields share. */
export function ruleEntries(resources: readonly Resource[]): RuleEntry[] {
  return resources
    .filter((r) => r.kind === 'PrometheusRule')
    .flatMap((resource) =>
      objects(dig(resource.object, ['spec', 'groups'])).flatMap((group, g) =>
        objects(group.rules).map((rule, i) => ({ resource, rule, path: ['spec', 'groups', g, 'rules', i] })),
      ),
    );
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The PrometheusRule it comes from. */
  ruleName: string;
  file: string;
}

interface RuleGroup {
  name: string;
  rules: { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }[];
}

export function prometheusRules(repo: Repo): { name: string; file: string; groups: RuleGroup[] }[] {
  return repo.resources
    .filter((r) => r.apiVersion === 'monitoring.coreos.com/v1' && r.kind === 'PrometheusRule')
    .map((r) => ({ name: r.name, file: r.file, groups: list(dig(r.object, ['spec', 'groups'])).filter(isMap) as unknown as RuleGroup[] }));
}

export function alertRules(repo: Repo): AlertRule[] {
  return prometheusRules(repo).flatMap((pr) =>
    pr.groups.flatMap((g) =>
      (list(g.rules) as RuleGroup['rules'])
        .filter((r) => isMap(r) && r.alert)
        .map((r) => ({
          alert: r.alert!,
          expr: r.expr,
          for: r.for,
          labels: r.labels ?? {},
          annotations: r.annotations ?? {},
          ruleName: pr.name,
          file: pr.file,
        })),
    ),
  );
}
