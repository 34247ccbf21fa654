import { describe, expect, it } from 'vitest';
import {
  talosRunsEtcd,
  talosRunsKubernetes,
  readClusterFacts,
  upgradeOrder,
  versionMoves,
  type TalosKubernetes,
} from '../../model/repository/cluster-facts.ts';
import { kubernetesMove, talosMove, type TalosUpgrade } from '../../model/repository/talos-facts.ts';
import type { Resource } from '../../model/core/manifest.ts';

const ROWS: TalosKubernetes[] = [{ talos: '1.13', from: '1.31.0', below: '1.36.99', source: 'talos113.go' }];
const runs = (talosVersion: string, kubernetesVersion: string) => talosRunsKubernetes({ talosVersion, kubernetesVersion, talosKubernetes: ROWS }).verdict;

describe('which Kubernetes versions a Talos release runs, as its compatibility package decides', () => {
  it('runs from the minimum on, up to the maximum, which it does not include', () => {
    expect(runs('v1.13.9', '1.31.0')).toBe('runs');
    expect(runs('v1.13.0', '1.36.98')).toBe('runs');
    expect(runs('v1.13.9', '1.36.99')).toBe('too new');
    expect(runs('v1.13.9', '1.37.0')).toBe('too new');
    expect(runs('v1.13.9', '1.30.14')).toBe('too old');
  });

  it('knows nothing of a minor the facts give no row for', () => {
    expect(talosRunsKubernetes({ talosVersion: 'v1.14.0', kubernetesVersion: '1.36.3', talosKubernetes: ROWS })).toEqual({ verdict: 'unknown', minor: '1.14' });
  });

  it('refuses a row without its range or its source', () => {
    const facts = (talosKubernetes: string) =>
      readClusterFacts({ object: { data: { talosKubernetes } } } as unknown as Resource).problems.filter((p) => p.key === 'talosKubernetes');
    expect(facts('- {talos: "1.13", kubernetes: {from: 1.31.0, below: 1.36.99}, source: talos113.go}')).toEqual([]);
    expect(facts('- {talos: "1.13", kubernetes: {from: 1.31, below: 1.36.99}, source: talos113.go}')[0]?.message).toMatch(
      /^talosKubernetes entry 1: must be a YAML list of \{talos, kubernetes: \{from, below\}, source\}/,
    );
    expect(facts('- {talos: "1.13", kubernetes: {from: 1.31.0, below: 1.36.99}}')).toHaveLength(1);
    expect(
      facts(
        '- {talos: "1.13", kubernetes: {from: 1.31.0, below: 1.36.99}, source: a}\n- {talos: "1.13", kubernetes: {from: 1.31.0, below: 1.36.99}, source: b}',
      )[0]?.message,
    ).toBe('talosKubernetes entry 2 names Talos 1.13 again');
  });
});

describe('which etcd a Talos release runs, as its constants name it', () => {
  const etcdRows = (talosEtcd: string) => readClusterFacts({ object: { data: { talosEtcd } } } as unknown as Resource);

  it("finds the row of the pinned Talos' minor, and none for a minor the facts do not list", () => {
    const { facts } = etcdRows('- {talos: "1.13", etcd: 3.6.12, source: constants.go}\n- {talos: "1.14", etcd: 3.7.1, source: constants.go}');
    expect(talosRunsEtcd({ ...facts, talosVersion: 'v1.13.9' })).toEqual({ minor: '1.13', row: { talos: '1.13', etcd: '3.6.12', source: 'constants.go' } });
    expect(talosRunsEtcd({ ...facts, talosVersion: 'v1.14.0' }).row?.etcd).toBe('3.7.1');
    expect(talosRunsEtcd({ ...facts, talosVersion: 'v1.15.0' })).toEqual({ minor: '1.15' });
  });

  it('refuses a row without an exact etcd version or its source, and a minor named twice', () => {
    const problems = (text: string) => etcdRows(text).problems.filter((p) => p.key === 'talosEtcd');
    expect(problems('- {talos: "1.13", etcd: "3.6", source: constants.go}')[0]?.message).toMatch(
      /^talosEtcd entry 1: must be a YAML list of \{talos, etcd, source\}/,
    );
    expect(problems('- {talos: "1.13", etcd: 3.6.12}')).toHaveLength(1);
    expect(problems('- {talos: "1.13", etcd: 3.6.12, source: a}\n- {talos: "1.13", etcd: 3.6.11, source: b}')[0]?.message).toBe(
      'talosEtcd entry 2 names Talos 1.13 again',
    );
  });
});

