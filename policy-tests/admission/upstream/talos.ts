/**
 * The cluster facts' Talos tables against Talos' own source, as pure functions of what the caller read from a
 * siderolabs/talos checkout and a siderolabs/go-kubernetes one (scripts/conformance.ts reads them):
 *   - each row of `talosUpgrades` and `talosKubernetes` against its minor's compatibility package
 *     (pkg/machinery/compatibility/talos1NN/talos1NN.go), field by field;
 *   - the `talosEtcd` row of the checkout's own minor against its constants (DefaultEtcdVersion);
 *   - the cases of TestTalosUpgradeCompatibility1NN and TestKubernetesCompatibility1NN
 *     (compatibility/talos_version_test.go, kubernetes_version_test.go) through the model's own judgement, for every
 *     minor the facts have a row for; Talos compares versions by their cores, and the facts hold releases only, so a
 *     pre-release of a case is taken at its core;
 *   - talosctl upgrade-k8s' path (go-kubernetes' upgrade.Path.IsSupported list) against the model's Kubernetes move,
 *     for every pair of minors the list spans.
 */
import { talosRunsKubernetes, type ClusterFacts } from '../../model/repository/cluster-facts.ts';
import { kubernetesMove, talosMove } from '../../model/repository/talos-facts.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, GoParser, GoUnsupported, tokenize } from './go-literals.ts';

/** What one minor's compatibility package sets; a field it does not set is undefined. */
export interface TalosPackage {
  from?: string;
  below?: string;
  denied: string[];
  kubernetesFrom?: string;
  kubernetesBelow?: string;
}

const mustParse = (go: string, name: string) => new RegExp(`^var ${name} = semver\\.MustParse\\("([^"]+)"\\)`, 'm').exec(go)?.[1];

/** A talos1NN.go, read: its semver.MustParse constants and the versions its DeniedHostUpgradeVersions lists. */
export function talosPackage(go: string): TalosPackage {
  const denied = /^var DeniedHostUpgradeVersions = \[\]semver\.Version\{/m.exec(go);
  return {
    from: mustParse(go, 'MinimumHostUpgradeVersion'),
    below: mustParse(go, 'MaximumHostDowngradeVersion'),
    denied: denied ? [...blockAt(go, denied.index + denied[0].length - 1).matchAll(/semver\.MustParse\("([^"]+)"\)/g)].map((m) => m[1]!) : [],
    kubernetesFrom: mustParse(go, 'MinimumKubernetesVersion'),
    kubernetesBelow: mustParse(go, 'MaximumKubernetesVersion'),
  };
}

/** The etcd a Talos release runs by default (pkg/machinery/constants/constants.go's DefaultEtcdVersion). */
export const defaultEtcdVersion = (constantsGo: string): string | undefined => /\bDefaultEtcdVersion = "v?([^"]+)"/.exec(constantsGo)?.[1];

/** The minor (1.14) of a checkout's release tag (pkg/machinery/gendata/data/tag: v1.14.0-rc.1). */
export const tagMinor = (tag: string): string | undefined => /^v?(\d+\.\d+)\./.exec(tag.trim())?.[1];

/** The package directory of a Talos minor (1.14 is talos114). */
export const talosPackageName = (minor: string) => `talos${minor.replace('.', '')}`;

type TalosTables = Pick<ClusterFacts, 'talosUpgrades' | 'talosKubernetes' | 'talosEtcd'>;

/**
 * Every field of every row against the package of its minor, and the etcd row of the checkout's own minor against
 * its DefaultEtcdVersion. A row whose minor the checkout has no package for (a release older than it) is not
 * measured, and named in `notInCheckout`.
 */
export function talosFactsAgreement(
  facts: TalosTables,
  packages: ReadonlyMap<string, TalosPackage | undefined>,
  own: { minor: string; etcd?: string },
): { agreement: Agreement; notInCheckout: string[] } {
  const a = emptyAgreement();
  const notInCheckout = [...new Set([...facts.talosUpgrades, ...facts.talosKubernetes].map((r) => r.talos))].filter((m) => !packages.get(m));
  /** The fields of one row, against its minor's package. */
  const fields = (group: string, minor: string) => (name: string, ours: string, theirs: string | undefined) =>
    count(a, {
      group,
      ok: ours === theirs,
      file: `${talosPackageName(minor)}/${talosPackageName(minor)}.go`,
      why: `${name}: the facts say ${ours}, Talos ${theirs ?? 'sets none'}`,
    });
  const measured = <T extends { talos: string }>(rows: readonly T[]) => rows.filter((r) => !notInCheckout.includes(r.talos));
  for (const row of measured(facts.talosUpgrades)) {
    const [p, field] = [packages.get(row.talos), fields('talosUpgrades', row.talos)];
    field('MinimumHostUpgradeVersion', row.from, p?.from);
    field('MaximumHostDowngradeVersion', row.below, p?.below);
    field('DeniedHostUpgradeVersions', row.denied.join(', ') || 'none', p ? p.denied.join(', ') || 'none' : undefined);
  }
  for (const row of measured(facts.talosKubernetes)) {
    const [p, field] = [packages.get(row.talos), fields('talosKubernetes', row.talos)];
    field('MinimumKubernetesVersion', row.from, p?.kubernetesFrom);
    field('MaximumKubernetesVersion', row.below, p?.kubernetesBelow);
  }
  const etcd = facts.talosEtcd.find((r) => r.talos === own.minor);
  if (etcd)
    count(a, {
      group: 'talosEtcd',
      ok: etcd.etcd === own.etcd,
      file: 'constants/constants.go',
      why: `DefaultEtcdVersion of Talos ${own.minor}: the facts say ${etcd.etcd}, Talos ${own.etcd ?? 'sets none'}`,
    });
  return { agreement: a, notInCheckout };
}

