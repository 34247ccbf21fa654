/**
 * media-exporter-starts: every exporter sidecar of a media app starts and reads the app beside it
 * (model/apps/sidecar-exporters.ts: exportarr v2.2.0 and the qBittorrent exporter 1.3.0, each as its program reads
 * its container). exportarr's first argument names the API it reads (a subcommand it has); each program's settings
 * are ones it takes; it listens on a port its container declares (the port its ServiceMonitor and readiness probe
 * use); and an address on the pod itself names a port the container running that app declares. Otherwise it exits
 * and restarts, or reads another app's API (every query 404), or answers on a port nothing scrapes: the metrics of
 * A8 are gone, and the pod, whose readiness waits on the exporter's port, may never be ready. Each program's
 * variables are its env and the keys of the Secrets and ConfigMaps its envFrom names; a setting found unset where a
 * source whose keys are unknown may set it is said not judged.
 */
import type { Path } from '../../model/core/positions.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { containersOf, imageParts, podSpecOf } from '../../model/core/workloads.ts';
import { scalarText } from '../../model/core/text.ts';
import { objects } from '../../model/core/dig.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment, type GivenVariable, expandedWord } from '../../model/cluster/environment.ts';
import { exporterReading, type SettingPlace } from '../../model/apps/sidecar-exporters.ts';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const declaredPorts = (container: Readonly<Record<string, unknown>>): number[] =>
  objects(container.ports)
    .map((p) => Number(p.containerPort))
    .filter(Number.isInteger);

/** The app an image runs, by its last path segment (`lscr.io/linuxserver/sonarr` runs sonarr). */
const imageApp = (image: string): string => imageParts(image).name.split('/').at(-1) ?? '';

/**
 * The line of a setting: its env var's value (or the envFrom entry whose Secret or ConfigMap sets it), its argument,
 * or the container's env where it is the default.
 */
const placed = (at: Path, entries: readonly GivenVariable[], place: SettingPlace): Path => {
  if (!place) return [...at, 'env'];
  if (!('env' in place)) return [...at, 'args', place.arg];
  return [...at, ...givenVariablePath(entries[place.env]!, 'value')];
};

export const exporterStartsCheck: PolicyCheck = {
  id: 'media-exporter-starts',
  description:
    "Every exporter sidecar of a media app starts and reads the app beside it: exportarr v2.2.0 with a subcommand it has and settings its checks take (a port, an interface IP, a log level and format, a URL and an API key or the app's config.xml) and an app URL its HTTP client speaks (http or https), the qBittorrent exporter 1.3.0 with its host and port and an int EXPORTER_PORT; each listening on a port its container declares, and reading the pod on a port of the container running that app (A8).",
  invariants: ['A8'],
  remediation:
    "give exportarr the app's name as its first argument (sonarr, radarr, prowlarr, bazarr...); set the exporter's listening port (PORT, EXPORTER_PORT) to its container's metrics port, and the app's address to http://localhost:<the app container's port>",
  reads: { kinds: withKeyProviders('Deployment', 'StatefulSet', 'DaemonSet') },
  exemptible: false,
  run(ctx) {
    for (const w of ctx.resources) {
      const pod = podSpecOf(w);
      if (!pod) continue;
      const containers = containersOf(pod).filter((c) => !c.init);
      for (const { container, at, name } of containers) {
        // Its variables as the kubelet sets them: the keys of the Secrets and ConfigMaps its envFrom names, its env over them.
        const environment = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, w), container);
        const { entries, unread } = environment;
        // Its args as the kubelet runs them: each $(NAME) expanded by those variables.
        const expand = (word: string) => expandedWord(environment, word);
        const reading = exporterReading({ ...container, env: entries }, scalarText(container.image ?? ''), expand);
        if (reading === 'own-command') {
          ctx.notJudged({ resource: w, path: [...at, 'command'] }, `container ${name} runs its own command: what its exporter reads of it is not judged`);
          continue;
        }
        if (!reading) continue;
        if ('problem' in reading.app) ctx.fail({ resource: w, path: [...at, 'args'] }, `container ${name}: ${reading.app.problem}`);
        // A setting found unset, or at its default, may be one an envFrom source whose keys are unknown sets.
        const judge = (place: SettingPlace, message: string) =>
          !place && unread.length > 0
            ? ctx.notJudged(
                { resource: w, path: [...at, 'envFrom', unread[0]!.source] },
                `container ${name}: ${message}, unless an envFrom source whose keys the repository does not say sets it: not judged`,
              )
            : ctx.fail({ resource: w, path: placed(at, entries, place) }, `container ${name}: ${message}`);
        for (const p of reading.problems) judge(p.place, p.message);
        const own = declaredPorts(container);
        const { port, place, byDefault } = reading.listens;
        if (own.length > 0 && Number.isInteger(port) && !own.includes(port))
          judge(
            place,
            `${reading.program} listens on ${port}${byDefault ? ' (its default: the port is not set)' : ''}, a port the container does not declare (${own.join(', ')}): what scrapes or probes it reaches nothing`,
          );
        const target = reading.target;
        if (!target || !('name' in reading.app) || !LOCAL_HOSTS.has(target.host)) continue;
        const app = reading.app.name;
        const runs = containers.filter((c) => c.container !== container && imageApp(scalarText(c.container.image ?? '')) === app);
        if (runs.length === 0)
          ctx.fail(
            { resource: w, path: placed(at, entries, target.place) },
            `container ${name}: ${reading.program} reads ${app}'s API at ${target.host}:${target.port}, and no container of the pod runs ${app}`,
          );
        else if (!runs.some((c) => declaredPorts(c.container).includes(target.port)))
          ctx.fail(
            { resource: w, path: placed(at, entries, target.place) },
            `container ${name}: ${reading.program} reads ${app} at ${target.host}:${target.port}, a port ${runs.map((c) => c.name).join(', ')} does not declare (${runs.flatMap((c) => declaredPorts(c.container)).join(', ') || 'none'}): every scrape of it fails`,
          );
      }
    }
  },
};
