/**
 * The Falco sensor, its rules source, its network policy and its forwarder, as the charts' values and renders give them (S1-S3).
 */
import { tuningFiles } from '../../model/falco/tuning.ts';
import type { ChartValues } from '../../model/helm/chart-values.ts';
import { dig, list, obj, objects } from '../../model/core/dig.ts';
import { toleratesControlPlane } from '../../model/core/workloads.ts';
import { eachChartValues, type ValuesFail } from '../../model/checks/kit.ts';
import { extraPlugins, pluginRefProblem, RULES_PLUGIN, renderedFalcoFile } from './plugins.ts';
import { keysOf } from '../../model/cluster/provided-keys.ts';
import { applicationsByName } from '../../model/argocd/argocd.ts';
import { writtenByExternalSecret } from '../../model/cluster/external-secrets.ts';
import { serviceAddresses } from '../../model/cluster/service-addresses.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';

/** The variable falcosidekick's chat (Slack) output reads its webhook from. */
const SLACK_URL_ENV = 'SLACK_WEBHOOKURL';

/** An http(s) URL whose host is a Service's in-cluster name (closure-service holds the Service and its port to what exists). */
function inClusterHttpUrl(url: unknown, ctx: CheckContext): boolean {
  if (typeof url !== 'string' || !/^https?:$/.test(URL.parse(url)?.protocol ?? '')) return false;
  const namespaces = new Set(ctx.resources.flatMap((r) => (r.kind === 'Namespace' ? [r.name] : r.namespace ? [r.namespace] : [])));
  return serviceAddresses(url, namespaces).length > 0;
}

const valuesCheck = (ctx: CheckContext, chart: string, body: (v: ChartValues, fail: ValuesFail) => void) =>
  eachChartValues(ctx, chart, 'security/README.md', body);

/** What mends each cause of falco-sensor, printed with its finding (the remediation lists them all). */
const SENSOR_FIX = {
  driver: 'set driver.kind: modern_ebpf',
  nodes: 'tolerate node-role.kubernetes.io/control-plane, and leave nodeSelector and affinity empty',
  plugins: `load only the ${RULES_PLUGIN.name} plugin (collectors.containerEngine on, pluginRef ${RULES_PLUGIN.ref}:<${RULES_PLUGIN.required} or later>, collectors.kubernetes off, nothing in falco.load_plugins or falco.plugins)`,
  output:
    "set falco.json_output: true and falco.http_output.enabled: true, with falco.http_output.url the forwarder's in-cluster address (http://<service>.<namespace>.svc:<port>/)",
  metrics: 'set metrics.enabled: true with metrics.interval: 15m',
} as const;

/** What mends each cause of falco-rules-source. */
const RULES_FIX = {
  falcoctl: 'enable falcoctl artifact install and follow, with refs ["falco-rules:5"], follow.every: 168h, and allowedTypes rulesfile and plugin alone',
  rulesFiles: 'mount the tuning ConfigMap into the sensor and list its file after /etc/falco/falco_rules.yaml in falco.rules_files',
} as const;

/** What mends each cause of falco-forwarder. */
const FORWARDER_FIX = {
  values: 'set replicaCount: 2, webui.enabled: false and config.slack.minimumpriority: notice, and no config.alertmanager.hostport',
  secret: `take the chat webhook from config.existingSecret, a Secret an ExternalSecret writes with the key ${SLACK_URL_ENV}, and commit no config.slack.webhookurl`,
} as const;

