/**
 * Go's net/url, as Kubernetes' url() library reads a URL: url.ParseRequestURI
 * (an absolute URI or an absolute path, no fragment split off), and the
 * accessors the library exposes (Hostname, Port, EscapedPath, Query). The
 * WHATWG parser a browser and Node use differs where it matters to a rule:
 * it refuses `https:://kubernetes.io/` (Go reads an opaque URI), lowercases
 * and IDNA-maps hosts, drops default ports and rewrites paths; Go does none
 * of that. Written from Go 1.24's net/url/url.go.
 */

export interface GoURL {
  scheme: string;
  opaque: string;
  user?: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
}

export class GoURLError extends Error {}

type Mode = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

const isHex = (c: string) => /^[0-9A-Fa-f]$/.test(c);
const isAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

/** url.go shouldEscape: whether a byte must be escaped in this part of a URL. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if (mode === 'host' || mode === 'zone') {
    if ('!$&\'()*+,;=:[]<>"'.includes(c)) return false;
  }
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    if (mode === 'pathSegment') return c === '/' || c === ';' || c === ',' || c === '?';
    if (mode === 'userPassword') return c === '@' || c === '/' || c === '?' || c === ':';
    if (mode === 'queryComponent') return true;
    if (mode === 'fragment') return false;
  }
  if (mode === 'fragment' && (c === '!' || c === '(' || c === ')' || c === '*')) return false;
  return true;
}

/** url.go unescape: %XX decoded (with the host rules on what may be escaped), `+` a space in a query component. */
function unescape(s: string, mode: Mode): string {
  const bytes: number[] = [];
  const utf8 = Buffer.from(s, 'utf8');
  for (let i = 0; i < utf8.length; i++) {
    const c = String.fromCharCode(utf8[i]!);
    if (c === '%') {
      const hex = String.fromCharCode(utf8[i + 1] ?? 0, utf8[i + 2] ?? 0);
      if (i + 2 >= utf8.length || !isHex(hex[0]!) || !isHex(hex[1]!)) throw new GoURLError(`invalid URL escape "${s.slice(i, i + 3)}"`);
      // In a host, only %25 (a zone's %) and escapes of bytes >= 0x80 are allowed.
      if (mode === 'host' && parseInt(hex[0]!, 16) < 8 && hex !== '25') throw new GoURLError(`invalid URL escape "%${hex}"`);
      const v = parseInt(hex, 16);
      if (mode === 'zone' && hex !== '25' && v !== 0x20 && (v >= 0x80 || shouldEscape(String.fromCharCode(v), 'host')))
        throw new GoURLError(`invalid URL escape "%${hex}"`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === '+' && mode === 'queryComponent') bytes.push(0x20);
    else {
      if ((mode === 'host' || mode === 'zone') && utf8[i]! < 0x80 && shouldEscape(c, mode)) throw new GoURLError(`invalid character "${c}" in host name`);
      bytes.push(utf8[i]!);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** url.go escape: each byte that must be escaped as %XX (upper case). */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && !shouldEscape(c, mode) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** getScheme: letters, then letters, digits, `+`, `-`, `.` up to a colon; anything else means no scheme. */
function splitScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new GoURLError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

const validOptionalPort = (port: string) => port === '' || /^:[0-9]*$/.test(port);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new GoURLError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port "${colonPort}" after host`);
    const zone = host.slice(0, close).indexOf('%25');
    if (zone >= 0) return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, close), 'zone') + unescape(host.slice(close), 'host');
  } else {
    const colon = host.lastIndexOf(':');
    if (colon !== -1 && !validOptionalPort(host.slice(colon))) throw new GoURLError(`invalid port "${host.slice(colon)}" after host`);
  }
  return unescape(host, 'host');
}

/** validUserinfo: RFC 3986's userinfo characters, and the percent signs of escapes. */
const validUserinfo = (s: string) => /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);

function parseAuthority(authority: string): { user?: string; host: string } {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return { host };
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) throw new GoURLError('net/url: invalid userinfo');
  return { user: unescape(userinfo, 'userPassword'), host };
}

/** url.ParseRequestURI: an absolute URI or an absolute path, nothing split off as a fragment; what url() accepts. */
export function parseRequestURI(raw: string): GoURL {
  return parse(raw, true);
}

/**
 * url.Parse: the fragment cut off first, a scheme-relative `//host` read as a host. Kubernetes' url() checks a URL
 * with ParseRequestURI and reads it with Parse (urls.go: ParseRequestURI "incorrectly parses URLs that contain a
 * fragment").
 */
export function parseURL(raw: string): GoURL {
  const hash = raw.indexOf('#');
  return parse(hash < 0 ? raw : raw.slice(0, hash), false);
}

function parse(raw: string, viaRequest: boolean): GoURL {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new GoURLError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new GoURLError('empty url');
  const url: GoURL = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '' };
  if (raw === '*') return { ...url, path: '*' };
  let [scheme, rest] = splitScheme(raw);
  url.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else if (rest.includes('?')) [rest, url.rawQuery] = [rest.slice(0, rest.indexOf('?')), rest.slice(rest.indexOf('?') + 1)];
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') return { ...url, opaque: rest };
    if (viaRequest) throw new GoURLError('invalid URI for request');
    // A colon in the first segment would read as a scheme.
    if (rest.split('/')[0]!.includes(':')) throw new GoURLError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    Object.assign(url, parseAuthority(authority));
  }
  url.path = unescape(rest, 'path');
  url.rawPath = escape(url.path, 'path') === rest ? '' : rest;
  return url;
}

/** URL.Hostname: the host without its port and without the brackets of an IPv6 literal. */
export function hostname(u: GoURL): string {
  return splitHostPort(u.host)[0];
}

/** URL.Port: the port, or ''. */
export function port(u: GoURL): string {
  return splitHostPort(u.host)[1];
}

function splitHostPort(hostPort: string): [string, string] {
  let [host, port] = [hostPort, ''];
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) [host, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** URL.EscapedPath: the raw path when it is a valid encoding of the path, else the path escaped. */
export function escapedPath(u: GoURL): string {
  if (u.rawPath !== '') {
    try {
      if (unescape(u.rawPath, 'path') === u.path && /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%[\]]*$/.test(u.rawPath)) return u.rawPath;
    } catch {
      // not a valid encoding: escape the path
    }
  }
  return u.path === '*' ? '*' : escape(u.path, 'path');
}

/** URL.Query: url.ParseQuery of the raw query, pairs that do not parse skipped, values by key in order. */
export function query(u: GoURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of u.rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    try {
      const key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent');
      const value = eq < 0 ? '' : unescape(pair.slice(eq + 1), 'queryComponent');
      out.set(key, [...(out.get(key) ?? []), value]);
    } catch {
      // Go's ParseQuery skips a pair with a bad escape and reports the first error, which url().getQuery() drops.
    }
  }
  return out;
}
