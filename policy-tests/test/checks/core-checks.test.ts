/**
 * Every policy check bites: a copy of the real repository, broken in one
 * place, makes exactly that check id fail, at the line that was broken. Here the
 * repository's own checks, the coverage of every list, exemptions and the loader;
 * what a workload runs (its hygiene, images, registries): workload-checks.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMap, type Document, type YAMLMap } from 'yaml';
import { allFindings, registeredChecks, runGate } from '../../gate/gate.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { checkIds, copyRepo, describeFindings } from '../support/helpers.ts';
import { ALL_MUTATIONS, MUTATION_LISTS } from '../mutations/all.ts';
import { AREAS } from '../../checks/registry.ts';
import { describeMutations, type Mutation } from '../support/mutation-runner.ts';
import { CONTAINER, DEPLOYMENT, PORTFOLIO_APP, PRIVILEGED_NS_DEPLOYMENT, addMountedVolume } from '../mutations/edits.ts';
import { repositoryMutations } from '../mutations/repository.ts';

describeMutations('core checks (repository.ts) bite on a broken copy of the real repository', repositoryMutations);

describe('mutation coverage', () => {
  it('every registered policy check has a mutation that makes exactly it fail, and every mutation names a registered check', async () => {
    const ids = (await registeredChecks()).map((c) => c.id).sort();
    const proven = [...new Set(ALL_MUTATIONS.map((m) => m.check))].sort();
    expect(proven).toEqual(ids);
  });

  it("every area's checks are proven by its own mutation list (or the rendered output's), and every key names an area", async () => {
    const env = { isClusterScoped: () => false, builtinGroups: new Set<string>(), builtinKinds: new Map<string, boolean>() };
    const proven = (key: string) => new Set(MUTATION_LISTS[key]?.flat().map((m) => m.check) ?? []);
    const rendered = proven('rendered output');
    const unproven = AREAS.flatMap((area) =>
      area
        .checks(env)
        .filter((c) => !proven(area.name).has(c.id) && !rendered.has(c.id))
        .map((c) => `${area.name}: ${c.id}`),
    );
    expect(unproven).toEqual([]);
    expect(Object.keys(MUTATION_LISTS).filter((k) => !AREAS.some((a) => a.name === k) && !['exemptions', 'rendered output'].includes(k))).toEqual([]);
  });

  it('every list a mutations module exports is gathered in MUTATION_LISTS, and run by a test file', async () => {
    const here = join(REPO_ROOT, 'policy-tests/test');
    const gathered = new Set(Object.values(MUTATION_LISTS).flat());
    const modules = readdirSync(join(here, 'mutations')).filter((f) => f.endsWith('.ts') && !['all.ts', 'edits.ts'].includes(f));
    const lists: [string, unknown][] = [];
    for (const f of modules)
      for (const [name, value] of Object.entries((await import(join(here, 'mutations', f))) as Record<string, unknown>))
        if (Array.isArray(value) && value.every((m) => typeof m === 'object' && m !== null && 'check' in m && 'mutate' in m)) lists.push([name, value]);
    expect(lists.length).toBeGreaterThan(20);
    expect(lists.filter(([, list]) => !gathered.has(list as readonly Mutation[])).map(([name]) => name)).toEqual([]);
    // And every list is run by a describeMutations call in a test file.
    const tests = readdirSync(join(here, 'checks'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(here, 'checks', f), 'utf8'))
      .join('\n');
    expect(lists.map(([name]) => name).filter((name) => !new RegExp(`describeMutations\\([^;]*\\b${name}\\b`).test(tests))).toEqual([]);
  });
});

/** The node's journal as a hostPath volume of the VPN pod, mounted in its first container (read-only). */
const addJournal = (d: Document): void =>
  addMountedVolume(d, { name: 'journal', hostPath: { path: '/var/log/journal' } }, { mountPath: '/var/log/journal', readOnly: true });

