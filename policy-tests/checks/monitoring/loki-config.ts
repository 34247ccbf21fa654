/**
 * monitoring-loki-config: Loki loads the configuration the repository gives it. Loki reads its file with yaml.v2's
 * `UnmarshalStrict` (pkg/util/cfg/files.go) into its config structs and exits on any refusal (a field its struct
 * lacks, a value of another type, a size or date it cannot read): the pod restarts for good, no log is written,
 * and the log panels and every alert on Loki's data go blank. The structs are the reference the repository keeps
 * (model/loki/reference.ts, from Loki's own configuration reference at the version the chart runs).
 *
 * Then Loki's own checks of the decoded file (model/loki/validate.ts: the schema periods, structured metadata,
 * retention, the index directories), which read the whole file with its defaults.
 *
 * And Loki's command line (loki-flags.ts): the chart's arguments and the values' extraArgs, read as Go's flag package
 * reads them on the flags Loki registers.
 *
 * Judged where the chart is rendered on the config.yaml it renders, each refusal placed on the values line that
 * wrote it where the values did; offline on the blocks the values write into the file as they are, decoded only
 * (Loki's checks are then said not judged: the chart's defaults are part of the file they read). A reference
 * read for another Loki than the one the chart runs judges nothing: that is said, not passed.
 */
import { judgeLokiTls } from './loki-tls.ts';
import { judgeLokiRing } from './loki-ring.ts';
import { judgeLokiFlags, judgeValuesFlags } from './loki-flags.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import type { Path } from '../../model/core/positions.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { pinnedVersionMiss, placeInValues, renderedVersionMiss } from '../../model/helm/chart-output.ts';
import { dig, isMap } from '../../model/core/dig.ts';
import { goDecodeProblems, type GoStruct } from '../../model/yaml/go-decode.ts';
import { lokiValidationProblems, streamRetentionProblems, undecidedPeriods } from '../../model/loki/validate.ts';
import {
  LOKI_CHART,
  LOKI_REFERENCE,
  lokiConfigFile,
  lokiFile,
  parseLokiFile,
  LOKI_RUNTIME_KEY,
  LOKI_IMAGE,
  lokiReference,
  valuesConfigParts,
  valuesRootsOf,
} from '../../model/loki/config.ts';

/** Where the values write the runtime file. */
const RUNTIME_VALUES: Path = ['loki', 'runtimeConfig'];

const CONSEQUENCE = 'Loki refuses its configuration and exits at start: no log is stored, and every panel and alert on its data goes blank';
const REFRESH = 'npm run loki:reference -- --from <clone of grafana/loki> --ref v<the chart appVersion> --chart-version <the chart version>';

/**
 * `${VAR}` and `$VAR`: the chart runs Loki with -config.expand-env=true, so their value is the pod's environment's;
 * `{{ }}`: the chart's `tpl` fills it in from its values.
 */