describe('how the cluster moves between versions, as talosctl judges a move', () => {
  it('takes Kubernetes one minor at a time, patches either way, never a minor back or a skipped one (go-kubernetes upgrade.Path)', () => {
    expect(kubernetesMove('1.36.3', '1.37.0')).toEqual({ what: 'Kubernetes', from: '1.36.3', to: '1.37.0', minorMoved: true });
    expect(kubernetesMove('1.36.3', '1.36.1')).toEqual({ what: 'Kubernetes', from: '1.36.3', to: '1.36.1', minorMoved: false });
    expect(kubernetesMove('1.35.2', '1.37.0').refusal).toBe(
      'talosctl upgrade-k8s refuses the path 1.35->1.37: it moves Kubernetes one minor at a time, so upgrade to 1.36 first',
    );
    expect(kubernetesMove('1.36.3', '1.35.9').refusal).toMatch(/^talosctl upgrade-k8s refuses the path 1\.36->1\.35: it never takes Kubernetes back a minor/);
    expect(kubernetesMove('1.36.3', '2.0.0').refusal).toMatch(/never changes the major/);
    expect(kubernetesMove('1.36', '1.37.0').notJudged).toBe('1.36 is no x.y.z version');
  });

  const ROW: TalosUpgrade = { talos: '1.13', from: '1.11.0', below: '1.15.0', denied: ['1.12.3'], source: 'talos113.go' };
  it("takes a node to a Talos minor from its installer's range only, and says so when the facts have no row for it", () => {
    expect(talosMove('v1.12.9', 'v1.13.9', [ROW])).toEqual({ what: 'Talos', from: 'v1.12.9', to: 'v1.13.9', minorMoved: true });
    expect(talosMove('v1.11.0', 'v1.13.9', [ROW]).refusal).toBeUndefined();
    expect(talosMove('v1.13.8', 'v1.13.9', [ROW])).toEqual({ what: 'Talos', from: 'v1.13.8', to: 'v1.13.9', minorMoved: false });
    expect(talosMove('v1.10.7', 'v1.13.9', [ROW]).refusal).toBe(
      'the Talos 1.13 installer (talosctl upgrade) refuses a node on v1.10.7: too old, it upgrades from 1.11.0 on (talos113.go)',
    );
    expect(talosMove('v1.15.0', 'v1.13.9', [ROW]).refusal).toMatch(/refuses a node on v1\.15\.0: too new to come down to it, it takes nodes below 1\.15\.0/);
    expect(talosMove('v1.14.2', 'v1.13.9', [ROW]).refusal).toBeUndefined();
    expect(talosMove('v1.12.3', 'v1.13.9', [ROW]).refusal).toMatch(/refuses a node on v1\.12\.3: that release is denied/);
    expect(talosMove('v1.13.9', 'v1.14.0', [ROW]).notJudged).toMatch(/^the cluster facts have no talosUpgrades row for Talos 1\.14/);
  });

  it('reads the moves of a change to the facts, Talos first, with the rows of the facts after it', () => {
    const upgrades = '- {talos: "1.14", host: {from: 1.12.0, below: 1.16.0}, source: talos114.go}';
    const facts = (talosVersion: string, kubernetesVersion: string) => ({ data: { talosVersion, kubernetesVersion, talosUpgrades: upgrades } });
    expect(versionMoves(facts('v1.13.9', '1.36.3'), facts('v1.13.9', '1.36.3'))).toEqual([]);
    expect(versionMoves(facts('v1.13.9', '1.35.2'), facts('v1.14.1', '1.37.0'))).toEqual([
      { what: 'Talos', from: 'v1.13.9', to: 'v1.14.1', minorMoved: true },
      {
        what: 'Kubernetes',
        from: '1.35.2',
        to: '1.37.0',
        minorMoved: true,
        refusal: 'talosctl upgrade-k8s refuses the path 1.35->1.37: it moves Kubernetes one minor at a time, so upgrade to 1.36 first',
      },
    ]);
  });

  it('refuses a talosUpgrades row without its range or its source, and a denied entry that is no release', () => {
    const problems = (talosUpgrades: string) =>
      readClusterFacts({ object: { data: { talosUpgrades } } } as unknown as Resource).problems.filter((p) => p.key === 'talosUpgrades');
    expect(problems('- {talos: "1.13", host: {from: 1.11.0, below: 1.15.0}, source: a}')).toEqual([]);
    expect(problems('- {talos: "1.13", host: {from: 1.11.0, below: 1.15.0, denied: [1.12.3]}, source: a}')).toEqual([]);
    expect(problems('- {talos: "1.13", host: {from: 1.11.0, below: 1.15.0, denied: [latest]}, source: a}')[0]?.message).toMatch(
      /^talosUpgrades entry 1: must be a YAML list of \{talos, host: \{from, below, denied\}, source\}/,
    );
    expect(problems('- {talos: "1.13", host: {from: 1.11.0}, source: a}')).toHaveLength(1);
    expect(problems('- {talos: "1.13", host: {from: 1.11.0, below: 1.15.0}}')).toHaveLength(1);
  });
});

