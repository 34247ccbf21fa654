/**
 * monitoring-blackbox-config: the blackbox exporter loads the configuration the repository gives it. v0.28.0 decodes
 * its blackbox.yaml strictly (yaml.v3 with KnownFields) and checks each probe's settings
 * (model/blackbox/config.ts); at start it exits on any refusal, and on a reload it keeps its old modules. Either way
 * the change never reaches the probes, and at start none runs: every Probe's scrape fails, probe_success is never
 * written, and InternetDown and the site alerts never fire. A module whose prober the exporter has none of is loaded,
 * and every probe of it is answered 400 "Unknown prober".
 *
 * Judged where the chart is rendered on the blackbox.yaml it renders (the values' config over the chart's defaults),
 * each refusal placed on the line of the values that wrote it where they did; offline on the values' config alone.
 */
import type { Path } from '../../model/core/positions.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { owningApplication } from '../../model/argocd/argocd.ts';
import { blackboxConfigProblems, deadStatusCodes, sslDeadModules, unknownProbers } from '../../model/blackbox/config.ts';
import { BLACKBOX_CHART, blackboxConfig } from '../../model/blackbox/exporter.ts';
import { isMap } from '../../model/core/dig.ts';
import { deepestWritten } from '../../model/helm/chart-output.ts';

const CONSEQUENCE =
  'the exporter refuses its configuration: at start it exits, so every Probe through it fails and probe_success is never written; on a reload it keeps its old modules';

interface Refusal {
  path: Path;
  message: string;
}

/** Every refusal of a configuration, the unknown probers among them. */
function refusals(config: unknown): Refusal[] {
  return [
    ...blackboxConfigProblems(config).map((p) => ({ path: p.path, message: `${p.message}: ${CONSEQUENCE}` })),
    ...unknownProbers(config).map(({ module, prober }) => ({
      path: ['modules', module, 'prober'],
      message: `module ${module} has ${prober ? `prober ${prober}` : 'no prober'}, which the exporter has no function for (http, tcp, icmp, dns, grpc, unix): every probe of it is answered 400 "Unknown prober"`,
    })),
    ...deadStatusCodes(config).map(({ module, index, code, all }) => ({
      path: ['modules', module, 'http', 'valid_status_codes', index],
      message: `module ${module} accepts status ${code}, which no HTTP response has (Go's client reads three digits; a null entry is 0)${all ? ': no status it accepts can come, so every probe of it fails and probe_success is 0' : ': the entry matches nothing'}`,
    })),
    ...sslDeadModules(config).map((module) => ({
      path: ['modules', module, 'http', 'fail_if_ssl'],
      message: `module ${module} fails a probe whose final request is over TLS (fail_if_ssl) and one whose final request is not (fail_if_not_ssl): every probe of it fails and probe_success is 0`,
    })),
  ];
}

function judgeRendered(ctx: CheckContext, resource: Resource, values: ChartValues | undefined): void {
  const config = blackboxConfig(resource)!;
  if ('error' in config.parsed) {
    ctx.fail({ resource, path: config.path }, `${resource.kind} ${resource.name}'s blackbox.yaml is no YAML (${config.parsed.error}): ${CONSEQUENCE}`);
    return;
  }
  const parsed = config.parsed.doc;
  for (const r of refusals(parsed)) {
    const written = values !== undefined && isMap(values.values.config) ? deepestWritten(values.values, [['config']], r.path)?.path : undefined;
    const where = written && values ? { data: values.source, path: written } : { resource, path: config.path };
    ctx.fail(where, `${resource.kind} ${resource.name}'s blackbox.yaml at ${r.path.join('.')}: ${r.message}`);
  }
}

export const blackboxConfigCheck: PolicyCheck = {
  id: 'monitoring-blackbox-config',
  description:
    "The blackbox exporter loads the configuration the repository gives it (v0.28.0: every field one of its structs has, of the type it decodes, durations, regexps and CEL programs that compile, one way to authenticate, a DNS module with its query name, HTTP versions enable_http3 allows...), and each module names a prober it has and accepts only statuses a response can have (100 to 999): it otherwise exits at start, so every Probe fails and probe_success is never written, answers each probe of a module without a prober with 400, or fails every probe of a module whose valid_status_codes no response matches, or that sets both fail_if_ssl and fail_if_not_ssl; judged on the rendered blackbox.yaml, offline on the values' config (A4).",
  invariants: ['A4'],
  remediation:
    'correct the field the finding names in monitoring/blackbox-exporter/values.yaml (config.modules), as the blackbox exporter documents its configuration',
  reads: { kinds: ['ConfigMap', 'Secret', 'Application'], charts: [BLACKBOX_CHART], renders: true },
  exemptible: false,
  run(ctx) {
    const values = chartValues(ctx.repo, BLACKBOX_CHART);
    const rendered = ctx.resources.filter((r) => (r.kind === 'ConfigMap' || r.kind === 'Secret') && blackboxConfig(r) !== undefined);
    const judged = new Set<string>();
    for (const resource of rendered) {
      const app = owningApplication(ctx.repo, resource)?.name;
      if (app) judged.add(app);
      judgeRendered(
        ctx,
        resource,
        values.find((v) => v.appName === app),
      );
    }
    // A chart not rendered (offline): its values' config as the file, which the chart's defaults then only add to.
    for (const v of values.filter((x) => !judged.has(x.appName) && isMap(x.values.config)))
      for (const r of refusals(v.values.config))
        ctx.fail({ data: v.source, path: ['config', ...r.path] }, `the values' config of ${BLACKBOX_CHART} at ${r.path.join('.')}: ${r.message}`);
  },
};