const EXPANDED = /\$(\{[^}]*\}|[A-Za-z_])|\{\{/;

/** The value with every scalar Loki expands from its environment left out (null: the field's default), and whether any was. */
function withoutExpanded(value: unknown): { value: unknown; expanded: boolean } {
  let expanded = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && EXPANDED.test(v)) {
      expanded = true;
      return null;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { value: walk(value), expanded };
}

function judgeRendered(ctx: CheckContext, resource: Resource, type: GoStruct, values: ChartValues | undefined): void {
  const file = lokiConfigFile(resource)!;
  const parsed = parseLokiFile(file.text);
  const name = `${resource.kind} ${resource.name}'s ${file.path.at(-1)}`;
  if ('error' in parsed) return ctx.fail({ resource, path: file.path }, `${name} is no YAML Loki reads (${parsed.error}): ${CONSEQUENCE}`);
  const { value, expanded } = withoutExpanded(parsed.doc);
  judgeLokiTls(ctx, resource.rendered!.app, dig(value, ['server']));
  if (expanded) ctx.notJudged({ resource, path: file.path }, `${name} holds values Loki takes from its environment (-config.expand-env): those are not judged`);
  const where = placeInValues({ resource, path: file.path }, values, (path) => ({ roots: valuesRootsOf(String(path[0])), rest: path.slice(1) }));
  const decoded = goDecodeProblems(value, type);
  // Loki validates only what decoded; its checks then run on the file with its defaults, so they are judged on the rendered file alone.
  const refused = decoded.length ? decoded : lokiValidationProblems(value);
  for (const p of refused) ctx.fail(where(p.path), `${name} at ${p.path.join('.') || 'its top'}: ${p.message}: ${CONSEQUENCE}`);
  if (decoded.length === 0) judgeLokiRing(ctx, resource.rendered!.app, value, where);
  if (decoded.length === 0)
    for (const path of undecidedPeriods(value))
      ctx.notJudged(
        where(path),
        `${name} at ${path.join('.')}: a schema period without v13 and TSDB, which Loki refuses with structured metadata on if it is the one in force when Loki starts: the gate reads no clock, so which one is, is not judged`,
      );
}

/** The runtime file (per-tenant overrides), which `loki.runtimeConfig` writes whole. */
function judgeRuntime(ctx: CheckContext, resource: Resource, type: GoStruct, values: ChartValues | undefined): void {
  const file = lokiFile(resource, LOKI_RUNTIME_KEY)!;
  const parsed = parseLokiFile(file.text);
  const name = `${resource.kind} ${resource.name}'s ${LOKI_RUNTIME_KEY}`;
  if ('error' in parsed) return ctx.fail({ resource, path: file.path }, `${name} is no YAML Loki reads (${parsed.error}): ${CONSEQUENCE}`);
  const where = placeInValues({ resource, path: file.path }, values, (path) => ({ roots: [RUNTIME_VALUES], rest: path }));
  const value = withoutExpanded(parsed.doc).value;
  const decoded = goDecodeProblems(value, type);
  // runtimeConfigValues.validate: each tenant's limits as Limits.Validate judges them, once the file decoded.
  const tenants = decoded.length ? [] : Object.entries(isMap(dig(value, ['overrides'])) ? (dig(value, ['overrides']) as Record<string, unknown>) : {});
  const refused = [
    ...decoded,
    ...tenants.flatMap(([tenant, limits]) => streamRetentionProblems(limits, ['overrides', tenant], `invalid override for tenant ${tenant}`)),
  ];
  for (const p of refused) ctx.fail(where(p.path), `${name} at ${p.path.join('.') || 'its top'}: ${p.message}: ${CONSEQUENCE}`);
}

/** A chart not rendered (offline): the blocks its values write into the file as they are. */
function judgeValues(ctx: CheckContext, v: ChartValues, type: GoStruct, runtimeType: GoStruct): void {
  ctx.notJudged(
    { data: v.source, path: ['loki'] },
    "Loki's checks of its whole file (schema periods, structured metadata, retention, index directories) are judged once the chart renders: its defaults are part of the file",
  );
  for (const part of valuesConfigParts(v.values)) {
    const field = type.fields[part.block];
    if (!field) {
      ctx.fail(
        { data: v.source, path: part.path },
        `the values write ${part.block} into Loki's file, a field Loki's configuration does not have: ${CONSEQUENCE}`,
      );
      continue;
    }
    const decoded = goDecodeProblems(withoutExpanded(part.value).value, field);
    for (const p of decoded)
      ctx.fail({ data: v.source, path: [...part.path, ...p.path] }, `Loki's ${[part.block, ...p.path].join('.')}: ${p.message}: ${CONSEQUENCE}`);
    // Each stream retention rule is judged alone (its selector, its period): no default of the chart's joins it.
    if (part.block === 'limits_config' && decoded.length === 0)
      for (const p of streamRetentionProblems(part.value, [], 'CONFIG ERROR: invalid limits_config config'))
        ctx.fail({ data: v.source, path: [...part.path, ...p.path] }, `Loki's ${[part.block, ...p.path].join('.')}: ${p.message}: ${CONSEQUENCE}`);
  }
  const runtime = dig(v.values, RUNTIME_VALUES);
  for (const p of runtime === undefined ? [] : goDecodeProblems(withoutExpanded(runtime).value, runtimeType))
    ctx.fail(
      { data: v.source, path: [...RUNTIME_VALUES, ...p.path] },
      `Loki's ${LOKI_RUNTIME_KEY} at ${p.path.join('.') || 'its top'}: ${p.message}: ${CONSEQUENCE}`,
    );
}

export const lokiConfigCheck: PolicyCheck = {
  id: 'monitoring-loki-config',
  description:
    "Loki loads the configuration the repository gives it: every field one of its config structs has, of the type yaml.v2 decodes into it (ints, durations, byte sizes, a schema period's date...), as Loki's own configuration reference lists them at the version the chart runs; otherwise Loki exits at start and no log is stored; and every S3 store it names (a schema period's object store, the delete-request store) has a bucket, or its client refuses at start. Judged on the rendered config.yaml, offline on the blocks the values write into it. And where its server takes TLS (server.http_tls_config names a certificate), each file that block names is one its container holds (else Loki stops at start), and its probes and the chart's ServiceMonitor of the HTTP port speak HTTPS (Go's TLS server answers plain HTTP 400), as they speak HTTP where it does not; and the ingester ring has the live ingesters its replication factor asks for a push (common.replication_factor, 3 where unset: half of it plus one), or every push gets 500 and no log is stored (A2). And Loki takes its command line (the chart's arguments, then the values' extraArgs): every flag one Loki registers, each value of the type its flag reads (a boolean, a duration, a float, a byte size), and no -help, -version, -health or -verify-config, each of which stops Loki before it serves; a flag the reference does not name is refused where it is a slip of one it does, and otherwise said not judged; and the file -config.file names (the first of its comma-separated paths the container holds) is said not judged where it is another than the chart's config.yaml.",
  invariants: ['A2'],
  remediation: `correct the field the finding names in monitoring/loki/values.yaml as Loki documents its configuration; after a Loki upgrade, refresh ${LOKI_REFERENCE} (${REFRESH})`,
  reads: {
    kinds: withKeyProviders('ConfigMap', 'Secret', 'Application', 'StatefulSet', 'Deployment', 'Service', 'ServiceMonitor', 'HorizontalPodAutoscaler'),
    charts: [LOKI_CHART],
    files: [LOKI_REFERENCE],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const values = chartValues(ctx.repo, LOKI_CHART);
    const reference = lokiReference(ctx.repo);
    if (reference && !reference.ok)
      return ctx.fail({ data: reference.data, path: [] }, `${LOKI_REFERENCE} cannot be read (${reference.problem}): Loki's configuration is not judged`);
    const rendered = ctx.resources.filter((r) => lokiConfigFile(r) !== undefined);
    const runtimes = ctx.resources.filter((r) => lokiFile(r, LOKI_RUNTIME_KEY) !== undefined);
    if (!reference) {
      const why = `no ${LOKI_REFERENCE}: Loki's configuration is not judged (${REFRESH})`;
      for (const r of rendered) ctx.notJudged({ resource: r, path: lokiConfigFile(r)!.path }, why);
      if (rendered.length === 0) for (const v of values) ctx.notJudged({ data: v.source, path: ['loki'] }, why);
      return;
    }
    const judged = new Set<string>();
    const flagged = new Set<string>();
    for (const resource of rendered) {
      const app = resource.rendered!.app;
      judged.add(app);
      const miss = renderedVersionMiss(ctx.resources, {
        app,
        chart: LOKI_CHART,
        image: LOKI_IMAGE,
        program: 'Loki',
        version: reference.version,
        refresh: REFRESH,
      });
      if (miss) {
        ctx.notJudged({ resource, path: lokiConfigFile(resource)!.path }, miss);
        continue;
      }
      const appValues = values.find((v) => v.appName === app);
      judgeRendered(ctx, resource, reference.type, appValues);
      if (reference.flags && !flagged.has(app)) judgeLokiFlags(ctx, { app, flags: reference.flags });
      flagged.add(app);
      for (const runtime of runtimes.filter((r) => r.rendered!.app === app)) judgeRuntime(ctx, runtime, reference.runtime, appValues);
    }
    for (const v of values.filter((x) => !judged.has(x.appName))) {
      const miss = pinnedVersionMiss(ctx.repo, { app: v.appName, chart: LOKI_CHART, chartVersion: reference.chartVersion, refresh: REFRESH });
      if (miss) ctx.notJudged({ data: v.source, path: ['loki'] }, miss);
      else {
        judgeValues(ctx, v, reference.type, reference.runtime);
        if (reference.flags) judgeValuesFlags(ctx, v, reference.flags);
      }
    }
  },
};