describe('the order of a change that moves both Talos and Kubernetes, as a running Talos refuses a Kubernetes it does not run', () => {
  const rows =
    '- {talos: "1.13", kubernetes: {from: 1.31.0, below: 1.36.99}, source: a}\n- {talos: "1.14", kubernetes: {from: 1.32.0, below: 1.37.99}, source: b}\n- {talos: "1.15", kubernetes: {from: 1.33.0, below: 1.38.99}, source: c}';
  const facts = (talosVersion: string, kubernetesVersion: string, talosKubernetes = rows) => ({ data: { talosVersion, kubernetesVersion, talosKubernetes } });
  const order = (from: [string, string], to: [string, string], talosKubernetes?: string) => upgradeOrder(facts(...from), facts(...to, talosKubernetes));

  it('says nothing when only one moves, or when either order works', () => {
    expect(order(['v1.13.9', '1.36.3'], ['v1.14.1', '1.36.3'])).toBeUndefined();
    expect(order(['v1.13.8', '1.36.2'], ['v1.13.9', '1.36.3'])).toBeUndefined();
  });

  it('names the one that goes first, and why the other cannot', () => {
    expect(order(['v1.13.9', '1.36.3'], ['v1.14.1', '1.37.0'])).toEqual({
      order: 'upgrade Talos first: Talos v1.13.9 does not run Kubernetes 1.37.0 (too new)',
    });
    expect(order(['v1.13.9', '1.31.5'], ['v1.14.1', '1.32.0'])).toEqual({
      order:
        'upgrade Kubernetes first: Talos v1.14.1 does not run Kubernetes 1.31.5 (too old), and a running Talos refuses a machine config whose Kubernetes it does not run',
    });
  });

  it('refuses a change no order can take, and says when a row is missing', () => {
    expect(order(['v1.13.9', '1.31.5'], ['v1.15.0', '1.38.0'])?.refusal).toBe(
      'no order takes both in one change: Talos v1.15.0 does not run Kubernetes 1.31.5 (too old), and Talos v1.13.9 does not run Kubernetes 1.38.0 (too new); move one a step at a time',
    );
    expect(order(['v1.13.9', '1.36.3'], ['v1.16.0', '1.37.0'])?.notJudged).toMatch(/^the cluster facts have no talosKubernetes row for Talos 1\.16/);
  });
});

describe('the nodes architecture fact', () => {
  const read = (nodeArchitecture: unknown) => readClusterFacts({ object: { data: { nodeArchitecture } } } as unknown as Resource);
  it("takes one of Go's names for what Talos builds, and is left out where the facts do not say it", () => {
    expect(read('arm64').facts.nodeArchitecture).toBe('arm64');
    expect(read(undefined).facts.nodeArchitecture).toBeUndefined();
    expect(read(undefined).problems.filter((p) => p.key === 'nodeArchitecture')).toEqual([]);
    expect(read('x86_64').facts.nodeArchitecture).toBeUndefined();
    expect(
      read('x86_64')
        .problems.filter((p) => p.key === 'nodeArchitecture')
        .map((p) => p.message),
    ).toEqual(['cluster fact "nodeArchitecture" must be one of amd64, arm64 (Go\'s names for what Talos builds), got "x86_64"']);
  });
});
