/**
 * Where an image's own program listens, as its facts say it (`listens`): each port read from a variable, the image's
 * default where the variable is unset, on the address another variable gives (its default where unset, and the
 * program's own where set empty). The kubelet's probes and a Service's traffic reach the pod's own address at a
 * container port: a program bound to loopback, or to a port no probe or Service names, answers neither, and two of
 * its listeners on one port stop it at start (EADDRINUSE). Said of the image's own command (its ENTRYPOINT and CMD): a
 * container that gives `command` or `args` runs another program.
 */
import { isIP } from 'node:net';

export type Listens = PortListens | { nodeInspector: string };

/** A listener of the program itself: its port and bind address, each read from a variable. */
export interface PortListens {
  /** The variable the port is read from; none where the program's port is fixed (`default` alone), or read with its address. */
  port?: string;
  /** The variable holding its `[host]:port` in one (Go's net.Listen address: an empty host is every address), in place of `port` and `address`. */
  listen?: string;
  /** The long option of the image's ENTRYPOINT program that takes its `[host]:port` (`--opt=value` or `--opt value`, the last one given). */
  option?: string;
  /** The option is a list: the program listens at each address given (kingpin's Strings), not the last alone. */
  every?: boolean;
  /** The port where the variable is unset (the image's ENV, else the program's default), or the fixed one. */
  default: number;
  /** The variable the bind address is read from, if any. */
  address?: string;
  /** The bind address where that variable is unset; `emptyAddress` where it is set empty (the program's own default). */
  addressDefault?: string;
  emptyAddress?: string;
  /** Older variables that hold the port alone, read before `listen` where set and not empty (on every address). */
  portAliases?: string[];
  /** A switch the listener runs under: off, it does not listen at all. */
  when?: ListenSwitch;
}

/**
 * A program's switch as a settings reader like gosettings reads it: the first of its older names (`aliases`), then its
 * own, that is set and not empty, trimmed and lowercased, is on where `on` lists it; `default` where none is set.
 */
export interface ListenSwitch {
  variable: string;
  aliases?: string[];
  on: string[];
  default?: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A TCP port a program can listen on: a whole number from 1 to 65535. */
export const isPort = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 65535;
const isAddress = (v: unknown): boolean => v === undefined || (typeof v === 'string' && (isIP(v) !== 0 || v === 'localhost'));

const isNames = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((n) => typeof n === 'string' && NAME.test(n));
const isSwitch = (v: unknown): boolean => {
  const { variable, aliases, on, default: fallback, ...rest } = (v ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    typeof variable === 'string' &&
    NAME.test(variable) &&
    (aliases === undefined || isNames(aliases)) &&
    Array.isArray(on) &&
    on.length > 0 &&
    on.every((w) => typeof w === 'string' && w === w.toLowerCase()) &&
    (fallback === undefined || typeof fallback === 'string')
  );
};

export const LISTENS_FIELD = {
  keys: ['port', 'listen', 'option', 'every', 'default', 'address', 'addressDefault', 'emptyAddress', 'portAliases', 'when', 'nodeInspector'],
  valid: (v: unknown): boolean =>
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((l: unknown) => {
      const {
        port,
        listen,
        option,
        every,
        default: fallback,
        address,
        addressDefault,
        emptyAddress,
        portAliases,
        when,
        nodeInspector,
      } = (l ?? {}) as Record<string, unknown>;
      if (nodeInspector !== undefined) return typeof nodeInspector === 'string' && NAME.test(nodeInspector) && Object.keys(l as object).length === 1;
      return (
        (port === undefined || (typeof port === 'string' && NAME.test(port))) &&
        [listen, option].filter((v) => v !== undefined).length <= 1 &&
        (listen === undefined || (typeof listen === 'string' && NAME.test(listen) && port === undefined && address === undefined)) &&
        (option === undefined ||
          (typeof option === 'string' && /^--[A-Za-z0-9][A-Za-z0-9._-]*$/.test(option) && port === undefined && address === undefined)) &&
        (every === undefined || (every === true && option !== undefined)) &&
        isPort(fallback) &&
        (address === undefined || (typeof address === 'string' && NAME.test(address))) &&
        isAddress(addressDefault) &&
        isAddress(emptyAddress) &&
        (portAliases === undefined || (isNames(portAliases) && listen !== undefined)) &&
        (when === undefined || isSwitch(when))
      );
    }),
  says: "listens lists {port? or listen? or option? (with every?), default, address?, addressDefault?, emptyAddress?}: the variable its program reads a port from (none: the port is fixed; or listen, the one it reads [host]:port from; or option, the long option of its ENTRYPOINT that takes it, every: true where it listens at each one given; with listen, portAliases: older variables holding the port alone, read first) and the port where it is unset, and the variable it reads its bind address from with the address where it is unset and where it is empty (an IP address or localhost), and when: {variable, aliases?, on, default?}, the switch it listens under (lowercased words that turn it on, its value where unset); or {nodeInspector}: the variable (NODE_OPTIONS) whose --inspect options start Node's inspector",
};

/** What a bind address reaches: every address of the pod, loopback alone, or one address the pod may not hold. */
export function bindReach(address: string): 'all' | 'loopback' | 'one' | 'unknown' {
  const text = address.replace(/^\[(.*)\]$/, '$1');
  if (text === '0.0.0.0' || text === '::' || text === '::0') return 'all';
  if (text === 'localhost' || text === '::1' || (isIP(text) === 4 && text.startsWith('127.'))) return 'loopback';
  return isIP(text) !== 0 ? 'one' : 'unknown';
}

/**
 * Each value a long option is given in a command's arguments (`--opt=value`, or `--opt value`), in order; null where an
 * argument is not text the gate reads.
 */
export function optionValues(args: readonly unknown[], option: string): string[] | null {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg !== 'string') return null;
    if (arg === '--') break;
    if (arg.startsWith(`${option}=`)) values.push(arg.slice(option.length + 1));
    else if (arg === option && typeof args[i + 1] === 'string') values.push(args[++i] as string);
  }
  return values;
}

