/**
 * The addresses outside the cluster a program dials (`dials`): each a URL as the program reads it, `${NAME:-default}`
 * where a variable sets it and the program dials the default while the variable is unset or empty (the API's
 * BLOG_FEED_URL, whose feed /api/v1/blog fetches). Said of the image's own start (a container with no command and no
 * args) unless `command` or `args` name the program that dials it, as apiRequests names its programs. The egress
 * policies that select the pod must let each through (network-policy-external-egress); the program's own tests hold
 * the default to its code (portfolio-api/test/config-facts.test.ts).
 */
import { expandDefaults, isArgv, runsProgram, variablesRead } from '../apps/api-requests.ts';

export interface OutboundDial {
  /** The URL, `${NAME:-default}` for the variable that sets it. */
  url: string;
  /** The container's command that runs the dialling program; with args absent too, the image's own start. */
  command?: string[];
  args?: string[];
}

/** Whether a text, its variables read as their defaults, is an http(s) URL with a host. */
function isDialUrl(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  const read = expandDefaults(text, () => undefined);
  if (!('text' in read) || !URL.canParse(read.text)) return false;
  const url = new URL(read.text);
  return ['http:', 'https:'].includes(url.protocol) && url.hostname !== '';
}

export const DIALS_FIELD = {
  keys: ['url', 'command', 'args'],
  valid: (v: unknown): boolean =>
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((d: unknown) => {
      const { url, command, args } = (d ?? {}) as Record<string, unknown>;
      return isDialUrl(url) && isArgv(command) && isArgv(args);
    }),
  says: "dials lists {url, command?, args?}: an http(s) URL its program dials outside the cluster, `${NAME:-default}` for the variable that sets it and what it dials where that is unset, and the command or args that run the program (absent: the image's own start)",
};

/** Whether a container runs the program that dials: the one its facts name, else the image's own start (no command, no args). */
export const runsDialler = (dial: OutboundDial, container: { command?: unknown; args?: unknown }): boolean =>
  (dial.command ?? dial.args) ? runsProgram({ ...dial, requests: [] }, container) : container.command === undefined && container.args === undefined;

/** What a container dials: the URL with its variables read (`value` as for expandRequest), and the variables that set it; or the variable the gate cannot read. */
export function dialledUrl(
  dial: OutboundDial,
  value: (name: string) => string | undefined | null,
): { url: URL; set: string[] } | { unread: string } | undefined {
  const read = expandDefaults(dial.url, value);
  if ('unread' in read) return read;
  if (!URL.canParse(read.text)) return undefined;
  return { url: new URL(read.text), set: variablesRead(dial.url).filter((name) => value(name)) };
}
