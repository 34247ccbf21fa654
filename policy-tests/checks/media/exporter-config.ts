/**
 * media-exporter-starts: every exportarr sidecar starts and reads the app beside it (model/apps/exportarr.ts). Its
 * first argument names the API it reads (a subcommand it has), its settings are ones its checks take, it listens on
 * a port its container declares (the port its ServiceMonitor and readiness probe use), and a URL to the pod itself
 * names a port the container running that app declares. Otherwise it exits and restarts, or reads another app's API
 * (every query 404), or answers on a port nothing scrapes; the metrics of A8 are gone and the pod may never be ready.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { containersOf, imageParts, podSpecOf } from '../../model/core/workloads.ts';
import { scalarText } from '../../model/core/text.ts';
import { objects } from '../../model/core/dig.ts';
import { EXPORTARR_IMAGE, exportarrPort, exportarrSettingProblems, exportarrSettings, exportarrTarget } from '../../model/apps/exportarr.ts';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const declaredPorts = (container: Readonly<Record<string, unknown>>): number[] =>
  objects(container.ports)
    .map((p) => Number(p.containerPort))
    .filter(Number.isInteger);

/** The app an image runs, by its last path segment (`lscr.io/linuxserver/sonarr` runs sonarr). */
const imageApp = (image: string): string => imageParts(image).name.split('/').at(-1) ?? '';

export const exporterStartsCheck: PolicyCheck = {
  id: 'media-exporter-starts',
  description:
    "Every exportarr sidecar starts and reads the app beside it: a subcommand exportarr v2.2.0 has, settings its checks take (a port, an interface IP, a log level and format, a URL and an API key or the app's config.xml), a listening port its container declares, and a URL to the pod that names a port of the container running that app (A8).",
  invariants: ['A8'],
  remediation:
    "give exportarr the app's name as its first argument (sonarr, radarr, prowlarr, bazarr...), PORT the container's metrics port, and URL http://localhost:<the app container's port>",
  reads: { kinds: ['Deployment', 'StatefulSet', 'DaemonSet'] },
  exemptible: false,
  run(ctx) {
    for (const w of ctx.resources) {
      const pod = podSpecOf(w);
      if (!pod) continue;
      const containers = containersOf(pod).filter((c) => !c.init);
      for (const { container, at, name } of containers) {
        if (!EXPORTARR_IMAGE.test(scalarText(container.image ?? ''))) continue;
        const s = exportarrSettings(container);
        if (!s) {
          ctx.notJudged({ resource: w, path: [...at, 'command'] }, `container ${name} runs its own command: what exportarr reads of it is not judged`);
          continue;
        }
        const where = (key: string) => {
          const set = s.settings.get(key);
          return set ? (set.from === 'env' ? [...at, 'env', set.index, 'value'] : [...at, 'args', set.index]) : [...at, 'env'];
        };
        if ('problem' in s.app) ctx.fail({ resource: w, path: [...at, 'args'] }, `container ${name}: ${s.app.problem}`);
        for (const p of exportarrSettingProblems(s))
          ctx.fail({ resource: w, path: where(p.key) }, `container ${name}: ${p.message}: exportarr exits 1 at start`);
        const port = exportarrPort(s);
        const own = declaredPorts(container);
        if (own.length > 0 && !own.includes(port))
          ctx.fail(
            { resource: w, path: where('port') },
            `container ${name}: exportarr listens on ${port}${s.settings.has('port') ? '' : ' (its default, PORT unset)'}, a port the container does not declare (${own.join(', ')}): what scrapes or probes it reaches nothing`,
          );
        const target = exportarrTarget(s);
        if (!target || !('name' in s.app) || !LOCAL_HOSTS.has(target.host)) continue;
        const app = s.app.name;
        const runs = containers.filter((c) => c.container !== container && imageApp(scalarText(c.container.image ?? '')) === app);
        if (runs.length === 0)
          ctx.fail(
            { resource: w, path: where('url') },
            `container ${name}: exportarr reads ${app}'s API at ${target.host}:${target.port}, and no container of the pod runs ${app}`,
          );
        else if (!runs.some((c) => declaredPorts(c.container).includes(target.port)))
          ctx.fail(
            { resource: w, path: where('url') },
            `container ${name}: exportarr reads ${app} at ${target.host}:${target.port}, a port ${runs.map((c) => c.name).join(', ')} does not declare (${runs.flatMap((c) => declaredPorts(c.container)).join(', ') || 'none'}): every scrape of it fails`,
          );
      }
    }
  },
};
