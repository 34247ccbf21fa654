import { describe, expect, it } from 'vitest';
import { talosRunsEtcd, talosRunsKubernetes, readClusterFacts, type TalosKubernetes } from '../../model/repository/cluster-facts.ts';
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
