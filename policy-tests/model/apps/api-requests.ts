/**
 * The requests an image's program sends to the API server as its pod's ServiceAccount, kept with the image's facts
 * (`apiRequests`): each program by the container's command and args that run it, each request as the program sends it
 * (`GET /api/v1/namespaces/backups/configmaps/backup-sentinel`). A request the program builds from its environment
 * writes the variable as `${NAME:-default}`, read from the container's own `env` (the default where it is not set).
 * The programs' own tests hold these lists to what they send (portfolio-api's status writer against its API fake, the
 * backup engines through the kubectl fake), so a program that starts sending another request fails its tests first.
 */
export interface ApiRequests {
  /** The container's `command` that runs the program, where it is named by it; absent: any. */
  command?: string[];
  /** The container's `args` that run it; absent: any. */
  args?: string[];
  /** `METHOD /path[?query]`, `${NAME:-default}` where a variable names a part. */
  requests: string[];
  /**
   * The data keys each ConfigMap or Secret it writes (PUT, PATCH, POST) holds, where it writes one: the files a pod
   * mounting that object finds (the status page's status.json). Absent: not said, and not judged.
   */
  dataKeys?: string[];
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

const isRequest = (text: unknown): boolean => typeof text === 'string' && new RegExp(`^(${METHODS.join('|')}) /\\S*$`).test(text.replace(VARIABLE, 'x'));
/** A command or args list of the facts: absent, or one or more texts. */
export const isArgv = (v: unknown): boolean => v === undefined || (Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string'));

export const API_REQUESTS_FIELD = {
  keys: ['command', 'args', 'requests', 'dataKeys'],
  valid: (v: unknown): boolean =>
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((p: unknown) => {
      const { command, args, requests, dataKeys } = (p ?? {}) as Record<string, unknown>;
      const keysValid = dataKeys === undefined || (Array.isArray(dataKeys) && dataKeys.every((k) => typeof k === 'string' && k !== ''));
      return (
        isArgv(command) &&
        isArgv(args) &&
        (command ?? args) !== undefined &&
        Array.isArray(requests) &&
        requests.length > 0 &&
        requests.every(isRequest) &&
        keysValid
      );
    }),
  says: 'apiRequests lists {command?, args?, requests, dataKeys?}: the container command or args (or both) that run a program, each request it sends the API server as `METHOD /path`, `${NAME:-default}` for a part read from a variable, and the data keys of the ConfigMaps or Secrets it writes',
};

/** What a client-go informer (or Prometheus' discovery) asks of one collection: a list, then a watch. */
export const informerRequests = (path: string): string[] => [`GET ${path}`, `GET ${path}?watch=true`];

/** A request written without variables, as its method and URL. */
export const literalRequest = (text: string): ExpandedRequest => expandRequest(text, () => undefined);

/** Whether a container runs the program: its command and args, where the facts name them, are those. */
export function runsProgram(program: ApiRequests, container: { command?: unknown; args?: unknown }): boolean {
  const same = (want: string[] | undefined, got: unknown) => want === undefined || JSON.stringify(want) === JSON.stringify(got);
  return same(program.command, container.command) && same(program.args, container.args);
}

/** A request with its variables read: the method and the URL, or the variable it could not read. */
export type ExpandedRequest = { method: string; url: string } | { unread: string };

/**
 * One request as the container sends it: each `${NAME:-default}` the variable's text (`value(NAME)`, undefined where
 * the container does not set it, null where it sets it from somewhere the gate does not read), the default where it
 * is unset or empty.
 */
export function expandRequest(text: string, value: (name: string) => string | undefined | null): ExpandedRequest {
  const expanded = expandDefaults(text, value);
  if ('unread' in expanded) return expanded;
  const [method, url] = expanded.text.split(' ') as [string, string];
  return { method, url };
}

/** A text with each `${NAME:-default}` read as the shell reads it (`value` as for expandRequest), or the first variable it could not read. */
export function expandDefaults(text: string, value: (name: string) => string | undefined | null): { text: string } | { unread: string } {
  let unread: string | undefined;
  const expanded = text.replace(VARIABLE, (_all, name: string, fallback: string | undefined) => {
    const v = value(name);
    if (v === null) unread ??= name;
    // As the shell's `:-`, an empty value takes the default too.
    return v || (fallback ?? '');
  });
  return unread !== undefined ? { unread } : { text: expanded };
}

/** The variables a text reads as `${NAME:-default}`, in order. */
export const variablesRead = (text: string): string[] => [...text.matchAll(VARIABLE)].map((m) => m[1]!);