export const falcoChartChecks: PolicyCheck[] = [
  {
    id: 'falco-sensor',
    description:
      'The sensor: modern eBPF driver, on every node (control-plane tolerations match the cluster facts), syscalls as the only event source (no source plugin, no audit log; the container metadata plugin falco-rules 5 requires is the one plugin loaded, at a compatible version), JSON output posted to the forwarder at an in-cluster Service address, metrics every 15 min; judged on the rendered falco.yaml when the chart is rendered (S1, S5, A16).',
    invariants: ['S1', 'S5', 'A16'],
    remediation: Object.values(SENSOR_FIX).join('; '),
    reads: { kinds: ['Application'], charts: ['falco'], renders: true },
    exemptible: false,
    run(ctx) {
      valuesCheck(ctx, 'falco', ({ values }, fail) => {
        if (dig(values, ['driver', 'kind']) !== 'modern_ebpf')
          fail(['driver', 'kind'], `driver.kind is "${String(dig(values, ['driver', 'kind']))}", must be modern_ebpf`, SENSOR_FIX.driver);
        const facts = ctx.repo.facts;
        if (facts && facts.controlPlaneCount > 0 && !toleratesControlPlane(dig(values, ['tolerations'])))
          fail(
            ['tolerations'],
            `the sensor would run on ${facts.nodeCount - facts.controlPlaneCount} of ${facts.nodeCount} nodes: no toleration for the control-plane taint`,
            SENSOR_FIX.nodes,
          );
        for (const key of ['nodeSelector', 'affinity'] as const) {
          const v = dig(values, [key]);
          if (v && typeof v === 'object' && Object.keys(v).length)
            fail([key], `${key} restricts the sensor to some nodes; it must run on all ${facts?.nodeCount ?? ''} nodes`, SENSOR_FIX.nodes);
        }
        const loaded = extraPlugins(list(dig(values, ['falco', 'load_plugins'])) as unknown[]);
        if (loaded.length)
          fail(
            ['falco', 'load_plugins'],
            `falco.load_plugins loads ${loaded.join(', ')}: syscalls are the only event source, and ${RULES_PLUGIN.name} is the one plugin allowed`,
            SENSOR_FIX.plugins,
          );
        const configured = extraPlugins((objects(dig(values, ['falco', 'plugins'])) as { name?: unknown }[]).map((p) => p?.name));
        if (configured.length)
          fail(['falco', 'plugins'], `falco.plugins configures ${configured.join(', ')}: ${RULES_PLUGIN.name} is the one plugin allowed`, SENSOR_FIX.plugins);
        if (dig(values, ['collectors', 'kubernetes', 'enabled']) === true)
          fail(
            ['collectors', 'kubernetes', 'enabled'],
            `the Kubernetes metadata collector is a plugin (k8smeta); ${RULES_PLUGIN.name} is the one plugin allowed`,
            SENSOR_FIX.plugins,
          );
        if (dig(values, ['collectors', 'containerEngine', 'enabled']) === false)
          fail(
            ['collectors', 'containerEngine', 'enabled'],
            `falco-rules 5 requires the ${RULES_PLUGIN.name} plugin (required_plugin_versions: ${RULES_PLUGIN.name} ${RULES_PLUGIN.required}); without it the rules do not load`,
            SENSOR_FIX.plugins,
          );
        const ref = dig(values, ['collectors', 'containerEngine', 'pluginRef']);
        const refProblem = typeof ref === 'string' ? pluginRefProblem(ref) : undefined;
        if (refProblem) fail(['collectors', 'containerEngine', 'pluginRef'], refProblem, SENSOR_FIX.plugins);
        if (dig(values, ['falco', 'json_output']) !== true)
          fail(['falco', 'json_output'], 'falco.json_output must be true for the forwarder', SENSOR_FIX.output);
        if (dig(values, ['falco', 'http_output', 'enabled']) !== true)
          fail(['falco', 'http_output'], 'falco.http_output must send events to the forwarder', SENSOR_FIX.output);
        else if (!inClusterHttpUrl(dig(values, ['falco', 'http_output', 'url']), ctx))
          fail(
            ['falco', 'http_output', 'url'],
            `falco.http_output.url ${JSON.stringify(dig(values, ['falco', 'http_output', 'url']) ?? null)} is no in-cluster Service's HTTP address: Falco posts its events where no forwarder listens`,
            SENSOR_FIX.output,
          );
        // The chart's metrics block is what it writes into falco.yaml (falco.metricsConfiguration overrides falco.metrics).
        if (dig(values, ['metrics', 'enabled']) !== true || dig(values, ['metrics', 'interval']) !== '15m')
          fail(['metrics'], `sensor metrics must be enabled with interval 15m, found ${JSON.stringify(dig(values, ['metrics']) ?? null)}`, SENSOR_FIX.metrics);
      });
      // What will run: the falco.yaml the chart rendered, with whatever plugins its helpers added.
      const rendered = renderedFalcoFile(ctx.renders, 'falco.yaml');
      if (rendered) {
        const at = { resource: rendered.resource, path: ['data', rendered.key] };
        const loaded = (rendered.data.load_plugins ?? []) as unknown[];
        const extra = [...extraPlugins(loaded), ...extraPlugins(((rendered.data.plugins ?? []) as { name?: unknown }[]).map((p) => p?.name))];
        if (extra.length)
          ctx.fail(
            at,
            `the rendered falco.yaml loads or configures ${[...new Set(extra)].join(', ')}: ${RULES_PLUGIN.name} is the one plugin allowed`,
            SENSOR_FIX.plugins,
          );
        if (!loaded.includes(RULES_PLUGIN.name))
          ctx.fail(at, `the rendered falco.yaml does not load ${RULES_PLUGIN.name}, which falco-rules 5 requires`, SENSOR_FIX.plugins);
      }
    },
  },
  {
    id: 'falco-rules-source',
    description:
      'Rules come from falco-rules:5, installed and followed every 168h by falcoctl (which installs nothing else but the container plugin the rules require), plus the tuning ConfigMap loaded after them; judged on the rendered falcoctl.yaml when the chart is rendered (S3).',
    invariants: ['S3'],
    remediation: Object.values(RULES_FIX).join('; '),
    reads: { kinds: ['Application', 'ConfigMap'], charts: ['falco'], renders: true },
    exemptible: false,
    run(ctx) {
      valuesCheck(ctx, 'falco', ({ values }, failAt) => {
        const fail = (path: (string | number)[], message: string) => failAt(path, message, path[0] === 'falcoctl' ? RULES_FIX.falcoctl : RULES_FIX.rulesFiles);
        for (const phase of ['install', 'follow'] as const) {
          if (dig(values, ['falcoctl', 'artifact', phase, 'enabled']) !== true)
            fail(['falcoctl', 'artifact', phase], `falcoctl artifact ${phase} must be enabled`);
          const refs = dig(values, ['falcoctl', 'config', 'artifact', phase, 'refs']);
          if (JSON.stringify(refs) !== JSON.stringify(['falco-rules:5']))
            fail(['falcoctl', 'config', 'artifact', phase, 'refs'], `falcoctl ${phase} refs are ${JSON.stringify(refs ?? null)}, must be ["falco-rules:5"]`);
        }
        const allowed = list(dig(values, ['falcoctl', 'config', 'artifact', 'allowedTypes'])) as unknown[];
        const wider = allowed.map(String).filter((t) => t !== 'rulesfile' && t !== 'plugin');
        if (wider.length)
          fail(
            ['falcoctl', 'config', 'artifact', 'allowedTypes'],
            `falcoctl may install ${wider.join(', ')}: only rulesfile and the ${RULES_PLUGIN.name} plugin`,
          );
        if (dig(values, ['falcoctl', 'config', 'artifact', 'follow', 'every']) !== '168h')
          fail(
            ['falcoctl', 'config', 'artifact', 'follow', 'every'],
            `the rules are re-checked every ${String(dig(values, ['falcoctl', 'config', 'artifact', 'follow', 'every']))}, must be 168h`,
          );
        const rulesFiles = list(dig(values, ['falco', 'rules_files'])) as string[];
        const upstreamAt = rulesFiles.indexOf('/etc/falco/falco_rules.yaml');
        if (upstreamAt === -1) fail(['falco', 'rules_files'], 'falco.rules_files does not load /etc/falco/falco_rules.yaml');
        const mounts = objects(dig(values, ['mounts', 'volumeMounts'])) as { name?: string; mountPath?: string }[];
        const volumes = objects(dig(values, ['mounts', 'volumes'])) as { name?: string; configMap?: { name?: string } }[];
        const tunings = tuningFiles(ctx.repo);
        if (tunings.length === 0) fail(['falco', 'rules_files'], 'no tuning ConfigMap (label app.kubernetes.io/component: falco-tuning) exists');
        for (const tuning of tunings) {
          const cm = ctx.repo.resources.find((r) => r.file === tuning.file && r.kind === 'ConfigMap')!;
          const volume = volumes.find((v) => v.configMap?.name === cm.name);
          const mount = volume && mounts.find((m) => m.name === volume.name);
          // A mount path of another type is the schema's finding on the rendered pod: here it mounts nothing.
          const mountPath = typeof mount?.mountPath === 'string' ? mount.mountPath : undefined;
          const path = mountPath ? `${mountPath.replace(/\/$/, '')}/${tuning.key}` : undefined;
          const at = path ? rulesFiles.findIndex((f) => f === path || f === mountPath) : -1;
          if (!path) fail(['mounts'], `ConfigMap ${cm.name} is not mounted into the sensor`);
          else if (at === -1) fail(['falco', 'rules_files'], `${path} (ConfigMap ${cm.name}) is not in falco.rules_files`);
          else if (at < upstreamAt)
            fail(['falco', 'rules_files'], `${path} is loaded before the upstream rules; overrides need the upstream definitions first`);
        }
      });
      // What falcoctl will do: the falcoctl.yaml the chart rendered, with the plugin ref its helpers added.
      const rendered = renderedFalcoFile(ctx.renders, 'falcoctl.yaml');
      if (rendered) {
        const at = { resource: rendered.resource, path: ['data', rendered.key] };
        const failRendered = (message: string) => ctx.fail(at, message, RULES_FIX.falcoctl);
        const artifact = (rendered.data.artifact ?? {}) as { allowedTypes?: unknown[]; install?: { refs?: unknown[] }; follow?: { refs?: unknown[] } };
        const install = list(artifact.install?.refs).map(String);
        if (!install.includes('falco-rules:5')) failRendered(`the rendered falcoctl.yaml installs ${JSON.stringify(install)}, without falco-rules:5`);
        for (const ref of install.filter((r) => r !== 'falco-rules:5')) {
          const problem = pluginRefProblem(ref);
          if (problem) failRendered(`the rendered falcoctl.yaml installs ${problem}`);
        }
        const follow = list(artifact.follow?.refs).map(String);
        if (JSON.stringify(follow) !== JSON.stringify(['falco-rules:5']))
          failRendered(`the rendered falcoctl.yaml follows ${JSON.stringify(follow)}, must be ["falco-rules:5"]`);
        const wider = list(artifact.allowedTypes)
          .map(String)
          .filter((t) => t !== 'rulesfile' && t !== 'plugin');
        if (wider.length) failRendered(`the rendered falcoctl.yaml allows ${wider.join(', ')}`);
      }
    },
  },
  {
    id: 'falco-egress',
    description:
      "The sensor's network policies restrict its egress to 443 (the rules registry: by DNS name, toFQDNs, wherever the cluster's CNI enforces names), DNS and the forwarder, and nothing wider (S4).",
    invariants: ['S4'],
    remediation:
      'give the falco pods a NetworkPolicy for DNS and 2801/TCP to falcosidekick, and a CiliumNetworkPolicy allowing 443/TCP only to the hosts falcoctl pulls from (toFQDNs)',
    reads: { kinds: ['NetworkPolicy', 'CiliumNetworkPolicy'] },
    exemptible: false,
    run(ctx) {
      const policies = ctx.resources.filter(
        (r) => dig(r.object, ['spec', r.kind === 'NetworkPolicy' ? 'podSelector' : 'endpointSelector', 'matchLabels', 'app.kubernetes.io/name']) === 'falco',
      );
      if (policies.length === 0) {
        ctx.fail({ file: 'security/README.md' }, 'no network policy selects the falco pods (app.kubernetes.io/name: falco)');
        return;
      }
      const byName = ctx.repo.facts?.cni.fqdnEgress === true;
      const allowed = new Set(['53/UDP', '53/TCP', '53/ANY', '443/TCP', '2801/TCP']);
      let has443 = false;
      for (const policy of policies) {
        const cilium = policy.kind !== 'NetworkPolicy';
        const spec = (policy.object.spec ?? {}) as { policyTypes?: unknown; egress?: unknown };
        if (!cilium && !list(spec.policyTypes).includes('Egress'))
          ctx.fail({ resource: policy, path: ['spec', 'policyTypes'] }, 'the policy does not restrict egress');
        list(spec.egress).forEach((item, i) => {
          // A null rule is what Go decodes as an empty one.
          const rule = obj(item) as Record<string, any>;
          const ports: { port?: unknown; protocol?: string; at: (string | number)[] }[] = cilium
            ? list(rule.toPorts).flatMap((tp: any, k: number) => list(tp?.ports).map((p: any, j: number) => ({ ...p, at: ['toPorts', k, 'ports', j] })))
            : list(rule.ports).map((p: any, j: number) => ({ ...p, at: ['ports', j] }));
          if (ports.length === 0) {
            ctx.fail({ resource: policy, path: ['spec', 'egress', i] }, 'an egress rule without ports allows every port');
            return;
          }
          const named = list(rule.toFQDNs).length > 0;
          const peers = cilium ? [...list(rule.toEndpoints), ...list(rule.toFQDNs), ...list(rule.toEntities), ...list(rule.toCIDR)] : list(rule.to);
          for (const p of ports) {
            const key = `${String(p.port)}/${p.protocol ?? 'TCP'}`;
            if (!allowed.has(key)) ctx.fail({ resource: policy, path: ['spec', 'egress', i, ...p.at] }, `egress to ${key} is wider than the sensor needs`);
            else if (key === '443/TCP' && byName && !named)
              ctx.fail(
                { resource: policy, path: ['spec', 'egress', i, ...p.at] },
                "egress on 443 to addresses, where the cluster's CNI enforces DNS names: allow only the hosts falcoctl pulls from (toFQDNs)",
              );
            else if (key === '443/TCP') has443 = true;
          }
          if (ports.some((p) => String(p.port) !== '443') && peers.length === 0)
            ctx.fail({ resource: policy, path: ['spec', 'egress', i] }, 'DNS and forwarder egress must name their destination');
        });
      }
      if (!has443) ctx.fail({ resource: policies[0]!, path: ['spec'] }, 'no egress on 443: the sensor cannot pull falco-rules:5 and will not start');
    },
  },
  {
    id: 'falco-forwarder',
    description:
      'falcosidekick runs 2 replicas, posts to chat at priority notice and above (its output format one it writes: all, fields or text) with its webhook from an ExternalSecret (key SLACK_WEBHOOKURL, the variable it reads), its web UI off, and no Alertmanager output (S2, A16).',
    invariants: ['S2', 'A16'],
    remediation: Object.values(FORWARDER_FIX).join('; '),
    reads: { kinds: ['Application', 'ExternalSecret'], charts: ['falcosidekick'] },
    exemptible: false,
    run(ctx) {
      valuesCheck(ctx, 'falcosidekick', ({ appName, values }, failAt) => {
        const fail = (path: (string | number)[], message: string) =>
          failAt(path, message, ['webhookurl', 'existingSecret'].includes(String(path.at(-1))) ? FORWARDER_FIX.secret : FORWARDER_FIX.values);
        if (dig(values, ['replicaCount']) !== 2) fail(['replicaCount'], `replicaCount is ${String(dig(values, ['replicaCount']))}, must be 2`);
        if (dig(values, ['webui', 'enabled']) !== false) fail(['webui'], 'the web UI must be off');
        if (dig(values, ['config', 'slack', 'minimumpriority']) !== 'notice')
          fail(
            ['config', 'slack', 'minimumpriority'],
            `chat minimum priority is "${String(dig(values, ['config', 'slack', 'minimumpriority']))}", must be notice`,
          );
        // falcosidekick 2.32 (outputs/slack.go) writes fields for all or fields, text for all or text: nothing for another.
        const format = dig(values, ['config', 'slack', 'outputformat']) ?? '';
        if (!['all', 'fields', 'text', ''].includes(format as string))
          fail(['config', 'slack', 'outputformat'], `chat format ${JSON.stringify(format)} posts no event text nor fields`);
        if (dig(values, ['config', 'slack', 'webhookurl']))
          fail(['config', 'slack', 'webhookurl'], 'the webhook URL is committed; take it from config.existingSecret');
        const secret = dig(values, ['config', 'existingSecret']);
        if (typeof secret !== 'string' || !writtenByExternalSecret(ctx.repo, secret))
          fail(['config', 'existingSecret'], `config.existingSecret ${JSON.stringify(secret ?? null)} is not the target of any ExternalSecret`);
        else {
          // The chart hands the Secret to falcosidekick as its environment: the chat output reads SLACK_WEBHOOKURL, nothing else.
          const keys = keysOf(ctx, { kind: 'Secret', namespace: applicationsByName(ctx.repo).get(appName)?.destinationNamespace, name: secret });
          if (keys && !keys.has(SLACK_URL_ENV))
            fail(
              ['config', 'existingSecret'],
              `Secret ${secret} has no key ${SLACK_URL_ENV} (it has ${[...keys].sort().join(', ') || 'none'}): falcosidekick reads its chat webhook from that variable, so no event reaches chat`,
            );
        }
        if (dig(values, ['config', 'alertmanager', 'hostport'])) fail(['config', 'alertmanager', 'hostport'], 'sensor events must bypass Alertmanager');
      });
    },
  },
];
