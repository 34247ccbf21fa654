/**
 * The cluster facts' Talos tables measured against Talos' own source (admission/upstream/talos.ts, and
 * `conformance --talos --go-kubernetes`), on files written here in the shape of siderolabs/talos' compatibility
 * package and tests and go-kubernetes' upgrade path: agreement where the facts hold what the source says, and a
 * disagreement, with its field, where they do not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as talos from '../../admission/upstream/talos.ts';
import { conformanceCommand } from '../../../scripts/conformance.ts';

const pkg = (
  minor: string,
  { from, below, k8s, denied = '' }: { from: string; below: string; k8s: [string, string]; denied?: string },
) => `// Package talos${minor} provides compatibility constants.
package talos${minor}

import "github.com/blang/semver/v4"

var MajorMinor = [2]uint64{1, ${minor.slice(1)}}

var MinimumHostUpgradeVersion = semver.MustParse("${from}")

var MaximumHostDowngradeVersion = semver.MustParse("${below}")

${denied ? `var DeniedHostUpgradeVersions = []semver.Version{\n\tsemver.MustParse("${denied}"),\n}` : 'var DeniedHostUpgradeVersions []semver.Version'}

var MinimumKubernetesVersion = semver.MustParse("${k8s[0]}")

var MaximumKubernetesVersion = semver.MustParse("${k8s[1]}")
`;

const UPGRADE_TESTS = `package compatibility_test

func TestTalosUpgradeCompatibility113(t *testing.T) {
	for _, tt := range []talosVersionTest{
		{
			host:   "1.11.0",
			target: "1.13.0",
		},
		{
			host:   "1.12.0-alpha.0",
			target: "1.13.0",
		},
		{
			host:          "1.10.0",
			target:        "1.13.0",
			expectedError: \`host version 1.10.0 is too old to upgrade to Talos 1.13.0\`,
		},
		{
			host:          "1.15.0-alpha.0",
			target:        "1.13.0",
			expectedError: \`host version 1.15.0-alpha.0 is too new to downgrade to Talos 1.13.0\`,
		},
	} {
		runTalosVersionTest(t, tt)
	}
}

func TestTalosUpgradeCompatibility19(t *testing.T) {
	for _, tt := range []talosVersionTest{
		{
			host:   "1.8.0",
			target: "1.9.0",
		},
	} {
		runTalosVersionTest(t, tt)
	}
}
`;

const KUBERNETES_TESTS = `package compatibility_test

func TestKubernetesCompatibility113(t *testing.T) {
	for _, tt := range []kubernetesVersionTest{
		{
			kubernetesVersion: "1.36.2",
			target:            "1.13.0",
		},
		{
			kubernetesVersion: "1.37.0-alpha.0",
			target:            "1.13.0",
			expectedError:     "version of Kubernetes 1.37.0-alpha.0 is too new to be used with Talos 1.13.0",
		},
		{
			kubernetesVersion: "1.30.4",
			target:            "1.13.0",
			expectedError:     "version of Kubernetes 1.30.4 is too old to be used with Talos 1.13.0",
		},
	} {
		runKubernetesVersionTest(t, tt)
	}
}
`;

const facts = {
  talosUpgrades: [{ talos: '1.13', from: '1.11.0', below: '1.15.0', denied: [], source: 'here' }],
  talosKubernetes: [{ talos: '1.13', from: '1.31.0', below: '1.36.99', source: 'here' }],
  talosEtcd: [{ talos: '1.13', etcd: '3.6.12', source: 'here' }],
};

describe("the facts' Talos tables against Talos' source", () => {
  it('reads a compatibility package, the etcd constant and the release tag', () => {
    expect(talos.talosPackage(pkg('113', { from: '1.11.0', below: '1.15.0', k8s: ['1.31.0', '1.36.99'], denied: '1.11.2' }))).toEqual({
      from: '1.11.0',
      below: '1.15.0',
      denied: ['1.11.2'],
      kubernetesFrom: '1.31.0',
      kubernetesBelow: '1.36.99',
    });
    expect(talos.defaultEtcdVersion('const (\n\t// DefaultEtcdVersion is the default target version of etcd.\n\tDefaultEtcdVersion = "v3.6.12"\n)')).toBe(
      '3.6.12',
    );
    expect(talos.tagMinor('v1.13.9\n')).toBe('1.13');
  });

  it('agrees field by field where the rows say what the package says, and names the field where they do not', () => {
    const same = talos.talosFactsAgreement(
      facts,
      new Map([['1.13', talos.talosPackage(pkg('113', { from: '1.11.0', below: '1.15.0', k8s: ['1.31.0', '1.36.99'] }))]]),
      {
        minor: '1.13',
        etcd: '3.6.12',
      },
    );
    expect([same.agreement.agree, same.agreement.total, same.notInCheckout]).toEqual([6, 6, []]);
    const moved = talos.talosFactsAgreement(
      facts,
      new Map([['1.13', talos.talosPackage(pkg('113', { from: '1.12.0', below: '1.15.0', k8s: ['1.31.0', '1.36.99'], denied: '1.12.1' }))]]),
      {
        minor: '1.13',
        etcd: '3.6.13',
      },
    );
    expect(moved.agreement.disagreements.map((d) => d.why)).toEqual([
      'MinimumHostUpgradeVersion: the facts say 1.11.0, Talos 1.12.0',
      'DeniedHostUpgradeVersions: the facts say none, Talos 1.12.1',
      'DefaultEtcdVersion of Talos 1.13: the facts say 3.6.12, Talos 3.6.13',
    ]);
    const older = talos.talosFactsAgreement(facts, new Map([['1.13', undefined]]), { minor: '1.12', etcd: '3.6.11' });
    expect([older.agreement.total, older.notInCheckout]).toEqual([0, ['1.13']]);
  });

  it("judges the tests' cases of the minors with a row as the model does, and counts the rest apart", () => {
    const upgrades = talos.talosUpgradeAgreement(talos.compatibilityCases(UPGRADE_TESTS, 'TestTalosUpgradeCompatibility'), facts);
    expect([upgrades.agreement.agree, upgrades.agreement.total, upgrades.withoutRow]).toEqual([4, 4, 1]);
    const narrowed = talos.talosUpgradeAgreement(talos.compatibilityCases(UPGRADE_TESTS, 'TestTalosUpgradeCompatibility'), {
      ...facts,
      talosUpgrades: [{ ...facts.talosUpgrades[0]!, below: '1.16.0' }],
    });
    expect(narrowed.agreement.disagreements.map((d) => d.why)).toEqual(['1.15.0-alpha.0 on 1.13.0: Talos too new, the model accepted']);
    const kubernetes = talos.talosKubernetesAgreement(talos.compatibilityCases(KUBERNETES_TESTS, 'TestKubernetesCompatibility'), facts);
    expect([kubernetes.agreement.agree, kubernetes.agreement.total, kubernetes.withoutRow]).toEqual([3, 3, 0]);
  });

  it("holds the model's Kubernetes move to talosctl upgrade-k8s' path list, pair by pair", () => {
    const list = (pairs: string[]) =>
      `func (p *Path) IsSupported() bool {\n\tswitch p.String() {\n\tcase\n${pairs.map((p) => `\t\t"${p}",`).join('\n')}\n\t\treturn true\n\t}\n\treturn false\n}`;
    const path = talos.kubernetesPathAgreement(list(['1.34->1.34', '1.34->1.35', '1.35->1.35', '1.35->1.36', '1.36->1.36']));
    expect([path.agree, path.total]).toEqual([9, 9]);
    const skipping = talos.kubernetesPathAgreement(list(['1.34->1.34', '1.34->1.35', '1.34->1.36', '1.35->1.35', '1.35->1.36', '1.36->1.36']));
    expect(skipping.disagreements.map((d) => d.why)).toEqual(['1.34->1.36: go-kubernetes lists it, the model refuses it']);
  });

  it('conformance --talos --go-kubernetes measures checkouts given by path; a missing file is one line and exit 1', async () => {
    const root = mkdtempSync(join(tmpdir(), 'talos-conformance-'));
    try {
      const write = (file: string, text: string) => {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), text);
      };
      const compat = 'talos/pkg/machinery/compatibility';
      for (const [minor, from, below, k8s] of [
        ['112', '1.10.0', '1.14.0', ['1.30.0', '1.35.99']],
        ['113', '1.11.0', '1.15.0', ['1.31.0', '1.36.99']],
      ] as const)
        write(`${compat}/talos${minor}/talos${minor}.go`, pkg(minor, { from, below, k8s: [...k8s] }));
      write(`${compat}/talos_version_test.go`, UPGRADE_TESTS);
      write(`${compat}/kubernetes_version_test.go`, KUBERNETES_TESTS);
      write('talos/pkg/machinery/constants/constants.go', 'const (\n\tDefaultEtcdVersion = "v3.6.12"\n)\n');
      write('talos/pkg/machinery/gendata/data/tag', 'v1.13.9\n');
      write('gok/kubernetes/upgrade/path.go', '\t\t"1.35->1.35",\n\t\t"1.35->1.36",\n\t\t"1.36->1.36",\n');
      let out = '';
      const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (out += t) };
      expect(await conformanceCommand(['--talos', join(root, 'talos'), '--go-kubernetes', join(root, 'gok')], io)).toBe(0);
      // The repository's own rows: those of 1.12 and 1.13 measured against the packages written above, the newer ones not.
      expect(out).toMatch(
        /Talos rows against Talos v1\.13\.9 \(pkg\/machinery\/compatibility, constants; the rows of Talos [\d., ]+, newer than it, not measured\): (\d+)\/\1 agree/,
      );
      expect(out).not.toMatch(/DISAGREES/);
      expect(out).toMatch(/talosctl upgrade cases \(talos_version_test\.go; 1 of minors without a facts row not measured\): 4\/4 agree/);
      expect(out).toMatch(/talosctl upgrade-k8s' path \(go-kubernetes kubernetes\/upgrade\/path\.go\): 4\/4 agree/);
      let missing = '';
      const code = await conformanceCommand(['--talos', join(root, 'nowhere')], { stdout: () => undefined, stderr: (t: string) => void (missing += t) });
      expect([code, missing]).toEqual([1, `conformance: cannot read ${join(root, 'nowhere', 'pkg/machinery/gendata/data/tag')}: ENOENT\n`]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
