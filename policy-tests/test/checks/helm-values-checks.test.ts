/**
 * helm-values-unused: the walk that finds a values key no chart reads, and the check proven to bite on a broken copy of
 * the real repository from each place Argo CD hands a chart its values (a file, a glob, valuesObject, values,
 * parameters, a merge key), with a stand-in chart in a chart cache.
 */
import { describe, expect, it } from 'vitest';
import { namesKey, takesWhole, unusedValues } from '../../model/helm/unused-values.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { helmValuesMutations, standInVolsync } from '../mutations/render.ts';

describe('unusedValues', () => {
  const chart = {
    name: 'app',
    defaults: { image: { tag: '1' }, podAnnotations: {}, config: null, extraArgs: [], securityContext: { runAsNonRoot: true } },
    templates: '{{ .Values.envFrom }} {{ .Values.image.tag }} {{- toYaml .Values.securityContext | nindent 12 }}',
    subcharts: new Map([
      ['grafana', { name: 'grafana', defaults: { admin: { existingSecret: '' } }, templates: '{{ .Values.adminPassword }}', subcharts: new Map() }],
    ]),
  };

  it('accepts declared keys, keys templates read, free-form maps, maps a template takes whole, globals and subchart keys', () => {
    const values = {
      image: { tag: '2' },
      podAnnotations: { a: 'b' },
      config: { anything: 1 },
      securityContext: { allowPrivilegeEscalation: false },
      envFrom: [{ secretRef: { name: 'x' } }],
      global: { any: 1 },
      grafana: { admin: { existingSecret: 's' }, adminPassword: 'p' },
    };
    expect(unusedValues(values, chart)).toEqual([]);
  });

  it('says a key a keystroke from one the chart declares beside it, under a map a template takes whole (Loki reads its persistence so)', () => {
    const loki = {
      name: 'loki',
      defaults: { singleBinary: { persistence: { enabled: true, size: '10Gi', storageClass: null }, extraArgs: [] } },
      templates: '{{- $component := .Values.singleBinary }}{{ set .Values.singleBinary "podAnnotations" (dict) }}storage: {{ $component.persistence.size }}',
      subcharts: new Map(),
    };
    expect(takesWhole(loki, ['singleBinary'])).toBe(true);
    expect(unusedValues({ singleBinary: { persistence: { sizf: '50Gi' } } }, loki)).toEqual([
      { path: ['singleBinary', 'persistence', 'sizf'], near: 'size', whole: true },
    ]);
    // A key the values set beside it, a short key, or one no declared key is a keystroke from, may mean something there.
    expect(unusedValues({ singleBinary: { persistence: { size: '5Gi', sizf: '50Gi' } } }, loki)).toEqual([]);
    expect(unusedValues({ singleBinary: { persistence: { labels: { a: 'b' } }, tolerations: [] } }, loki)).toEqual([]);
    expect(unusedValues({ singleBinary: { extraArg: ['-x'] } }, loki)).toEqual([{ path: ['singleBinary', 'extraArg'], near: 'extraArgs', whole: true }]);
  });

  it("answers from the templates' words and .Values chains read once as the patterns they stand for would", () => {
    const templates =
      '{{ toYaml .Values.a.b }} {{ .Values.a.bc.d }} {{ .Values.x.y. }} {{ .Values.Values.z }}{{ .Values.q.r}} my-key {{ .Values.my-key.v }} .Values.\nend_word';
    const scope = { name: 'c', defaults: {}, templates, subcharts: new Map() };
    const escape = (k: string) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const rels = [
      ['a'],
      ['a', 'b'],
      ['a', 'bc'],
      ['a', 'bc', 'd'],
      ['x', 'y'],
      ['x'],
      ['Values', 'z'],
      ['z'],
      ['q', 'r'],
      ['my-key'],
      ['my-key', 'v'],
      ['end_word'],
    ];
    expect(rels.map((rel) => takesWhole(scope, rel))).toEqual(
      rels.map((rel) => new RegExp(`\\.Values\\.${rel.map(escape).join('\\.')}(?![\\w.])`).test(templates)),
    );
    const keys = ['a', 'b', 'bc', 'Values', 'my', 'key', 'my-key', 'end', 'end_word', 'toYaml', 'y.', 'nowhere'];
    expect(keys.map((key) => namesKey(scope, key))).toEqual(keys.map((key) => new RegExp(`\\b${escape(key)}\\b`).test(templates)));
    expect(rels.filter((rel) => takesWhole(scope, rel)).map((rel) => rel.join('.'))).toEqual(['a.b', 'a.bc.d', 'Values.z', 'z', 'q.r', 'my-key.v']);
    // A pull request's chart that writes `.Values` twenty thousand times over: the tails of that chain would cost its
    // square, so its keys are looked for with the pattern, and the answers are the same.
    const hostile = { ...scope, templates: `{{ ${'.Values'.repeat(20_000)}.z }}` };
    for (const rel of [['z'], ['Values', 'z'], ['a']])
      expect(takesWhole(hostile, rel), rel.join('.')).toBe(new RegExp(`\\.Values\\.${rel.join('\\.')}(?![\\w.])`).test(hostile.templates));
  });

  it('reads hasKey .Values.a "b" and get .Values.a "b" as one key read, not the map taken whole (Cilium tests hubble so)', () => {
    const cilium = {
      name: 'cilium',
      defaults: { hubble: { listenAddress: ':4244', metrics: { serviceMonitor: { enabled: false } } }, tls: { ca: {} } },
      templates: '{{- if hasKey .Values.hubble "listenAddress" }}{{ .Values.hubble.metrics.serviceMonitor.enabled }}{{ get $.Values.tls "ca" }}',
      subcharts: new Map(),
    };
    expect(takesWhole(cilium, ['hubble'])).toBe(false);
    expect(takesWhole(cilium, ['tls'])).toBe(false);
    expect(unusedValues({ hubble: { metrics: { serviceMointor: { enabled: true } } } }, cilium)).toEqual([
      { path: ['hubble', 'metrics', 'serviceMointor'], near: 'serviceMonitor' },
    ]);
    expect(takesWhole({ ...cilium, templates: `${cilium.templates}{{ toYaml .Values.hubble }}` }, ['hubble'])).toBe(true);
    // The same answers from the pattern, where a chain too long to read once sends the chart's keys to it.
    const long = { ...cilium, templates: `${cilium.templates}{{ ${'.Values'.repeat(20_000)}.z }}` };
    expect([takesWhole(long, ['hubble']), takesWhole(long, ['tls']), takesWhole(long, ['z'])]).toEqual([false, false, true]);
  });

  it("reads a `with .Values.a` block's fields as keys of that map, and a bare dot as the map handed on (Loki opens its ServiceMonitor so)", () => {
    const loki = {
      name: 'loki',
      defaults: { monitoring: { serviceMonitor: { enabled: false, labels: {}, interval: null } }, podLabels: {} },
      templates: [
        '{{- with .Values.monitoring.serviceMonitor }}{{- if .enabled }}kind: ServiceMonitor',
        '{{- with .labels }}{{- toYaml . | nindent 4 }}{{- end }}{{- with .interval }}interval: {{ . }}{{ end }}{{- end }}{{- end }}',
        '{{- with .Values.podLabels }}{{ toYaml . }}{{ end }}',
      ].join('\n'),
      subcharts: new Map(),
    };
    expect(takesWhole(loki, ['monitoring', 'serviceMonitor'])).toBe(false);
    expect(takesWhole(loki, ['monitoring', 'serviceMonitor', 'labels'])).toBe(true);
    expect(takesWhole(loki, ['podLabels'])).toBe(true);
    // A template the chart's default values hold, which it renders with tpl, reads too (Loki's loki.config).
    const config = {
      ...loki,
      defaults: { ...loki.defaults, loki: { config: '{{- with .Values.loki.limits_config }}{{ tpl (. | toYaml) $ }}{{- end }}', limits_config: { a: 1 } } },
    };
    expect(unusedValues({ loki: { limits_config: { retention_period: '720h' } } }, config)).toEqual([]);
    expect(
      unusedValues(
        { loki: { limits_config: { retention_period: '720h' } } },
        { ...config, defaults: { ...config.defaults, loki: { limits_config: { a: 1 } } } },
      ),
    ).toEqual([{ path: ['loki', 'limits_config', 'retention_period'] }]);
    // sprig's dig reads one path of the map it is given last, as Loki's canary reads its tenant out of the whole block.
    const canary = `${loki.templates}{{ dig "selfMonitoring" "tenant" "name" $.Values.lokiCanary.tenant.name $.Values.monitoring }}`;
    expect(takesWhole({ ...loki, templates: canary }, ['monitoring'])).toBe(false);
    expect(takesWhole({ ...loki, templates: `${canary}{{ toYaml $.Values.monitoring }}` }, ['monitoring'])).toBe(true);
    expect(unusedValues({ monitoring: { serviceMonitor: { enbaled: true, labels: { release: 'x' } } }, podLabels: { a: 'b' } }, loki)).toEqual([
      { path: ['monitoring', 'serviceMonitor', 'enbaled'], near: 'enabled' },
    ]);
    // Named some other way too ($.Values..., or a template the lexer stops at): taken whole, as before.
    expect(takesWhole({ ...loki, templates: `${loki.templates}{{ toYaml $.Values.monitoring.serviceMonitor }}` }, ['monitoring', 'serviceMonitor'])).toBe(true);
    expect(takesWhole({ ...loki, templates: `${loki.templates}{{ "unclosed }}` }, ['monitoring', 'serviceMonitor'])).toBe(true);
    // `else` turns the dot back: `.enabled` there is the root's, which names no values key.
    expect(
      unusedValues(
        { monitoring: { serviceMonitor: { enbaled: true } } },
        { ...loki, templates: '{{ with .Values.monitoring.serviceMonitor }}{{ else }}{{ toYaml . }}{{ end }}' },
      ),
    ).toEqual([{ path: ['monitoring', 'serviceMonitor', 'enbaled'], near: 'enabled' }]);
  });

  it("reads a `range .Values.a` block's fields as the keys of each element (the snmp exporter walks its ServiceMonitor params so)", () => {
    const snmp = {
      name: 'snmp',
      defaults: { serviceMonitor: { params: [], scrapeTimeout: '10s' } },
      templates: [
        '{{- range .Values.serviceMonitor.params }}name: {{ .name }}',
        'scrapeTimeout: {{ .scrapeTimeout | default $.Values.serviceMonitor.scrapeTimeout }}',
        '{{- range $k, $v := .labels }}{{ $k }}{{ end }}{{- with .auth }}auth: {{ . }}{{ end }}{{- range .paths }}{{ .path }}{{ end }}{{- end }}',
      ].join('\n'),
      subcharts: new Map(),
    };
    const params = (...elements: Record<string, unknown>[]) => unusedValues({ serviceMonitor: { params: elements } }, snmp);
    expect(params({ name: 'nas', scrapeTimeout: '30s', labels: { a: 'b' }, auth: 'public_v2', paths: [{ path: '/' }] })).toEqual([]);
    expect(params({ name: 'nas' }, { name: 'ups', scrapeTimeouu: '30s', module: ['if_mib'] })).toEqual([
      { path: ['serviceMonitor', 'params', 1, 'scrapeTimeouu'], near: 'scrapeTimeout' },
      { path: ['serviceMonitor', 'params', 1, 'module'] },
    ]);
    // Tested beside another chain (`if and .Values.a .Values.b`, as kube-prometheus-stack guards its extra monitors), the list is still read key by key.
    const guarded = { ...snmp, templates: `{{- if and .Values.serviceMonitor.enabled .Values.serviceMonitor.params }}{{ end }}${snmp.templates}` };
    expect(unusedValues({ serviceMonitor: { params: [{ name: 'ups', scrapeTimeouu: '30s' }] } }, guarded)).toEqual([
      { path: ['serviceMonitor', 'params', 0, 'scrapeTimeouu'], near: 'scrapeTimeout' },
    ]);
    // A key the default elements hold is read; an element handed on whole, a list named some other way too, a walk
    // through variables and a key read with `get` leave the elements unjudged.
    expect(
      unusedValues({ serviceMonitor: { params: [{ module: 'x' }] } }, { ...snmp, defaults: { serviceMonitor: { params: [{ name: 'a', module: 'y' }] } } }),
    ).toEqual([]);
    for (const more of [
      '{{ range .Values.serviceMonitor.params }}{{ toYaml . }}{{ end }}',
      '{{ toYaml .Values.serviceMonitor.params }}',
      '{{ range .Values.serviceMonitor.params }}{{ get . "module" }}{{ end }}',
    ])
      expect(unusedValues({ serviceMonitor: { params: [{ module: 'x' }] } }, { ...snmp, templates: `${snmp.templates}${more}` }), more).toEqual([]);
    const variables = { ...snmp, templates: '{{ range $i, $p := .Values.serviceMonitor.params }}{{ $p.name }}{{ end }}' };
    expect(unusedValues({ serviceMonitor: { params: [{ name: 'x', nmae: 'y' }] } }, variables)).toEqual([
      { path: ['serviceMonitor', 'params', 0, 'nmae'], near: 'name' },
    ]);
    // A list key no template reads is still named, as before.
    expect(unusedValues({ serviceMonitor: { parms: [{ name: 'x' }] } }, snmp)).toEqual([{ path: ['serviceMonitor', 'parms'], near: 'params' }]);
  });

  it('reads a list through the variable a range binds its element to, and a chain an if only tests as handed nothing (Rook walks its pools so)', () => {
    const rook = {
      name: 'rook',
      defaults: { cephBlockPools: [{ name: 'ceph-blockpool', spec: {}, storageClass: { enabled: true } }], monitoring: { enabled: false } },
      templates: [
        '{{- if .Values.cephBlockPools }}{{- range $pool := .Values.cephBlockPools }}name: {{ $pool.name }}',
        '{{- if $pool.storageClass.enabled }}{{ toYaml $pool.spec }}{{ end }}{{- with $pool.parameters }}{{ . }}{{ end }}{{ end }}{{ end }}',
        '{{- if and .Values.monitoring (not $.Values.x) }}{{- with .Values.monitoring }}enabled: {{ .enabled }}{{ end }}{{ end }}',
      ].join('\n'),
      subcharts: new Map(),
    };
    expect(unusedValues({ cephBlockPools: [{ name: 'a', spec: {}, storageClass: {}, parameters: {} }] }, rook)).toEqual([]);
    // The default elements' keys count as read; a key neither reads nor holds is named.
    expect(unusedValues({ cephBlockPools: [{ name: 'a', specs: {} }] }, { ...rook, defaults: { ...rook.defaults, cephBlockPools: [] } })).toEqual([
      { path: ['cephBlockPools', 0, 'specs'], near: 'spec' },
    ]);
    expect(unusedValues({ monitoring: { enablee: true } }, rook)).toEqual([{ path: ['monitoring', 'enablee'], near: 'enabled' }]);
    // A map in an element that the walk reads key by key holds only the keys read or held there by the default
    // elements; one it takes whole (`toYaml $pool.spec`, `with $pool.parameters`) or reads nothing of is left alone.
    const pool = (element: Record<string, unknown>) => unusedValues({ cephBlockPools: [element] }, rook);
    expect(pool({ name: 'a', storageClass: { enabeld: false }, spec: { anything: 1 }, parameters: { any: 1 } })).toEqual([
      { path: ['cephBlockPools', 0, 'storageClass', 'enabeld'], near: 'enabled' },
    ]);
    expect(pool({ name: 'a', storageClass: { enabled: true, isDefault: true } })).toEqual([{ path: ['cephBlockPools', 0, 'storageClass', 'isDefault'] }]);
    const defaulted = { ...rook, defaults: { ...rook.defaults, cephBlockPools: [{ name: 'x', storageClass: { enabled: true, isDefault: false } }] } };
    expect(unusedValues({ cephBlockPools: [{ name: 'a', storageClass: { enabled: true, isDefault: true } }] }, defaulted)).toEqual([]);
    const whole = { ...rook, templates: `${rook.templates}{{ range $p := .Values.cephBlockPools }}{{ toYaml $p.storageClass }}{{ end }}` };
    expect(unusedValues({ cephBlockPools: [{ name: 'a', storageClass: { enabeld: true } }] }, whole)).toEqual([]);
    // A chain an if hands on (`if (include "x" .Values.monitoring)`) or a bare variable is taken whole.
    expect(takesWhole({ ...rook, templates: `${rook.templates}{{ if include "x" .Values.monitoring }}{{ end }}` }, ['monitoring'])).toBe(true);
    const bare = `${rook.templates}{{ range $p := .Values.cephBlockPools }}{{ include "pool" $p }}{{ end }}`;
    expect(unusedValues({ cephBlockPools: [{ anything: 1 }] }, { ...rook, templates: bare, defaults: { cephBlockPools: [] } })).toEqual([]);
  });

  it('reads a map through the variable a plain declaration binds it to (Rook opens its VolumeSnapshotClasses so)', () => {
    const vsc = {
      name: 'rook-ceph-cluster',
      defaults: { cephBlockPoolsVolumeSnapshotClass: { enabled: false, name: 'ceph-block', labels: {}, parameters: {} } },
      templates: [
        '{{- $root := . -}}{{- $blockpoolvsc := .Values.cephBlockPoolsVolumeSnapshotClass -}}',
        '{{- if $blockpoolvsc.enabled }}name: {{ $blockpoolvsc.name }}{{- with $blockpoolvsc.labels }}{{ toYaml . }}{{ end }}',
        'driver: {{ $root.Values.operatorNamespace }}{{- with $blockpoolvsc.parameters }}{{ toYaml . }}{{ end }}{{- end }}',
      ].join('\n'),
      subcharts: new Map(),
    };
    expect(takesWhole(vsc, ['cephBlockPoolsVolumeSnapshotClass'])).toBe(false);
    expect(unusedValues({ cephBlockPoolsVolumeSnapshotClass: { eanbled: true } }, vsc)).toEqual([
      { path: ['cephBlockPoolsVolumeSnapshotClass', 'eanbled'], near: 'enabled' },
    ]);
    // What the variable hands on whole (a `with` on its field, then a bare dot) holds anything.
    expect(unusedValues({ cephBlockPoolsVolumeSnapshotClass: { enabled: true, labels: { a: 'b' }, parameters: { x: 1 } } }, vsc)).toEqual([]);
    // The variable handed on bare, or declared again to hold anything else, takes the map whole or reads nothing through it.
    expect(takesWhole({ ...vsc, templates: `${vsc.templates}{{ toYaml $blockpoolvsc }}` }, ['cephBlockPoolsVolumeSnapshotClass'])).toBe(true);
    const redeclared = vsc.templates.replace('{{- if $blockpoolvsc.enabled }}', '{{- $blockpoolvsc = list }}{{- if $blockpoolvsc.enabled }}');
    expect(unusedValues({ cephBlockPoolsVolumeSnapshotClass: { eanbled: true } }, { ...vsc, templates: redeclared })).toEqual([
      { path: ['cephBlockPoolsVolumeSnapshotClass', 'eanbled'], near: 'enabled' },
    ]);
    // A declaration with more than the chain (a default) is read as before: the chain taken whole.
    const defaulted = vsc.templates.replace('.Values.cephBlockPoolsVolumeSnapshotClass -}}', '.Values.cephBlockPoolsVolumeSnapshotClass | default dict -}}');
    expect(takesWhole({ ...vsc, templates: defaulted }, ['cephBlockPoolsVolumeSnapshotClass'])).toBe(true);
  });

  it('reads a chain handed alone to a helper the chart defines through the helper, its fields keys of it (Cilium builds its images so)', () => {
    const cilium = {
      name: 'cilium',
      defaults: { image: { repository: 'quay.io/cilium/cilium', tag: 'v1', digest: '', useDigest: false, pullPolicy: 'IfNotPresent' } },
      templates: [
        '{{- define "cilium.image" -}}{{- if .override }}{{ .override }}{{ else }}{{ .repository }}:{{ .tag }}{{ include "digest" . }}{{ end -}}{{- end -}}',
        '{{- define "digest" -}}{{ if $.useDigest }}@{{ .digest }}{{ end }}{{- end -}}',
        'image: {{ include "cilium.image" .Values.image | quote }}',
        'pullPolicy: {{ .Values.image.pullPolicy }}',
      ].join('\n'),
      subcharts: new Map(),
    };
    expect(unusedValues({ image: { repository: 'r', tag: 't', override: 'o', useDigest: true, digest: 'sha256:x', pullPolicy: 'Always' } }, cilium)).toEqual(
      [],
    );
    expect(unusedValues({ image: { tga: 'v2' } }, cilium)).toEqual([{ path: ['image', 'tga'], near: 'tag' }]);
    // Through a helper the root context is handed to (`include "x" .`, `include "x" $`), as Cilium's agent builds its init containers.
    for (const call of ['{{ include "containers" . }}', '{{ with .Values.image }}{{ include "containers" $ }}{{ end }}']) {
      const nested = {
        ...cilium,
        templates: cilium.templates.replace(
          'image: {{ include "cilium.image" .Values.image | quote }}',
          `{{ define "containers" }}image: {{ include "cilium.image" .Values.image }}{{ end }}${call}`,
        ),
      };
      expect(unusedValues({ image: { tga: 'v2' } }, nested), call).toEqual([{ path: ['image', 'tga'], near: 'tag' }]);
    }
    // A helper that includes itself is walked once per chain; four helpers deep are followed, a fifth is past the walk, and its chain is taken whole.
    const loop = { ...cilium, templates: `${cilium.templates}{{ define "loop" }}{{ .tag }}{{ include "loop" . }}{{ end }}{{ include "loop" .Values.image }}` };
    expect(unusedValues({ image: { tga: 'v2' } }, loop)).toEqual([{ path: ['image', 'tga'], near: 'tag' }]);
    const chain = [1, 2, 3, 4, 5].map((n) => `{{ define "h${n}" }}{{ include "h${n + 1}" . }}{{ end }}`).join('') + '{{ define "h6" }}{{ .tag }}{{ end }}';
    expect(takesWhole({ ...cilium, templates: `${chain}{{ include "h1" .Values.image }}` }, ['image'])).toBe(true);
    expect(
      takesWhole({ ...cilium, templates: `${chain.replace('{{ include "h4" . }}', '{{ include "h6" . }}')}{{ include "h1" .Values.image }}` }, ['image']),
    ).toBe(false);
    // A comment that names the chain reads nothing (Cilium's helpers document their calls so).
    const commented = { ...cilium, templates: `{{/* then \`include "cilium.image" .Values.image\` */}}\n${cilium.templates}` };
    expect(unusedValues({ image: { tga: 'v2' } }, commented)).toEqual([{ path: ['image', 'tga'], near: 'tag' }]);
    // A helper the chart does not define (a library's), or one that hands its dot on whole, takes the chain whole.
    expect(takesWhole({ ...cilium, templates: cilium.templates.replace('"cilium.image" .Values', '"other.image" .Values') }, ['image'])).toBe(true);
    expect(
      takesWhole({ ...cilium, templates: `${cilium.templates}{{ define "all" }}{{ toYaml . }}{{ end }}{{ include "all" .Values.image }}` }, ['image']),
    ).toBe(true);
  });

  it('names each key nobody reads, at any depth and inside subcharts', () => {
    const values = { envFromSecrets: ['x'], image: { tga: '2' }, grafana: { admin: { existingSecrt: 's' } } };
    expect(unusedValues(values, chart)).toEqual([
      { path: ['envFromSecrets'] },
      { path: ['image', 'tga'], near: 'tag' },
      { path: ['grafana', 'admin', 'existingSecrt'], near: 'existingSecret' },
    ]);
  });
});

describeMutations('helm-values-unused bites on the real repository', helmValuesMutations, standInVolsync());