/** The value a long option is given (the last one, as Go's flag parsers and argparse keep it), undefined where none is, null where an argument is not text. */
export function optionValue(args: readonly unknown[], option: string): string | undefined | null {
  const values = optionValues(args, option);
  return values === null ? null : values.at(-1);
}

/** A port variable's value as the program reads it (a whole number 1-65535), else undefined. */
export function portValue(text: string): number | undefined {
  const n = Number(text);
  return /^\s*\d+\s*$/.test(text) && isPort(n) ? n : undefined;
}

/** The words of NODE_OPTIONS as Node splits them: on spaces, a double-quoted run kept whole (a backslash escapes in it). */
function nodeOptionWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quoted = false;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted && ch === '\\' && i + 1 < text.length) word += text[++i];
    else if (ch === '"') [quoted, started] = [!quoted, true];
    else if (ch === ' ' && !quoted) {
      if (started) words.push(word);
      [word, started] = ['', false];
    } else [word, started] = [word + ch, true];
  }
  if (started) words.push(word);
  return words;
}

/** `[host:]port`, or a host alone, as Node's inspector reads an option's value (src/node_options.cc, ParseHostPort). */
function hostPort(value: string, into: { host: string; port: number }): void {
  if (/^\d+$/.test(value)) into.port = Number(value);
  else {
    const colon = value.lastIndexOf(':');
    if (colon > 0 && /^\d+$/.test(value.slice(colon + 1)))
      [into.host, into.port] = [value.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), Number(value.slice(colon + 1))];
    else into.host = value.replace(/^\[(.*)\]$/, '$1');
  }
}

/**
 * Where Node's inspector listens for a NODE_OPTIONS value: started by --inspect, --inspect-brk or --inspect-wait (each
 * with an optional =[host:]port), on --inspect-port's address otherwise given, 127.0.0.1:9229 by default; undefined
 * where it is not started.
 */
export function nodeInspector(text: string): { host: string; port: number } | undefined {
  const at = { host: '127.0.0.1', port: 9229 };
  let on = false;
  for (const word of nodeOptionWords(text)) {
    const [name, value] = word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    if (name === '--inspect' || name === '--inspect-brk' || name === '--inspect-wait') on = true;
    else if (name !== '--inspect-port' && name !== '--debug-port') continue;
    if (value !== undefined) hostPort(value, at);
  }
  return on ? at : undefined;
}
