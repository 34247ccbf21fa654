/**
 * A container's httpGet probes against the paths its image's program answers (model/programs/http-paths.ts): a path
 * it does not serve answers 404 and one behind a login 401, so the probe fails every time; a liveness probe of a path
 * that answers only once the app is ready kills a slow start; a path that polls what an exporter watches fails
 * whenever that is slow. Where the facts are of one of the program's servers, only the probes of its port are held
 * to them, and where a file the container may hold says other paths, none is.
 */
import { dig, objects, str } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { listeningPort, mountHolds, type PathsServer } from '../../model/programs/http-paths.ts';
import { httpProbes, probedPort, textOf, type Held } from './variables.ts';

/**
 * The port of the server the path facts are of (its listening address as the container sets it, else the facts'
 * default), or why the probes cannot be held to them; undefined where the facts are of every port.
 */
function factsPort({ c, variable }: Held, server: PathsServer | undefined): { port: number } | { unread: string } | undefined {
  if (!server) return undefined;
  const address = variable(server.address);
  if (address === 'held' || address === 'maybe') return { unread: `its listening address is read from a value the gate does not read (${server.address})` };
  const port = textOf(address) ? listeningPort(textOf(address)!) : server.default;
  if (port === undefined) return { unread: `${server.address} is no [host]:port the program listens on` };
  if (!server.replacedBy) return { port };
  const named = variable(server.replacedBy.variable);
  if (named === 'held' || named === 'maybe')
    return { unread: `the file that may say other paths is named by a value the gate does not read (${server.replacedBy.variable})` };
  const file = textOf(named) || server.replacedBy.default;
  const mount = objects(c.container.volumeMounts).find((m) => mountHolds(str(m.mountPath), file));
  return mount ? { unread: `the volume mounted at ${str(mount.mountPath)} may hold ${file}, which says other paths where it exists` } : { port };
}

export function probePathNeed(held: Held): void {
  const { ctx, resource, c, image, need } = held;
  const probes = [...httpProbes(c)];
  const server = factsPort(held, need.pathsServer);
  if (server && 'unread' in server) {
    if (probes.length > 0)
      ctx.notJudged(
        { resource, path: probes[0]!.at },
        `container ${c.name} probes ${image} over HTTP, but ${server.unread}: whether its probes ask paths it answers is not judged (${need.source})`,
      );
    return;
  }
  for (const { probe, asked, at, port } of probes) {
    // Facts of one server hold only the probes of its port; another port is another server's, or none.
    if (server && probedPort(held, port) !== server.port) continue;
    if (need.servedPaths && !need.servedPaths.includes(asked))
      ctx.fail(
        { resource, path: at },
        `container ${c.name}'s ${probe} asks ${image} for ${asked}, which it does not serve (${need.source}): the answer is a 404, so the probe always fails${probe === 'readinessProbe' ? ', and the pod never joins its Service' : ', and the kubelet kills the container over and over'}: ask ${need.servedPaths.join(' or ')}`,
        `probe ${need.servedPaths.join(' or ')}`,
      );
    if (need.openPaths && !need.openPaths.includes(asked))
      ctx.fail(
        { resource, path: at },
        `container ${c.name}'s ${probe} asks ${image} for ${asked}, which it answers only after a login (${need.source}); the kubelet never logs in, so the probe always fails: ask ${need.openPaths.join(' or ')}`,
        `probe ${need.openPaths.join(' or ')}`,
      );
    if (probe === 'livenessProbe' && need.readyPaths?.includes(asked))
      ctx.fail(
        { resource, path: at },
        `container ${c.name}'s livenessProbe asks ${image} for ${asked}, which answers only once it is ready (${need.source}): a start that takes longer than the probe allows is killed and starts over, longer each time; leave readiness to the readinessProbe and ask a path the process answers as soon as it serves`,
        'probe a path the process answers as soon as it serves, and leave readiness to the readinessProbe',
      );
    if (need.pollPaths?.includes(asked)) {
      const timeout = dig(c.container, [probe, 'timeoutSeconds']) ?? 1;
      ctx.fail(
        { resource, path: at },
        `container ${c.name}'s ${probe} asks ${image} for ${asked}, and every request there polls what it watches (${need.source}): the probe polls it at each period, and fails whenever that answers slower than the probe's ${scalarText(timeout)} s timeout, ${probe === 'livenessProbe' ? 'so the kubelet restarts a healthy exporter' : 'so the pod leaves its Service'}: ask a path the process answers itself`,
        'probe a path the process answers itself',
      );
    }
  }
}
