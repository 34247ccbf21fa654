/**
 * The Go types Alertmanager v0.34.0's configuration decodes into, as yaml.v2 reads them: Prometheus's durations and
 * Go's, the URLs amcommoncfg checks, RE2 regexps, and label names as `model.LabelNameRE` takes them.
 */
import { durationMs, goParseDuration } from '../core/time.ts';
import { re2Problem } from '../core/re2.ts';
import type { GoType } from '../yaml/go-decode.ts';
import { isMap } from '../core/dig.ts';
import { matchersLineProblem } from './matchers.ts';

export const S: GoType = { go: 'string' };
export const B: GoType = { go: 'bool' };
export const strings: GoType = { go: 'list', of: S };
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** model.Duration: Prometheus's duration text (its UnmarshalYAML reads a string). */
export const DURATION: GoType = {
  go: 'parsed',
  type: 'model.Duration',
  parse: (s) => (Number.isNaN(durationMs(s)) ? `not a valid duration string: "${s}"` : undefined),
};
/** time.Duration under yaml.v2: a string time.ParseDuration reads, or an int of nanoseconds. */
export const GO_DURATION: GoType = {
  go: 'parsed',
  type: 'time.Duration',
  parse: (s) => (/^[-+]?[0-9]+$/.test(s) || goParseDuration(s).ok ? undefined : `time: invalid duration "${s}"`),
};
/**
 * amcommoncfg's parseURL (URL, SecretURL): an http or https URL with a host; `<secret>` is a SecretURL's hidden value.
 * The URL itself is never quoted: a webhook's or Slack's URL carries its token, and a finding is printed into the pull
 * request's report (Alertmanager prints `<secret>` for it too).
 */
function urlProblem(s: string): string | undefined {
  if (s === '<secret>') return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return 'parse <secret>: invalid URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `unsupported scheme "${u.protocol.slice(0, -1)}" for URL`;
  return u.host === '' ? 'host missing' : undefined;
}
export const URL_TYPE: GoType = { go: 'parsed', type: 'config.URL', parse: urlProblem };
/** A webhook's SecretTemplateURL: a template is read when a notification is sent; a URL is checked now. */
export const TEMPLATE_URL: GoType = { go: 'parsed', type: 'config.SecretTemplateURL', parse: (s) => (s.includes('{{') ? undefined : urlProblem(s)) };
export const REGEXPS: GoType = {
  go: 'map',
  of: { go: 'parsed', type: 'config.Regexp', parse: (s) => re2Problem(`^(?:${s})$`) },
};
/** config.Matchers: lines of matchers, each read by the classic parser (matchers.ts). */
export const MATCHERS: GoType = { go: 'list', of: { go: 'parsed', type: 'config.Matchers', parse: matchersLineProblem } };
export const UINT: GoType = { go: 'parsed', type: 'uint64', parse: (s) => (/^[0-9]+$/.test(s) ? undefined : `cannot unmarshal !!str \`${s}\` into uint64`) };

export const labelNamesOf = (map: unknown, what: string): string | undefined =>
  Object.keys(isMap(map) ? map : {})
    .filter((k) => !LABEL_NAME.test(k))
    .map((k) => `invalid label name "${k}"${what}`)[0];
