/**
 * What an image's facts say of a container's calls to the API server: whether its program connects (the image calls,
 * or the binary the container starts trips Falco's rule for a connection), and whether its settings turn a call on.
 * Read by the programs' model (api-clients.ts) for the RBAC and egress judges of them.
 */
import { holdsBefore, type ImageNeeds } from '../repository/image-facts.ts';

/** Upstream Falco's rule for a connection to the API server: the facts list it (trips) for each binary that connects. */
const API_SERVER_TRIP = 'Contact K8S API Server From Container';

/**
 * Whether the facts say this container's program connects to the API server: its image does (callsApiServer), or trips
 * Falco's rule for it at its release by the binary the container starts: the one its command names (by the process
 * name Falco sees, its first 15 characters, or its path); without a command, an absolute path its args start with (an
 * ENTRYPOINT such as tini runs it: Argo CD's manifests start each component so); else the image's entrypoint. A
 * binary the facts do not list (a shell, a copy) is not held to connect: an image may hold binaries that never do
 * (Argo CD's repo server).
 */
export function containerConnects(needs: ImageNeeds | undefined, container: { image?: unknown; command?: unknown; args?: unknown }): boolean {
  if (!needs) return false;
  if (needs.callsApiServer === true) return true;
  const image = typeof container.image === 'string' ? container.image : '';
  const trips = (needs.trips ?? []).filter((t) => t.rule === API_SERVER_TRIP && holdsBefore(image, t.before) !== false);
  if (trips.length === 0) return false;
  const argv = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  const [args, command] = [argv(container.args), argv(container.command)];
  const started = command[0] ?? (args[0]?.startsWith('/') ? args[0] : undefined);
  if (started === undefined) return true;
  const processName = started.slice(started.lastIndexOf('/') + 1).slice(0, 15);
  return trips.some((t) => t.process === processName || t.exe === started);
}

/** What the facts say of a container's settings and the API server: it calls, it does not, or what could not be read. */
export type SettingsCall = { calls: true; because: string } | { calls: false } | { unread: string };

/**
 * Whether a container's settings make its program call the API server, by its image's `apiServerWhen` and its
 * variables (`variable`: undefined where unset, null where set from somewhere the gate does not read), or never
 * (`callsApiServer: false`, where the container runs the image's own binary: its `command` unset); undefined where
 * the facts say nothing of it. A container that gives its own command or args is not known by its settings: the
 * image's program may read them from a file it names.
 */
export function settingsCall(
  needs: ImageNeeds | undefined,
  container: { command?: unknown; args?: unknown },
  variable: (name: string) => string | undefined | null,
): SettingsCall | undefined {
  if (needs?.callsApiServer === false) return container.command === undefined ? { calls: false } : undefined;
  if (!needs?.apiServerWhen) return undefined;
  if (container.command !== undefined || container.args !== undefined)
    return { unread: "the facts say which settings make it call for the image's own start, and the container gives its own command or args" };
  let unread: string | undefined;
  for (const settings of needs.apiServerWhen) {
    const matches = Object.entries(settings).map(([name, values]) => {
      const value = variable(name);
      if (value === null) return name;
      return value !== undefined && value !== '' && values.some((v) => v === '*' || v === value);
    });
    if (matches.every((m) => m === true))
      return {
        calls: true,
        // A value the facts match by `*` may be anything (a path, a token): the finding says it is set, not what it is.
        because: Object.entries(settings)
          .map(([name, values]) => (values.includes('*') ? `${name} set` : `${name}=${variable(name)}`))
          .join(', '),
      };
    // A setting that cannot hold rules its entry out; otherwise a variable it could not read leaves it open.
    if (!matches.includes(false)) unread ??= matches.find((m): m is string => typeof m === 'string');
  }
  return unread === undefined
    ? { calls: false }
    : {
        unread: `the facts say it calls only with some settings, and ${unread} comes from an envFrom source or a reference whose value the gate does not read`,
      };
}
