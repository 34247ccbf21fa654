/**
 * The checks on rendered output, each proven to bite on a broken copy of the
 * real repository. The copy's volsync Application renders a stand-in chart
 * of the tests' own (same name and version, placed in the chart cache and
 * locked), so the gate renders it with the real Helm; the other charts stay
 * not rendered, as on a machine that never pulled them.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { unusedValueKeys } from '../checks/render.ts';
import { runGate, allFindings } from '../gate/gate.ts';
import { cachedChartPath, CHART_LOCK_FILE, digestOf, formatLock } from '../render/charts.ts';
import { toolEnv, writeChart } from './chart-repo.ts';
import { output } from './exec.ts';
import { checkIds, copyRepo, describeFindings, lineOf, type RepoCopy } from './helpers.ts';

describe('unusedValueKeys', () => {
  const chart = {
    name: 'app',
    defaults: { image: { tag: '1' }, podAnnotations: {}, config: null, extraArgs: [] },
    templates: '{{ .Values.envFrom }} {{ .Values.image.tag }}',
    subcharts: new Map([['grafana', { name: 'grafana', defaults: { admin: { existingSecret: '' } }, templates: '{{ .Values.adminPassword }}', subcharts: new Map() }]]),
  };

  it('accepts declared keys, keys templates read, free-form maps, globals and subchart keys', () => {
    const values = { image: { tag: '2' }, podAnnotations: { a: 'b' }, config: { anything: 1 }, envFrom: [{ secretRef: { name: 'x' } }], global: { any: 1 }, grafana: { admin: { existingSecret: 's' }, adminPassword: 'p' } };
    expect(unusedValueKeys(values, chart)).toEqual([]);
  });

  it('names each key nobody reads, at any depth and inside subcharts', () => {
    const values = { envFromSecrets: ['x'], image: { tga: '2' }, grafana: { admin: { existingSecrt: 's' } } };
    expect(unusedValueKeys(values, chart)).toEqual([['envFromSecrets'], ['image', 'tga'], ['grafana', 'admin', 'existingSecrt']]);
  });
});

const VALUES = 'apps/platform/volsync/values.yaml';
const APP = 'apps/platform/volsync/application.yaml';

describe('checks on rendered output bite on the real repository', () => {
  let copy: RepoCopy;
  let cache: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    copy = copyRepo();
    cache = mkdtempSync(join(tmpdir(), 'standin-cache-'));
    env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
    // The stand-in declares every key of the repository's values, so only a mutation leaves one unread.
    const defaults = { ...(parse(copy.read(VALUES)) as Record<string, unknown>), standinRandom: false };
    const src = writeChart(join(cache, 'src'), {
      name: 'volsync',
      version: '0.13.1',
      values: defaults,
      files: {
        'templates/configmap.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volsync-standin\n  namespace: {{ .Release.Namespace }}\ndata:\n  manageCRDs: {{ .Values.manageCRDs | quote }}\n  disableAuth: {{ .Values.metrics.disableAuth | quote }}\n',
        'templates/random.yaml': '{{- if .Values.standinRandom }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volsync-random\n  namespace: {{ .Release.Namespace }}\ndata:\n  token: {{ randAlphaNum 20 | quote }}\n{{- end }}\n',
      },
    });
    await output(env.HELM_BIN!, ['package', src, '--destination', join(cache, 'pkg')], { env });
    const ref = { repoURL: 'https://backube.github.io/helm-charts/', chart: 'volsync', version: '0.13.1' };
    const target = cachedChartPath(ref, env);
    mkdirSync(dirname(target), { recursive: true });
    renameSync(join(cache, 'pkg', 'volsync-0.13.1.tgz'), target);
    writeFileSync(join(copy.root, CHART_LOCK_FILE), formatLock({ charts: [{ ...ref, digest: digestOf(readFileSync(target)) }] }));
  });
  afterEach(() => copy?.reset());
  afterAll(() => {
    copy?.remove();
    if (cache) rmSync(cache, { recursive: true, force: true });
  });

  const gate = async () => {
    const result = await runGate({ root: copy.root, cwd: copy.root, env });
    return { findings: allFindings(result), result };
  };

  it('passes unbroken, with the stand-in rendered and the other eight counted as not rendered', async () => {
    const { findings, result } = await gate();
    expect(findings, describeFindings(findings)).toEqual([]);
    expect(result.summary.notRendered).toBe(8);
    expect(result.resources.some((r) => r.renderedBy === 'volsync: volsync/templates/configmap.yaml' && r.status === 'valid')).toBe(true);
  });

  it('helm-values-unused: a key the chart never reads, at its line in the values file', async () => {
    copy.write(VALUES, `${copy.read(VALUES)}metricz:\n  enabled: true\n`);
    const { findings } = await gate();
    expect(checkIds(findings), describeFindings(findings)).toEqual(['helm-values-unused']);
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual([`${VALUES}:${lineOf(copy, VALUES, 'metricz:')}`]);
  });

  it('render-deterministic: randAlphaNum makes two renders differ, named at the chart source', async () => {
    copy.write(VALUES, `${copy.read(VALUES)}standinRandom: true\n`);
    const { findings } = await gate();
    expect(checkIds(findings), describeFindings(findings)).toEqual(['render-deterministic']);
    expect(findings[0]!.message).toMatch(/^ConfigMap volsync-random differs between two renders .*\(template volsync\/templates\/random\.yaml\)/);
    expect(`${findings[0]!.file}:${findings[0]!.line}`).toBe(`${APP}:${lineOf(copy, APP, 'chart: volsync')}`);
  });

  it('duplicate-resource: a plain manifest that repeats a rendered object, both places named', async () => {
    copy.write('apps/platform/volsync/standin-copy.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volsync-standin\n  namespace: volsync-system\ndata: {}\n');
    const { findings } = await gate();
    expect(checkIds(findings), describeFindings(findings)).toEqual(['duplicate-resource']);
    expect(findings.map((f) => f.file).sort()).toEqual([APP, 'apps/platform/volsync/standin-copy.yaml']);
    expect(findings.find((f) => f.file === APP)!.message).toMatch(/also declared in apps\/platform\/volsync\/standin-copy\.yaml/);
  });
});
