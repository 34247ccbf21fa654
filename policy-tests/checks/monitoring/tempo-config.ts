/**
 * monitoring-tempo-config: Tempo loads the configuration the repository gives it. Tempo reads its file with yaml.v2's
 * `UnmarshalStrict` and exits at start on a key its struct has no field for: no trace is stored, and the ingress
 * proxy's OTLP pushes fail (A3). The fields are the reference the repository keeps (model/tempo/config.ts); a key the
 * manifest's struct lacks but some struct of Tempo's has is said not judged, and types are not judged.
 *
 * Judged on the tempo.yaml the chart renders, each refusal on the values line that wrote it where the values did;
 * offline on the blocks the chart's `config` template writes from the values as they are.
 */
import type { Path } from '../../model/core/positions.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { parseRenderedFile, pinnedVersionMiss, placeInValues, renderedVersionMiss } from '../../model/helm/chart-output.ts';
import { dig } from '../../model/core/dig.ts';
import { receiverRefusals, silentReceivers } from '../../model/tempo/receivers.ts';
import { judgeTempoFlags, judgeValuesTempoFlags } from './tempo-flags.ts';
import { TEMPO_CHART, TEMPO_REFERENCE, TEMPO_VALUES_BLOCKS, tempoConfigFile, tempoKeys, tempoReference, type TempoVerdict } from '../../model/tempo/config.ts';

/** Where Tempo's file holds the receivers its distributor hands the OpenTelemetry collector (model/tempo/receivers.ts). */
const RECEIVERS: Path = ['distributor', 'receivers'];

const CONSEQUENCE = 'Tempo refuses its configuration and exits at start: no trace is stored, and every OTLP push to it fails';
const REFRESH = 'npm run tempo:reference -- --from <clone of grafana/tempo> --ref v<the chart appVersion> --chart-version <the chart version>';
const TAKEN = 'a field the manifest does not list here but some struct of Tempo has: whether this one has it is not judged';

/** The values' places of a path of the rendered file: the block the chart's template writes it from, if any. */
function writtenFrom(path: Path): { roots: readonly Path[]; rest: Path } {
  const block = TEMPO_VALUES_BLOCKS.find((b) => b.file.every((k, n) => path[n] === k));
  return block ? { roots: [block.values], rest: path.slice(block.file.length) } : { roots: [], rest: path };
}

function report(ctx: CheckContext, verdict: TempoVerdict, place: (path: Path) => Parameters<CheckContext['fail']>[0], name: string): void {
  for (const r of verdict.refused) ctx.fail(place(r.path), `${name} at ${r.path.join('.')}: ${r.message}: ${CONSEQUENCE}`);
  for (const path of verdict.taken) ctx.notJudged(place(path), `${name} at ${path.join('.')}: ${TAKEN}`);
}