describe('exemptions', () => {
  it('a documented exemption next to the workload suppresses exactly its check', async () => {
    const copy = copyRepo();
    try {
      copy.edit(PRIVILEGED_NS_DEPLOYMENT, 0, (d) => {
        d.setIn(['metadata', 'annotations', 'gate.homelab-gitops/exempt-workload-hostpath'], 'reads the node journal for the log shipper');
        // The exemption speaks for the workload; the privilege it covers is named beside it (workload-privileges-named).
        d.setIn(['metadata', 'annotations', 'gate.homelab-gitops/privileges'], 'gluetun: root, cap:NET_ADMIN, cap:MKNOD; pod: hostPath:journal');
        addJournal(d);
      });
      expect(describeFindings(await copy.gate())).toBe('(no findings)');
      // The same exemption without a reason is refused, and the hostPath finding comes back.
      copy.edit(PRIVILEGED_NS_DEPLOYMENT, 0, (d) => d.setIn(['metadata', 'annotations', 'gate.homelab-gitops/exempt-workload-hostpath'], ' '));
      expect(checkIds(await copy.gate())).toEqual(['exemption-valid', 'workload-hostpath']);
    } finally {
      copy.dispose();
    }
  });

  it('an annotation on another workload does not exempt this one', async () => {
    const copy = copyRepo();
    try {
      copy.edit(PRIVILEGED_NS_DEPLOYMENT, 0, addJournal);
      copy.edit('portfolio-api/deploy/service.yaml', 0, (d) => {
        const meta = d.get('metadata');
        if (isMap(meta)) (meta as YAMLMap).set('annotations', d.createNode({ 'gate.homelab-gitops/exempt-workload-hostpath': 'wrong place' }));
      });
      expect(checkIds(await copy.gate())).toEqual(['exemption-valid', 'workload-hostpath']);
    } finally {
      copy.dispose();
    }
  });
});

describe('a local Helm chart', () => {
  it('is a chart source, not manifests: its Chart.yaml and templates are neither parsed nor judged, and the repository stays clean', async () => {
    const copy = copyRepo();
    try {
      // Templates are Go templates: as YAML this one is a ConfigMap whose data value is a map.
      copy.write('apps/media/unpackerr/chart/Chart.yaml', 'apiVersion: v2\nname: extras\nversion: 1.0.0\n');
      copy.write(
        'apps/media/unpackerr/chart/templates/cm.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extras\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
      );
      // Where a directory source would apply them as they are, argocd-root-discovery names them (its mutations).
      expect(describeFindings(await copy.gate())).toBe('(no findings)');
    } finally {
      copy.dispose();
    }
  });
});

describe('parsing in worker threads', () => {
  it('reports the same findings, at the same lines, as parsing on the main thread', async () => {
    const copy = copyRepo();
    try {
      copy.edit(DEPLOYMENT, 0, (d) => d.setIn([...CONTAINER, 'image'], 'ghcr.io/homelab-operator/portfolio-api:latest'));
      copy.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'project'], 'default'));
      copy.write('portfolio-api/deploy/extra.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: portfolio\n  labelz: {}\n');
      const serial = await copy.gate({ parallel: false });
      const parallel = await copy.gate({ parallel: true });
      expect(checkIds(serial)).toEqual(['argocd-project', 'unknown-field', 'workload-image-pinned']);
      expect(describeFindings(parallel)).toBe(describeFindings(serial));
    } finally {
      copy.dispose();
    }
  });
});

describe('cron-schedule on a broken copy of the real repository', () => {
  it("fails the status writer's schedule written Monday to Sunday as 1-7, which robfig/cron's parser refuses (its Sunday is 0), at its line", async () => {
    const copy = copyRepo();
    try {
      const file = 'portfolio-api/deploy/status-writer.yaml';
      copy.write(file, copy.read(file).replace('  schedule: "*/5 * * * *"\n', '  schedule: "*/5 * * * 1-7"\n'));
      const findings = await copy.gate();
      expect(checkIds(findings)).toEqual(['cron-schedule']);
      expect(describeFindings(findings)).toMatch(
        /^portfolio-api\/deploy\/status-writer\.yaml:9:\d+ .*\[cron-schedule\] batch\/v1\/CronJob: schedule "\*\/5 \* \* \* 1-7": end of range \(7\) above maximum \(6\): 1-7/,
      );
    } finally {
      copy.dispose();
    }
  });
});

describe('an unknown field under Validate=false is what the cluster drops, not a refusal', () => {
  it('warns where the object or its Application says Validate=false, and fails it where neither does', async () => {
    const copy = copyRepo();
    try {
      const typo = (annotated: boolean) =>
        copy.edit(DEPLOYMENT, 0, (d) => {
          d.setIn([...CONTAINER, 'imagePullPolicyy'], 'Always');
          if (annotated) d.setIn(['metadata', 'annotations', 'argocd.argoproj.io/sync-options'], 'Validate=false');
        });
      typo(false);
      expect(checkIds(await copy.gate())).toEqual(['unknown-field']);
      copy.reset();
      typo(true);
      const result = await runGate({ root: copy.root, cwd: copy.root, env: { ...process.env, HOMELAB_CHART_CACHE: `${copy.root}/.no-charts` } });
      expect(allFindings(result)).toEqual([]);
      expect(result.warnings.filter((w) => w.check === 'unknown-field').map((w) => w.message)).toEqual([
        expect.stringMatching(
          /unknown field "spec\.template\.spec\.containers\.0\.imagePullPolicyy".*: under Validate=false Argo CD applies it with kubectl apply --validate=false, and the API server drops the field without a word$/,
        ),
      ]);
    } finally {
      copy.dispose();
    }
  });
});
