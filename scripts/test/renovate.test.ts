/**
 * Renovate: its own validator passes the repository's config (and names what
 * a broken one gets wrong), and its own extraction covers every pin the
 * scanner finds in a copy of the real repository; one new unmatched pin makes
 * the check fail with its file:line.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRenovateCopy } from './renovate-copy.ts';
import { main } from '../renovate/command.ts';
import { inspectRenovate, report } from '../renovate/inspect.ts';
import { coverage, parseExemptions, type Exemption } from '../renovate/coverage.ts';
import { findPins, type Pin } from '../renovate/pins.ts';
import type { ExtractedDep } from '../renovate/renovate.ts';

const versions = (pins: Pin[]) => pins.map((p) => [p.line, p.key, p.version]);

describe('the pin scanner', () => {
  it('finds images, versions, action SHAs and versioned URLs in YAML, with their lines', () => {
    const yaml = [
      'apiVersion: apps/v1',
      'spec:',
      '  image: ghcr.io/example/app:1.2.3',
      '  sidecar: { image: "docker.io/library/busybox:1.37.0@sha256:' + 'a'.repeat(64) + '" }',
      '  targetRevision: v1.21.1',
      '  branch: main',
      '  nameservers: ["1.1.1.1", "9.9.9.9"]',
      '  addresses: [192.168.1.240-192.168.1.249]',
      '  resources: [https://raw.githubusercontent.com/o/r/v3.5.1/install.yaml]',
      '  refs: ["falco-rules:5"]',
      '  cpu: 1.5',
      '  uses: actions/checkout@' + 'b'.repeat(40),
      '  script: |',
      '    echo 1.2.3',
    ].join('\n');
    expect(versions(findPins('x/a.yaml', yaml))).toEqual([
      [3, 'image', '1.2.3'],
      [4, 'image', 'sha256:' + 'a'.repeat(64)],
      [5, 'targetRevision', 'v1.21.1'],
      [9, 'resources', 'v3.5.1'],
      [10, 'refs', '5'],
      [12, 'uses', 'b'.repeat(40)],
    ]);
  });

  it("skips a package's own version, but not its dependencies' ranges", () => {
    const json = JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { yaml: '^2.9.1' }, engines: { node: '>=24' } }, null, 2);
    expect(versions(findPins('package.json', json))).toEqual([[5, 'yaml', '^2.9.1']]);
    expect(versions(findPins('data/flow.json', json))).toEqual([
      [3, 'version', '1.0.0'],
      [5, 'yaml', '^2.9.1'],
    ]);
  });

  it("skips a chart's own version in its Chart.yaml, but not its dependencies' (Renovate's helmv3 moves those)", () => {
    const chart =
      'apiVersion: v2\nname: probe\nversion: 1.0.0\nappVersion: 0.28.0\ndependencies:\n  - name: prometheus-blackbox-exporter\n    version: 11.17.2\n';
    expect(versions(findPins('apps/probe/chart/Chart.yaml', chart))).toEqual([
      [4, 'appVersion', '0.28.0'],
      [7, 'version', '11.17.2'],
    ]);
    expect(versions(findPins('apps/probe/chart/values.yaml', chart))[0]).toEqual([3, 'version', '1.0.0']);
  });

  it('finds FROM images, the syntax image, ARG versions and pinned packages in a Dockerfile, never an address', () => {
    const dockerfile = [
      '# syntax=docker/dockerfile:1',
      '# docker build -t ghcr.io/x/y:1.0.0 .',
      'FROM node:24-bookworm-slim AS build',
      'FROM build',
      'ARG RESTIC_VERSION=0.18.1',
      'RUN apt-get install -y restic=0.14.0-1+b5 zstd',
      'ENV HOST=0.0.0.0 PORT=3000',
    ].join('\n');
    expect(versions(findPins('img/Dockerfile', dockerfile))).toEqual([
      [1, 'syntax', '1'],
      [3, 'FROM', '24-bookworm-slim'],
      [5, 'RESTIC_VERSION', '0.18.1'],
      [6, 'restic', '0.14.0-1+b5'],
    ]);
  });

  it('finds version assignments in shell scripts and the version in .node-version', () => {
    expect(versions(findPins('.ci/run', '#!/usr/bin/env bash\n# tool 1.2.3\nNODE=24.21.0\nexport HELM_VERSION="v4.2.3"\nX=$(y)\n'))).toEqual([
      [3, 'NODE', '24.21.0'],
      [4, 'HELM_VERSION', 'v4.2.3'],
    ]);
    expect(versions(findPins('.node-version', '24\n'))).toEqual([[1, '.node-version', '24']]);
  });
});

describe('coverage', () => {
  const pin = (file: string, key: string, version: string, line = 1): Pin => ({ file, line, key, text: version, version });
  const dep = (file: string, d: Partial<ExtractedDep>): ExtractedDep => ({ file, manager: 'm', ...d });

  it('counts a pin covered by a dependency of the same file with its version or digest, exempt by a glob and key, and uncovered otherwise', () => {
    const exemptions: Exemption[] = [
      { files: 'facts/*.yaml', keys: ['helm'], reason: 'facts' },
      { files: 'gone/*.json', keys: ['version'], reason: 'stale' },
    ];
    const result = coverage(
      [
        pin('a.yaml', 'image', '1.2.3'),
        pin('w.yaml', 'uses', 'c'.repeat(40)),
        pin('facts/t.yaml', 'helm', '4.2.1'),
        pin('b.yaml', 'image', '1.2.3'),
        pin('a.yaml', 'image', '2.0.0'),
      ],
      [dep('a.yaml', { currentValue: '1.2.3' }), dep('w.yaml', { currentValue: 'v4.2.2', currentDigest: 'c'.repeat(40) })],
      exemptions,
    );
    expect(result.covered.map((p) => p.file)).toEqual(['a.yaml', 'w.yaml']);
    expect(result.exempt.map((p) => p.file)).toEqual(['facts/t.yaml']);
    expect(result.uncovered.map((p) => `${p.file} ${p.version}`)).toEqual(['b.yaml 1.2.3', 'a.yaml 2.0.0']);
    expect(result.unusedExemptions).toEqual([exemptions[1]]);
  });

  it('refuses an exemption without a reason, or without keys', () => {
    expect(() => parseExemptions('- files: a.yaml\n  keys: [helm]\n')).toThrow('.github/renovate-unmanaged.yaml: entry 1 (a.yaml) gives no reason');
    expect(() => parseExemptions('- files: a.yaml\n  reason: why\n')).toThrow('entry 1 (a.yaml) has no keys');
    expect(() => parseExemptions('files: a.yaml\n')).toThrow('expected a list');
  });
});

describe('Renovate itself on a copy of the repository', () => {
  const { root, change, restore } = useRenovateCopy();

  it('passes the validator, and covers every pin of the repository and a new app in the usual places, each with the right datasource (a multi-source chart, an image in its values, an image in its manifest); and fails, each with its file:line, on a new pin no manager matches, a version added to a covered file without its renovate comment, an exemption that matches nothing any more, and a package rule naming a package the repository does not have', async () => {
    // One Renovate run (its validator and its extraction) answers it all: Renovate's start-up is most of a run.
    await change('apps/media/newapp/application.yaml', () =>
      [
        'apiVersion: argoproj.io/v1alpha1',
        'kind: Application',
        'metadata: { name: newapp, namespace: argocd }',
        'spec:',
        '  sources:',
        '    - repoURL: https://charts.example.org',
        '      chart: newapp',
        '      targetRevision: 3.1.4',
        '      helm: { valueFiles: [$values/apps/media/newapp/values.yaml] }',
        '    - repoURL: https://github.com/homelab-operator/homelab-gitops.git',
        '      targetRevision: main',
        '      ref: values',
        '',
      ].join('\n'),
    );
    await change('apps/media/newapp/values.yaml', () => 'image:\n  repository: ghcr.io/example/newapp\n  tag: 2.7.1\n');
    await change(
      'apps/media/newapp/sidecar.yaml',
      () => 'apiVersion: v1\nkind: Pod\nmetadata: { name: sidecar }\nspec:\n  containers:\n    - name: s\n      image: quay.io/example/sidecar:0.9.0\n',
    );
    await change(
      'infra/tools/deployment.yaml',
      () =>
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: tools }\nspec:\n  template:\n    spec:\n      containers:\n        - name: tools\n          image: ghcr.io/example/tools:1.4.2\n',
    );
    await change('.ci/run', (t) => t.replace('set -euo pipefail\n', 'set -euo pipefail\nHELM_VERSION=4.2.3\n'));
    await change('.github/renovate-unmanaged.yaml', (t) => `${t}- files: nowhere/*.yaml\n  keys: [version]\n  reason: a file that was removed\n`);
    // A rule's name slipped: the rule that holds etcd's next minor back would hold back nothing.
    await change('.github/renovate.json5', (t) =>
      t.replace("matchPackageNames: ['registry.k8s.io/etcd'],\n      matchUpdateTypes", "matchPackageNames: ['registry.k8s.io/etdc'],\n      matchUpdateTypes"),
    );
    try {
      const inspection = await inspectRenovate(root());
      const lines: string[] = [];
      expect(report(inspection, (l) => lines.push(l))).toBe(1);
      // The repository's config, unchanged here, passed renovate-config-validator --strict.
      expect(lines[0]).toBe('valid    .github/renovate.json5 (renovate-config-validator --strict)');
      const line = (await readFile(join(root(), '.ci/run'), 'utf8')).split('\n').indexOf('HELM_VERSION=4.2.3') + 1;
      // Exactly the four planted defects: every other pin of the repository, the new app's among them, is covered.
      expect(lines.filter((l) => !l.startsWith('valid'))).toEqual([
        expect.stringContaining(`UNCOVERED .ci/run:${line}: HELM_VERSION HELM_VERSION=4.2.3 is pinned`),
        expect.stringMatching(
          /^UNCOVERED infra\/tools\/deployment\.yaml:9: image ghcr\.io\/example\/tools:1\.4\.2 is pinned, but no Renovate manager matches it/,
        ),
        'STALE    .github/renovate-unmanaged.yaml: the entry for nowhere/*.yaml (version) matches no pin; remove it',
        expect.stringMatching(
          /^UNUSED {3}\.github\/renovate\.json5:\d+: packageRules\[\d+\] names registry\.k8s\.io\/etdc, and no dependency Renovate extracts is that one \(did you mean "registry\.k8s\.io\/etcd"\?\)/,
        ),
        expect.stringMatching(/^Pins: \d+ found - covered by Renovate: \d+, exempt: \d+, uncovered: 2$/),
      ]);
      // And each defect on its own line, wherever the others fall.
      expect(lines.filter((l) => l.startsWith('UNCOVERED') && l.includes('infra/tools/'))).toHaveLength(1);
      expect(lines.filter((l) => /^(UNCOVERED|STALE)/.test(l) && !l.includes('infra/tools/'))).toHaveLength(2);
      expect(inspection.problems).toEqual([]);
      if (!('result' in inspection)) throw new Error(inspection.problems.join('; '));
      expect(inspection.result.covered.length).toBeGreaterThan(100);
      const fresh = inspection.deps.filter((d) => d.file.startsWith('apps/media/newapp/') && d.datasource !== 'git-tags' && d.datasource !== 'kubernetes-api');
      expect(fresh.map((d) => [d.file, d.datasource, d.depName, d.currentValue]).sort((a, b) => a.join('\0').localeCompare(b.join('\0')))).toEqual([
        ['apps/media/newapp/application.yaml', 'helm', 'newapp', '3.1.4'],
        ['apps/media/newapp/sidecar.yaml', 'docker', 'quay.io/example/sidecar', '0.9.0'],
        ['apps/media/newapp/values.yaml', 'docker', 'ghcr.io/example/newapp', '2.7.1'],
      ]);
      expect(
        inspection.result.covered
          .filter((p) => p.file.startsWith('apps/media/newapp/'))
          .map((p) => p.file)
          .sort(),
      ).toEqual(['apps/media/newapp/application.yaml', 'apps/media/newapp/sidecar.yaml', 'apps/media/newapp/values.yaml']);
    } finally {
      await restore();
    }
  });
});

describe('npm run renovate:check', () => {
  const capture = () => {
    const out = { stdout: '', stderr: '' };
    return { out, io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t) } };
  };

  it('--help exits 0; an unknown option is one line and exit 2; a folder with no config is one line and exit 1', async () => {
    let c = capture();
    expect(await main(['--help'], c.io)).toBe(0);
    expect(c.out.stdout).toMatch(/^usage: renovate:check \[--root DIR\]/);
    c = capture();
    expect(await main(['--nope'], c.io)).toBe(2);
    expect(c.out.stderr).toBe("renovate:check: Unknown option '--nope' (usage: renovate:check [--root DIR])\n");
    const empty = await mkdtemp(join(tmpdir(), 'renovate-empty-'));
    try {
      c = capture();
      expect(await main(['--root', empty], c.io)).toBe(1);
      expect(c.out.stdout).toBe('INVALID  .github/renovate.json5: no Renovate config\n');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('renovate:check on a file git does not track', () => {
  it('says to git add it, rather than blaming Renovate', () => {
    const pin = { file: 'apps/new/values.yaml', line: 3, key: 'tag', text: 'ghcr.io/x/y:1.2.3', version: '1.2.3' };
    const lines: string[] = [];
    const code = report(
      {
        problems: [],
        pins: [pin],
        deps: [],
        result: { covered: [], exempt: [], uncovered: [pin], unusedExemptions: [] },
        untracked: new Set([pin.file]),
        split: [],
        skipped: [],
        unused: [],
      },
      (l) => lines.push(l),
    );
    expect(code).toBe(1);
    expect(lines[1]).toBe(
      'UNTRACKED apps/new/values.yaml:3: tag ghcr.io/x/y:1.2.3 is in a file git does not track, which Renovate never reads: git add it first',
    );
  });
});

describe('renovate:check on names a pull request wrote', () => {
  it('shows a control character in a file name as an escape, so it cannot forge a line of the report', () => {
    const pin = { file: 'apps/x\u001b[2K\rvalid/values.yaml', line: 3, key: 'tag', text: 'ghcr.io/x/y:1.2.3', version: '1.2.3' };
    const lines: string[] = [];
    report(
      {
        problems: [],
        pins: [pin],
        deps: [],
        result: { covered: [], exempt: [], uncovered: [pin], unusedExemptions: [] },
        untracked: new Set(),
        split: [],
        skipped: [],
        unused: [],
      },
      (l) => lines.push(l),
    );
    expect(lines[1]).toMatch(/^UNCOVERED apps\/x\\u001b\[2K\\u000dvalid\/values\.yaml:3: /);
  });
});

describe('renovate:check on a pin that moves one minor at a time', () => {
  it('names the release Renovate would skip or hold back, and the pull request it would come in, and fails', () => {
    const lines: string[] = [];
    const at = {
      file: 'clusters/home/cluster-facts.yaml',
      depName: 'kubernetes/kubernetes',
      from: '1.36.3',
      why: 'talosctl upgrade-k8s takes the next minor only',
      proposed: '1.38.0',
    };
    const skipped = [
      { ...at, step: 'patch' as const, skipped: '1.36.4' },
      { ...at, step: 'minor' as const, skipped: '1.37.0' },
    ];
    const code = report(
      {
        problems: [],
        pins: [],
        deps: [],
        result: { covered: [], exempt: [], uncovered: [], unusedExemptions: [] },
        untracked: new Set(),
        split: [],
        skipped,
        unused: [],
      },
      (l) => lines.push(l),
    );
    expect(code).toBe(1);
    expect(lines.slice(1, 3)).toEqual([
      'HOLDS    clusters/home/cluster-facts.yaml: kubernetes/kubernetes 1.36.3 would get its patch 1.36.4 only inside the pull request of 1.38.0, which waits for a person: offer the patch on its own (separateMultipleMinor or separateMinorPatch on its rule in .github/renovate.json5)',
      'SKIPS    clusters/home/cluster-facts.yaml: kubernetes/kubernetes 1.36.3 would be offered 1.38.0 in one pull request, past 1.37.0, but it moves one minor at a time (talosctl upgrade-k8s takes the next minor only): set separateMultipleMinor on its rule in .github/renovate.json5 (one without matchUpdateTypes)',
    ]);
  });
});

describe('renovate:check on images released together that Renovate would propose apart', () => {
  it('names the pair, the facts file and the groups, and fails', () => {
    const lines: string[] = [];
    const split = [{ image: 'ghcr.io/x/node', partner: 'ghcr.io/x/server', file: 'apps/x/facts/images.yaml', groups: ['node', undefined] }];
    const code = report(
      {
        problems: [],
        pins: [],
        deps: [],
        result: { covered: [], exempt: [], uncovered: [], unusedExemptions: [] },
        untracked: new Set(),
        split,
        skipped: [],
        unused: [],
      },
      (l) => lines.push(l),
    );
    expect(code).toBe(1);
    expect(lines[1]).toBe(
      'SPLIT    apps/x/facts/images.yaml: ghcr.io/x/node works with ghcr.io/x/server only at one release, but Renovate proposes them apart (group node and one alone), and the gate refuses each alone: give both one groupName in .github/renovate.json5',
    );
  });
});
