/**
 * What a chart's files can make its output depend on, read from the files alone: the API versions Helm is
 * given (a chart that cannot see them is keyed without them, render/helm.ts), and anything beyond its inputs
 * (a chart whose templates call nothing random, nothing of the clock and nothing that hands `tpl` a text is
 * printed once: its second print could only repeat the first, render/cache.ts).
 */

/**
 * `APIVersions`, or `.Capabilities` handed on whole (to a helper, `toYaml`, a
 * variable, or by name to `index`): what a template, a helper, a file read through `.Files` and `tpl`,
 * or a values string rendered by `tpl` needs to see `--api-versions`. And `tpl` itself: it renders a
 * values string, which a pull request writes, with the chart's whole context, so a check built from split
 * strings (`index $ (print "Capa" "bilities")`) reaches the API versions without naming them. The
 * Kubernetes and Helm versions alone do not count: they come from `--kube-version` and the Helm binary,
 * both in the render key.
 */
export const READS_CAPABILITIES = /APIVersions|\.Capabilities(?!\.(?:KubeVersion|HelmVersion)\b)|["'`]Capabilities["'`]|\btpl\b/;

const PACKED = /\.(tgz|tar\.gz|tar)$/;

/**
 * Whether this file of a chart (or a values text) can make the chart's output
 * depend on the API versions Helm is given. A packed subchart (`charts/x.tgz`)
 * that reaches here was not read in (chart-files.ts reads a whole one in as its
 * folder), so it counts as yes.
 */
export function mayReadApiVersions(path: string, text: string): boolean {
  return PACKED.test(path) || READS_CAPABILITIES.test(text);
}

/**
 * The functions of Helm 4.2's template engine (pkg/engine/funcs.go: sprig v3.3.0, as its go.mod pins it, and
 * Helm's own) whose result is not a function of the chart and its values: randomness (`randAlphaNum` and its
 * kin, `randInt`, `randBytes`, `shuffle`, `uuidv4`; keys, certificates and hashes with a random salt or IV:
 * `genCA`, `genPrivateKey`, `bcrypt`, `htpasswd`, `encryptAES`), the clock (`now`, `ago`; `date` and its kin,
 * which format the time now when handed anything but a time, and `durationRound`, which measures from now when
 * handed one: sprig's date.go), a map's iteration order (`keys`, `values`: Go's, which differs from run to run),
 * and DNS (`getHostByName`, `getHostByAddr`: off under `helm template`, counted all the same). And `tpl`, which
 * runs a text the values give it, so anything at all. `lookup` is not here: under `helm template` it has no
 * cluster and answers an empty map, every time.
 */
export const UNREPEATABLE_FUNCTIONS: ReadonlySet<string> = new Set([
  'ago',
  'now',
  'date',
  'dateInZone',
  'htmlDate',
  'htmlDateInZone',
  'durationRound',
  'randAlpha',
  'randAlphaNum',
  'randAscii',
  'randNumeric',
  'randInt',
  'randBytes',
  'shuffle',
  'uuidv4',
  'bcrypt',
  'htpasswd',
  'encryptAES',
  'genPrivateKey',
  'genCA',
  'genCAWithKey',
  'genSelfSignedCert',
  'genSelfSignedCertWithKey',
  'genSignedCert',
  'genSignedCertWithKey',
  'keys',
  'values',
  'getHostByName',
  'getHostByAddr',
  'tpl',
]);

const FILES_BY_BASE_NAME = /\.As(?:Config|Secrets)\b/;

const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_]/;

/** Where the string, raw string or character constant that opens at `from` ends (after its closing quote). */
function endOfQuoted(text: string, from: number): number {
  const quote = text[from]!;
  let i = from + 1;
  while (i < text.length && text[i] !== quote) i += quote !== '`' && text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/**
 * The names a Go template calls as functions: each bare identifier inside an action (`{{ ... }}`), outside its
 * strings, raw strings, character constants and comments; a field (`.now`) or a variable (`$keys`) is not a
 * call. The text between actions is printed as it stands, so nothing there is called. A template Go would refuse
 * (a comment not at its delimiters, an unclosed string) fails the render anyway; the scan only has to be right
 * for one Helm accepts.
 */
export function calledFunctions(text: string): Set<string> {
  const out = new Set<string>();
  let i = text.indexOf('{{');
  while (i >= 0) {
    i += 2;
    while (i < text.length && !text.startsWith('}}', i)) {
      const c = text[i]!;
      if (c === '"' || c === '`' || c === "'") i = endOfQuoted(text, i);
      else if (text.startsWith('/*', i)) {
        const end = text.indexOf('*/', i + 2);
        i = end < 0 ? text.length : end + 2;
      } else if (IDENTIFIER_START.test(c) && !/[.$A-Za-z0-9_]/.test(text[i - 1] ?? '')) {
        const start = i;
        while (i < text.length && IDENTIFIER_PART.test(text[i]!)) i++;
        out.add(text.slice(start, i));
      } else i++;
    }
    i = text.indexOf('{{', i + 2);
  }
  return out;
}

/**
 * Whether this file of a chart can make two renders with the same inputs print differently: a template (a file
 * under `templates/`, of the chart or of a subchart unpacked in it) that calls one of UNREPEATABLE_FUNCTIONS or
 * names Helm's `AsConfig` or `AsSecrets`, or a packed subchart that was not read in (chart-files.ts). Any other
 * file is data: Helm runs it as a template only when a template hands it to `tpl`, which counts.
 */
export function mayPrintDifferently(path: string, text: string): boolean {
  if (PACKED.test(path)) return true;
  if (!/(^|\/)templates\//.test(path) || !text.includes('{{')) return false;
  // Helm's `.Files.Glob ... | .AsConfig` (and `.AsSecrets`) keys a map by base name, filled in Go's map order:
  // of two files with one base name, either may be the one printed.
  if (FILES_BY_BASE_NAME.test(text)) return true;
  for (const name of calledFunctions(text)) if (UNREPEATABLE_FUNCTIONS.has(name)) return true;
  return false;
}

/** What a chart's files let its output depend on (ChartScope carries both). */
export interface ChartTraits {
  readsApiVersions: boolean;
  /** Two renders with the same inputs print the same: no file may print differently. */
  repeatable: boolean;
}

/** A chart with no file read yet. */
export const NO_TRAITS: ChartTraits = { readsApiVersions: false, repeatable: true };

/** `traits` with one more of the chart's files read (its path relative to the chart's folder). */
export function withFile(traits: ChartTraits, path: string, text: string): ChartTraits {
  return {
    readsApiVersions: traits.readsApiVersions || mayReadApiVersions(path, text),
    repeatable: traits.repeatable && !mayPrintDifferently(path, text),
  };
}