/** One case of a compatibility test: the minor its test function is named for, the versions, and the error it expects. */
export interface CompatibilityCase {
  test: string;
  minor: string;
  version: string;
  target: string;
  expectedError?: string;
}

const THROWS = {
  value: (n: string) => {
    throw new GoUnsupported(n);
  },
  call: (n: string) => {
    throw new GoUnsupported(n);
  },
};

/**
 * The cases of every `func <prefix>1NN` table in a compatibility test file (`TestTalosUpgradeCompatibility`, whose
 * rows are {host, target}, or `TestKubernetesCompatibility`, {kubernetesVersion, target}).
 */
export function compatibilityCases(go: string, prefix: 'TestTalosUpgradeCompatibility' | 'TestKubernetesCompatibility'): CompatibilityCase[] {
  const out: CompatibilityCase[] = [];
  for (const m of go.matchAll(new RegExp(`^func (${prefix}1(\\d+))\\(t \\*testing\\.T\\) \\{`, 'gm'))) {
    const body = blockAt(go, m.index + m[0].length - 1);
    const table = /range \[\]\w+\{/.exec(body);
    if (!table) continue;
    const rows = new GoParser(tokenize(`[]Row{${blockAt(body, table.index + table[0].length - 1)}}`), THROWS).expr() as Record<string, string>[];
    for (const r of rows)
      out.push({ test: m[1]!, minor: `1.${m[2]}`, version: r.host ?? r.kubernetesVersion ?? '', target: r.target ?? '', expectedError: r.expectedError });
  }
  return out;
}

/** A version's core (1.14.0-alpha.0 is 1.14.0), as Talos compares it. */
const core = (v: string) => v.replace(/^v/, '').replace(/[-+].*$/, '');

/** The kind of outcome an error message of the compatibility package names. */
function outcome(error: string | undefined): string {
  if (error === undefined) return 'accepted';
  return /too old/.test(error) ? 'too old' : /too new/.test(error) ? 'too new' : /denied/.test(error) ? 'denied' : 'refused';
}

/**
 * Each case whose minor the facts have a row for (`rows`), the model's outcome (`ours`) against the error the test
 * expects; the cases of minors without a row are counted apart.
 */
function caseAgreement(
  cases: readonly CompatibilityCase[],
  { rows, file, ours }: { rows: readonly { talos: string }[]; file: string; ours: (c: CompatibilityCase) => string },
): { agreement: Agreement; withoutRow: number } {
  const agreement = emptyAgreement();
  const measured = cases.filter((c) => rows.some((r) => r.talos === c.minor));
  for (const c of measured) {
    const [model, talos] = [ours(c), outcome(c.expectedError)];
    count(agreement, { group: c.test, ok: model === talos, file, why: `${c.version} on ${c.target}: Talos ${talos}, the model ${model}` });
  }
  return { agreement, withoutRow: cases.length - measured.length };
}

/** The upgrade cases (host on target), judged by the model's Talos move. */
export function talosUpgradeAgreement(cases: readonly CompatibilityCase[], facts: TalosTables): { agreement: Agreement; withoutRow: number } {
  return caseAgreement(cases, {
    rows: facts.talosUpgrades,
    file: 'talos_version_test.go',
    ours: (c) => {
      const move = talosMove(core(c.version), core(c.target), facts.talosUpgrades);
      return move.refusal ? outcome(move.refusal.replace(/^.*?: /, '')) : move.notJudged ? 'not judged' : 'accepted';
    },
  });
}

/** The Kubernetes cases (a Kubernetes version on a Talos), judged as the gate judges the facts' pair. */
export function talosKubernetesAgreement(cases: readonly CompatibilityCase[], facts: TalosTables): { agreement: Agreement; withoutRow: number } {
  return caseAgreement(cases, {
    rows: facts.talosKubernetes,
    file: 'kubernetes_version_test.go',
    ours: (c) => {
      const verdict = talosRunsKubernetes({ talosVersion: core(c.target), kubernetesVersion: core(c.version), talosKubernetes: facts.talosKubernetes }).verdict;
      return verdict === 'runs' ? 'accepted' : verdict;
    },
  });
}

/**
 * talosctl upgrade-k8s' path against the model's Kubernetes move: every pair of minors from the lowest to the
 * highest that go-kubernetes' `IsSupported` lists (kubernetes/upgrade/path.go), accepted exactly when listed.
 */
export function kubernetesPathAgreement(pathGo: string): Agreement {
  const a = emptyAgreement();
  const listed = new Set([...pathGo.matchAll(/"(1\.\d+->1\.\d+)"/g)].map((m) => m[1]!));
  const minors = [...listed].flatMap((p) => p.split('->').map((v) => Number(v.split('.')[1])));
  const [low, high] = [Math.min(...minors), Math.max(...minors)];
  for (let from = low; from <= high; from++)
    for (let to = low; to <= high; to++) {
      const path = `1.${from}->1.${to}`;
      const accepted = kubernetesMove(`1.${from}.3`, `1.${to}.0`).refusal === undefined;
      count(a, {
        group: 'upgrade.Path',
        ok: accepted === listed.has(path),
        file: 'kubernetes/upgrade/path.go',
        why: `${path}: go-kubernetes ${listed.has(path) ? 'lists' : 'does not list'} it, the model ${accepted ? 'accepts' : 'refuses'} it`,
      });
    }
  return a;
}
