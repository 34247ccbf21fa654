/**
 * The render tier's cache with the real Helm 4: a source rendered again only while its output may change, the
 * determinism check paid once, and which templates can read the API versions or print differently.
 */ import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calledFunctions, mayPrintDifferently, mayReadApiVersions } from '../../render/chart-traits.ts';
import { pullCharts } from '../../../scripts/charts-pull.ts';
import { chartApp } from '../../../test-support/render-fixtures.ts';
import { charts, countingTool, demoRepo, env, rendered, useRenderLab } from '../../../test-support/render-lab.ts';

useRenderLab();

const lines: string[] = [];
const out = (line: string) => lines.push(line);

describe('a cold render cache', () => {
  const PROBE_CHART = {
    name: 'probe',
    version: '1.0.0',
    files: {
      // Reads the API versions, but only for an API nothing here adds: the same output in every pass.
      'templates/cm.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
data:
  nope: {{ .Capabilities.APIVersions.Has "nothing.example.com/v1/Nope" | quote }}
`,
    },
  };
  const TPL_CHART = {
    name: 'tpl',
    version: '1.0.0',
    values: { text: 'plain' },
    // Never names the capabilities itself: whatever a values string hands to tpl does.
    files: {
      'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  text: {{ tpl .Values.text . | quote }}\n',
    },
  };

  it('renders each source twice when its output did not change, a source that changed three times, never four, and one that cannot print differently once a pass; the determinism check is paid by the pass that settles; Helm is asked its version once', async () => {
    await charts.publish(PROBE_CHART);
    await charts.publish(TPL_CHART);
    const repo = demoRepo();
    const widget = '{{ .Capabilities.APIVersions.Has "example.com/v1/Widget" }}';
    repo.write('apps/probe/application.yaml', chartApp('probe', { repoURL: charts.url, chart: 'probe', version: '1.0.0' }));
    repo.write('apps/tpl-plain/application.yaml', chartApp('tpl-plain', { repoURL: charts.url, chart: 'tpl', version: '1.0.0' }));
    repo.write(
      'apps/tpl-widget/application.yaml',
      chartApp('tpl-widget', { repoURL: charts.url, chart: 'tpl', version: '1.0.0' }, { valuesObject: { text: widget } }),
    );
    // The attack: a values-only change whose tpl-rendered text reaches the API versions without naming them.
    const split = '{{ toYaml (index . (print "Capa" "bilities")) | contains (print "example.com/v1/" "Widget") }}';
    repo.write(
      'apps/tpl-split/application.yaml',
      chartApp('tpl-split', { repoURL: charts.url, chart: 'tpl', version: '1.0.0' }, { valuesObject: { text: split } }),
    );
    const cold = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const helm = countingTool(cold, 'helm', env.HELM_BIN!);
    const coldEnv = { HOMELAB_CACHE_DIR: cold, HELM_BIN: helm.bin };
    await pullCharts({ root: repo.root, env: { ...env, ...coldEnv }, updateLock: false, out });
    const result = await rendered(repo, coldEnv);
    const counts = Object.fromEntries(['demo', 'widgets', 'probe', 'tpl-plain', 'tpl-widget', 'tpl-split'].map((n) => [n, 0]));
    for (const args of helm.calls()) if (args[0] === 'template') counts[args[args.indexOf('--name-template') + 1]!]!++;
    // Pass one renders each once, deferring the determinism check. The widgets CRD grows the API versions, so pass two
    // renders again whatever reads them: tpl-plain prints the same text (two prints alike: checked), demo, tpl-widget
    // and tpl-split print a Widget now, so the settling pass prints them a third time to check them. A chart that uses
    // tpl counts as reading them: tpl-split reaches them without naming them. Probe and widgets call nothing random,
    // nothing of the clock and no tpl: one print each is checked, so widgets (which cannot read the API versions: its
    // key is the same in pass two) prints once, and probe once a pass, as its key grows with the API versions.
    expect(counts).toEqual({ demo: 3, widgets: 1, probe: 2, 'tpl-plain': 2, 'tpl-widget': 3, 'tpl-split': 3 });
    const text = (app: string) => result.renders.find((r) => r.app.name === app)!.resources[0]!.object.data;
    expect([text('tpl-widget'), text('tpl-split'), text('tpl-plain'), text('probe')]).toEqual([
      { text: 'true' },
      { text: 'true' },
      { text: 'plain' },
      { nope: 'false' },
    ]);
    expect(result.renders.every((r) => r.nondeterministic.length === 0)).toBe(true);
    // The same repository in another folder (a diff's base worktree is a new one each run) starts from the API
    // versions this run settled at: every render is a cache hit, and Helm renders nothing.
    const templates = () => helm.calls().filter((args) => args[0] === 'template').length;
    const printed = templates();
    const worktree = mkdtempSync(join(tmpdir(), 'render-worktree-'));
    cpSync(repo.root, worktree, { recursive: true });
    await rendered({ ...repo, root: worktree }, coldEnv);
    expect(templates()).toBe(printed);
    rmSync(worktree, { recursive: true, force: true });
    // A second cache in the same process: the binary is not asked its version again.
    const other = mkdtempSync(join(tmpdir(), 'render-cache-'));
    await rendered(repo, { ...coldEnv, HOMELAB_CACHE_DIR: other, HOMELAB_CHART_CACHE: join(cold, 'charts') });
    expect(helm.calls().filter((args) => args[0] === 'version')).toHaveLength(1);
    rmSync(other, { recursive: true, force: true });
    rmSync(cold, { recursive: true, force: true });
  });

  it('tells the files that can read the API versions from those that cannot', () => {
    const reads = [
      '{{ .Capabilities.APIVersions.Has "x/v1" }}',
      '{{ toYaml .Capabilities }}',
      '{{ include "h" (dict "caps" $.Capabilities) }}',
      '{{ index . "Capabilities" }}',
    ];
    // tpl renders a values string with the chart's whole context: a chart that uses it can reach the API versions.
    expect(mayReadApiVersions('templates/cm.yaml', 'text: {{ tpl .Values.text . | quote }}')).toBe(true);
    const cannot = [
      '{{ .Capabilities.KubeVersion.Version }}',
      '{{ .Capabilities.HelmVersion.Version }}',
      'allowedCapabilities: []',
      'capabilities:\n  add: [NET_ADMIN]',
    ];
    expect(reads.map((text) => mayReadApiVersions('templates/x.yaml', text))).toEqual(reads.map(() => true));
    expect(cannot.map((text) => mayReadApiVersions('templates/x.yaml', text))).toEqual(cannot.map(() => false));
    // A packed subchart that reaches here was not read in (chart-files.ts reads a whole one): it counts as reading them.
    expect(mayReadApiVersions('charts/sub-1.0.0.tgz', '')).toBe(true);
  });

  it('tells the templates that may print differently from the same inputs from those that cannot, by the functions they call', () => {
    // Calls are the bare names of an action, outside strings and comments; fields and variables are not calls.
    expect([
      ...calledFunctions(
        '{{- /* randAlphaNum in a comment */ -}}\nname: {{ include "x.now" . | quote }}\n{{ $keys := .Values.keys }}{{ .Values.now }}{{ `{{ uuidv4 }}` }}\nnow and keys as text',
      ),
    ]).toEqual(['include', 'quote']);
    expect([...calledFunctions('{{ print "}}" | randAlphaNum }}{{if (keys .)}}{{end}}')].sort()).toEqual(['end', 'if', 'keys', 'print', 'randAlphaNum']);
    const differ = [
      'password: {{ randAlphaNum 16 | b64enc }}',
      'at: {{ now | date "2006" }}',
      'at: {{ date "2006-01-02" .Values.when }}',
      'first: {{ first (keys .Values.m) }}',
      '{{ $ca := genCA "x" 365 }}',
      'text: {{ tpl .Values.text . }}',
      'auth: {{ htpasswd "u" "p" }}',
      'data: {{ (.Files.Glob "files/**").AsConfig | nindent 2 }}',
    ];
    expect(differ.map((text) => mayPrintDifferently('templates/x.yaml', text))).toEqual(differ.map(() => true));
    // The same texts are data outside templates/ (a file only a tpl call would run), and a subchart's templates count.
    expect(differ.map((text) => mayPrintDifferently('files/x.yaml', text))).toEqual(differ.map(() => false));
    expect(mayPrintDifferently('charts/sub/templates/x.yaml', differ[0]!)).toBe(true);
    expect(mayPrintDifferently('templates/x.yaml', 'names: {{ keys .Values.m | sortAlpha | join "," }}')).toBe(true);
    expect(mayPrintDifferently('templates/x.yaml', 'data: {{ toYaml .Values.m | nindent 2 }}{{ lookup "v1" "Secret" "a" "b" }}')).toBe(false);
    expect(mayPrintDifferently('charts/sub-1.0.0.tgz', '')).toBe(true);
  });
});

describe('a render kept by other code', () => {
  it('is read again from its print, and Helm not run again; where its print is gone, rendered again', async () => {
    const repo = demoRepo();
    const cache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const helm = countingTool(cache, 'helm', env.HELM_BIN!);
    const cacheEnv = { HOMELAB_CACHE_DIR: cache, HELM_BIN: helm.bin };
    try {
      await pullCharts({ root: repo.root, env: { ...env, ...cacheEnv }, updateLock: false, out });
      const first = await rendered(repo, cacheEnv);
      const templates = () => helm.calls().filter((args) => args[0] === 'template').length;
      const printed = templates();
      // Every entry as a gate that read output otherwise would have kept it: other objects, by other code.
      const dir = join(cache, 'renders');
      const entries = readdirSync(dir).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
      expect(entries.length).toBeGreaterThan(0);
      for (const name of entries) writeFileSync(join(dir, name), JSON.stringify({ docs: [], nondeterministic: [], reader: 'other code' }));
      const again = await rendered(repo, cacheEnv);
      expect(templates()).toBe(printed);
      const objects = (r: typeof first) => r.renders.map((s) => s.resources.map((x) => x.object));
      expect(objects(again)).toEqual(objects(first));
      // Its print gone (pruned, or kept by a gate before prints were): Helm renders it again. In a copy of the cache,
      // which this process has read nothing of.
      const copy = mkdtempSync(join(tmpdir(), 'render-cache-'));
      cpSync(cache, copy, { recursive: true });
      for (const name of entries) writeFileSync(join(copy, 'renders', name), JSON.stringify({ docs: [], nondeterministic: [], reader: 'other code' }));
      for (const name of readdirSync(join(copy, 'renders')).filter((n) => n.endsWith('.print'))) rmSync(join(copy, 'renders', name));
      expect(objects(await rendered(repo, { ...cacheEnv, HOMELAB_CACHE_DIR: copy, HOMELAB_CHART_CACHE: join(cache, 'charts') }))).toEqual(objects(first));
      expect(templates()).toBeGreaterThan(printed);
      rmSync(copy, { recursive: true, force: true });
    } finally {
      rmSync(repo.root, { recursive: true, force: true });
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
