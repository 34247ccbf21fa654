/**
 * monitoring-probe-module: a Probe asks its blackbox exporter for a module the exporter has. The Prometheus operator
 * passes the Probe's module as the `module` parameter of each scrape (none where the Probe names none, and the
 * exporter then takes http_2xx); the exporter looks it up in its configuration's modules and answers one it does not
 * have with 400 "Unknown module" (blackbox_exporter, prober/handler.go). The scrape fails, probe_success is never
 * written, and an alert on it (InternetDown, a public site down) never fires.
 *
 * The exporter's modules are those of the blackbox.yaml its ConfigMap (or Secret) holds, which the chart renders from its values'
 * `config` merged over its own defaults. Offline (the chart not rendered) only the modules the repository's values
 * write are known: a module among them is found, any other is said not judged.
 */
import { dig, isMap, obj, str } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { namespaceOrDestination, owningApplication } from '../../model/argocd/argocd.ts';
import { opaqueNamespaces } from '../../model/cluster/providers.ts';
import { BLACKBOX_CHART, blackboxConfig } from '../../model/blackbox/exporter.ts';

const CHART = BLACKBOX_CHART;
/** The module the exporter takes where a scrape names none (prober/handler.go). */
const DEFAULT_MODULE = 'http_2xx';

/** The modules a rendered blackbox.yaml holds, or undefined where it is no YAML map of them. */
function modulesOf(configMap: Resource): Set<string> | undefined {
  const parsed = blackboxConfig(configMap)?.parsed;
  // A blackbox.yaml that is no YAML: the exporter does not start, which is monitoring-blackbox-config's to say.
  if (!parsed || !('doc' in parsed)) return undefined;
  const modules = dig(parsed.doc, ['modules']);
  // A module that is no map is one the exporter cannot load (it then loads no configuration at all): not had.
  return isMap(modules) ? new Set(Object.keys(modules).filter((name) => isMap(modules[name]))) : new Set();
}

/** `service.namespace` of a prober URL (`host[:port]`, the Service's cluster DNS name), the namespace the Probe's own where it names none. */
function proberService(probe: Resource, namespace: string): { name: string; namespace: string } | undefined {
  const host = str(dig(probe.object, ['spec', 'prober', 'url'])).split(':')[0] ?? '';
  const [name, ns] = host.split('.');
  return name ? { name, namespace: ns || namespace } : undefined;
}

interface Seen {
  services: readonly Resource[];
  configMaps: readonly Resource[];
  /** The modules the repository's values write. */
  written: ReadonlySet<string>;
  /** Namespaces a source that was not rendered deploys to: a Service there may be one the gate does not see. */
  opaque: ReadonlySet<string>;
}

function judge(ctx: CheckContext, probe: Resource, { services, configMaps, written, opaque }: Seen): void {
  const namespace = namespaceOrDestination(ctx.repo, probe) ?? '';
  const target = proberService(probe, namespace);
  if (!target) return;
  const named = str(dig(probe.object, ['spec', 'module']));
  const module = named || DEFAULT_MODULE;
  const where = { resource: probe, path: named ? ['spec', 'module'] : ['spec'] };
  const says = named ? `module ${module}` : `no module, so the exporter takes ${DEFAULT_MODULE},`;
  const service = services.find((s) => s.name === target.name && namespaceOrDestination(ctx.repo, s) === target.namespace);
  if (!service) {
    // The exporter's chart not rendered: only its values say which modules it has. Elsewhere a prober at no
    // Service of the repository is closure-service's to say, or an exporter outside the cluster.
    if (opaque.has(target.namespace) && !written.has(module))
      ctx.notJudged(
        where,
        `Probe ${probe.name} asks ${target.name} for ${says} which the repository's values of ${CHART} do not write: whether the chart's own defaults have it is known once the chart is rendered (npm run charts:pull)`,
      );
    return;
  }
  // The exporter's configuration: the ConfigMaps and Secrets with a blackbox.yaml that the Application of its Service applies beside it.
  const app = owningApplication(ctx.repo, service);
  const configs = configMaps
    .filter((c) => owningApplication(ctx.repo, c) === app && namespaceOrDestination(ctx.repo, c) === target.namespace)
    .flatMap((c) => modulesOf(c) ?? []);
  if (configs.length > 0) {
    if (configs.some((modules) => modules.has(module))) return;
    const known = [...new Set(configs.flatMap((m) => [...m]))].sort();
    ctx.fail(
      where,
      `Probe ${probe.name} asks ${service.name} for ${says} which its configuration does not have (${known.join(', ') || 'no module'}): the exporter answers 400 "Unknown module", and probe_success is never written`,
    );
  }
}

export const probeModuleCheck: PolicyCheck = {
  id: 'monitoring-probe-module',
  description: `Every blackbox Probe asks its exporter for a module the exporter has (the modules of the blackbox.yaml its chart renders from its values' config; a Probe naming none asks for ${DEFAULT_MODULE}): the exporter answers any other with 400 "Unknown module", the scrape fails, probe_success is never written, and the alerts on it never fire; offline, a module the repository's values do not write is said not judged (A4).`,
  invariants: ['A4'],
  remediation: `name a module of the exporter's config.modules (monitoring/blackbox-exporter/values.yaml), or add the module there`,
  reads: { kinds: ['Probe', 'Service', 'ConfigMap', 'Secret', 'Application'], charts: [CHART], renders: true },
  exemptible: false,
  run(ctx) {
    const probes = ctx.resources.filter((r) => r.kind === 'Probe' && r.apiVersion === 'monitoring.coreos.com/v1');
    if (probes.length === 0) return;
    const seen: Seen = {
      services: ctx.resources.filter((r) => r.kind === 'Service'),
      configMaps: ctx.resources.filter((r) => (r.kind === 'ConfigMap' || r.kind === 'Secret') && blackboxConfig(r) !== undefined),
      written: new Set(chartValues(ctx.repo, CHART).flatMap((v) => Object.keys(obj(dig(v.values, ['config', 'modules']))))),
      opaque: opaqueNamespaces(ctx.renders),
    };
    for (const probe of probes) judge(ctx, probe, seen);
  },
};