export const tempoConfigCheck: PolicyCheck = {
  id: 'monitoring-tempo-config',
  description:
    "Tempo loads the configuration the repository gives it: every key one of its config structs has, as Tempo's manifest, its root struct and its source's field names list them at the version the chart runs, and receivers its distributor makes (otlp, jaeger, zipkin, kafka), the OTLP and Jaeger ones with protocols they speak, the OTLP one's grpc and http servers with keys their structs have (the collector's v0.150.0); otherwise Tempo exits at start and no trace is stored. An OTLP or Jaeger receiver left with no protocol is not refused (Tempo does not run the collector check that would) but starts no server, and fails too. Judged on the rendered tempo.yaml, offline on the blocks the values write into it; field types are not judged. And Tempo takes its command line (the chart's -config.file and -mem-ballast-size-mbs, then the values' tempo.extraArgs, each -key=value as Helm prints it): every flag one its flag set holds (main's, and what its configuration registers by a whole name, as the reference lists them from its source), each value of the type its flag reads, and no -help, -version or -config.verify, each of which stops Tempo before it serves; a flag under a module's prefix that the reference does not list, and a later -config.file, are said not judged (A3).",
  invariants: ['A3'],
  remediation: `correct the key the finding names in monitoring/tempo/values.yaml as Tempo documents its configuration; after a Tempo upgrade, refresh ${TEMPO_REFERENCE} (${REFRESH})`,
  reads: { kinds: ['ConfigMap', 'Application', 'StatefulSet', 'Deployment'], charts: [TEMPO_CHART], files: [TEMPO_REFERENCE], renders: true },
  exemptible: false,
  run(ctx) {
    const values = chartValues(ctx.repo, TEMPO_CHART);
    const reference = tempoReference(ctx.repo);
    if (reference && !reference.ok)
      return ctx.fail({ data: reference.data, path: [] }, `${TEMPO_REFERENCE} cannot be read (${reference.problem}): Tempo's configuration is not judged`);
    const rendered = ctx.resources.filter((r) => tempoConfigFile(r) !== undefined);
    const judged = new Set<string>();
    for (const resource of rendered) {
      const file = tempoConfigFile(resource)!;
      const app = resource.rendered!.app;
      judged.add(app);
      const v = values.find((x) => x.appName === app);
      const name = `${resource.kind} ${resource.name}'s ${file.path.at(-1)}`;
      if (!reference) {
        ctx.notJudged({ resource, path: file.path }, `no ${TEMPO_REFERENCE}: Tempo's configuration is not judged (${REFRESH})`);
        continue;
      }
      const miss = renderedVersionMiss(ctx.resources, {
        app,
        chart: TEMPO_CHART,
        image: 'grafana/tempo',
        program: 'Tempo',
        version: reference.version,
        refresh: REFRESH,
      });
      if (miss) {
        ctx.notJudged({ resource, path: file.path }, miss);
        continue;
      }
      const parsed = parseRenderedFile(file.text);
      if ('error' in parsed) {
        ctx.fail({ resource, path: file.path }, `${name} is no YAML Tempo reads (${parsed.error}): ${CONSEQUENCE}`);
        continue;
      }
      const place = placeInValues({ resource, path: file.path }, v, writtenFrom);
      report(ctx, tempoKeys(parsed.doc, [], reference), place, name);
      for (const r of receiverRefusals(dig(parsed.doc, RECEIVERS)))
        ctx.fail(place([...RECEIVERS, ...r.path]), `${name} at ${[...RECEIVERS, ...r.path].join('.')}: ${r.message}: ${CONSEQUENCE}`);
      // On the rendered file only: Helm merges an empty map in the values with the chart's own protocols.
      for (const r of silentReceivers(dig(parsed.doc, RECEIVERS)))
        ctx.fail(place([...RECEIVERS, ...r.path]), `${name} at ${[...RECEIVERS, ...r.path].join('.')}: ${r.message}`);
      if (reference.flags) judgeTempoFlags(ctx, { app, flags: reference.flags, values: v });
    }
    for (const v of values.filter((x) => !judged.has(x.appName))) {
      const miss = reference
        ? pinnedVersionMiss(ctx.repo, { app: v.appName, chart: TEMPO_CHART, chartVersion: reference.chartVersion, refresh: REFRESH })
        : `no ${TEMPO_REFERENCE}: Tempo's configuration is not judged (${REFRESH})`;
      if (miss !== undefined) ctx.notJudged({ data: v.source, path: ['tempo'] }, miss);
      if (miss !== undefined || !reference) continue;
      for (const block of TEMPO_VALUES_BLOCKS) {
        const value = dig(v.values, block.values);
        if (value === undefined) continue;
        const verdict = tempoKeys(value, block.file, reference);
        const shift = (path: Path) => ({ data: v.source, path: [...block.values, ...path.slice(block.file.length)] });
        report(ctx, verdict, shift, `the values' ${block.values.join('.')} (Tempo's ${block.file.join('.')})`);
      }
      for (const r of receiverRefusals(dig(v.values, ['tempo', 'receivers'])))
        ctx.fail(
          { data: v.source, path: ['tempo', 'receivers', ...r.path] },
          `the values' tempo.receivers.${r.path.join('.')} (Tempo's distributor.receivers): ${r.message}: ${CONSEQUENCE}`,
        );
      if (reference.flags) judgeValuesTempoFlags(ctx, v, reference.flags);
    }
  },
};
