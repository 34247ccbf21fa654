/**
 * kubeconform's acceptance tests (acceptance.bats, run against its fixtures/), read as data: each test's command,
 * written as the gate's command line (kubeconform's single-dash flags as the gate spells them; without `-strict`,
 * `--no-strict`, since the gate is strict by default), and what it asserts. A test agrees when the gate exits as
 * kubeconform must (0 or 1), finds the resources its summary line counts (found, valid, invalid, errors, skipped),
 * and gives each resource a line names the verdict that line gives (valid, invalid or failed, skipped). The words of
 * an error, and of another format's lines, are the gate's own and not compared.
 *
 * Declined, with why: a test of what the gate does not have (schema locations, a schema cache, a proxy, file name
 * patterns: its schemas are bundled, offline), one that needs another tool (xmllint), and one whose contract the
 * gate keeps otherwise by design (DESIGN below). A fixture the checkout lacks (a large file kept out of a snapshot)
 * is counted as not read.
 */
import { count, emptyAgreement, type Agreement } from './agreement.ts';

export interface KubeconformCase {
  test: string;
  /** The gate's arguments. */
  args: string[];
  /** A fixture piped to standard input (`cat f | bin/kubeconform`), or none. */
  stdin?: string;
  status: number;
  /** What a summary line asserted counts. */
  summary?: Counts;
  /** The verdict each asserted line gives a resource. */
  verdicts: Verdict[];
}

export interface Counts {
  found: number;
  valid: number;
  invalid: number;
  errors: number;
  skipped: number;
}

export interface Verdict {
  kind: string;
  name: string;
  verdict: 'valid' | 'invalid' | 'skipped';
}

/** The tests whose contract the gate keeps otherwise, on purpose, and why. */
const DESIGN: Readonly<Record<string, string>> = {
  'Fail and display help when using an incorrect flag': 'a usage error exits 2 here, as every command of the repository does',
  'Return relevant error for non-existent file': 'a path that does not exist is a usage error here: exit 2',
  'Fail early when passing a non valid -kubernetes-version': 'the gate reads 1.25 as 1.25.0',
  'Pass when parsing a config with duplicate properties and strict NOT set':
    'a repeated key is refused whatever --strict says: Argo CD reads YAML with go-yaml, which refuses it, so the cluster never gets the file',
  'Fail when not passing data to stdin, when implicitly configured to read from stdin': 'with no path the gate judges the repository; `-` reads standard input',
  'Pass when parsing a valid Kubernetes config YAML file on stdin': 'with no path the gate judges the repository; `-` reads standard input',
  'Pass when parsing a List resource from stdin': 'with no path the gate judges the repository; `-` reads standard input',
  'Pass when parsing a very long stream from stdin': 'with no path the gate judges the repository; `-` reads standard input',
};

/** kubeconform's flags the gate has no counterpart of, and why. */
const ABSENT: Readonly<Record<string, string>> = {
  'schema-location': 'the gate has no schema locations: its schemas are bundled, offline',
  cache: 'the gate keeps no schema cache: its schemas are bundled, offline',
  'ignore-filename-pattern': 'the gate has no file name patterns',
  'insecure-skip-tls-verify': 'the gate fetches no schema',
  debug: 'the gate has no debug output',
  'exit-on-error': 'the gate judges every file',
};

/** kubeconform's flags, as the gate spells them (null: dropped, as the number of workers). */
const FLAGS: Readonly<Record<string, string | null>> = {
  summary: '--summary',
  verbose: '--verbose',
  strict: null,
  'kubernetes-version': '--kubernetes-version',
  'ignore-missing-schemas': '--ignore-missing-schemas',
  skip: '--skip',
  reject: '--reject',
  output: '-o',
  n: null,
  h: '--help',
};
const TAKES_VALUE = new Set(['kubernetes-version', 'skip', 'reject', 'output', 'n', 'schema-location', 'cache', 'ignore-filename-pattern']);

/** A shell line's words: single and double quotes (with `'\''`) and backslash escapes, as bash splits them. */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)|(\S)/g;
  let word: string | undefined;
  let last = -1;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const piece = m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3] ?? m[4]!;
    if (word !== undefined && m.index === last) word += piece;
    else {
      if (word !== undefined) out.push(word);
      word = piece;
    }
    last = re.lastIndex;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** kubeconform's arguments as the gate's, or why the test is declined. */
function gateArgs(words: readonly string[]): { args: string[] } | { declined: string } {
  const args: string[] = [];
  let strict = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const flag = /^--?([a-z][\w-]*)$/.exec(w)?.[1];
    if (!flag || w === '-') {
      args.push(w);
      continue;
    }
    if (flag in ABSENT) return { declined: ABSENT[flag]! };
    if (flag === 'strict') strict = true;
    const spelled = FLAGS[flag];
    // An unknown flag is passed on as written: the test is of what the command says of it.
    if (spelled === undefined) args.push(w);
    else if (spelled !== null) args.push(spelled);
    if (TAKES_VALUE.has(flag)) {
      const value = words[++i];
      if (spelled && value !== undefined) args.push(value);
    }
  }
  return { args: strict || args.includes('--help') ? args : ['--no-strict', ...args] };
}

const SUMMARY = /Summary: (\d+) resources? found (?:in \d+ files?|parsing stdin) - Valid: (\d+), Invalid: (\d+), Errors: (\d+), Skipped: (\d+)/;

/** The counts of a summary line (kubeconform's, or the gate's "Summary: N resources found - Valid: ..."). */
export function summaryCounts(text: string): Counts | undefined {
  const m = SUMMARY.exec(text) ?? /Summary: (\d+) resources? found - Valid: (\d+), Invalid: (\d+), Errors: (\d+), Skipped: (\d+)/.exec(text);
  return m ? { found: +m[1]!, valid: +m[2]!, invalid: +m[3]!, errors: +m[4]!, skipped: +m[5]! } : undefined;
}

/** The verdict one of kubeconform's result lines gives: `f - Kind name is valid`, `f - name Kind skipped`, `... failed validation: ...`. */
function kubeconformVerdict(line: string): Verdict | undefined {
  const m = / - (?:(\S+) (\S+) (is valid|is invalid|failed validation)|(\S+) (\S+) skipped)/.exec(line);
  if (!m) return undefined;
  if (m[4] !== undefined) return { kind: m[5]!, name: m[4], verdict: 'skipped' };
  return { kind: m[1]!, name: m[2]!, verdict: m[3] === 'is valid' ? 'valid' : 'invalid' };
}

/** The verdicts the gate's text output gives: PASS, FAIL and SKIP lines (`PASS - file - Kind name`). */
export function gateVerdicts(output: string): Verdict[] {
  const out: Verdict[] = [];
  for (const m of output.matchAll(/^(PASS|FAIL|SKIP) - \S+ - (\S+) (\S+)/gm))
    out.push({ kind: m[2]!, name: m[3]!, verdict: m[1] === 'PASS' ? 'valid' : m[1] === 'SKIP' ? 'skipped' : 'invalid' });
  return out;
}

/** The text a bats assertion compares: `[ "$output" = "..." ]` or `[ "${lines[0]}" == '...' ]`. */
function assertedTexts(body: string): string[] {
  const out: string[] = [];
  for (const m of body.matchAll(/^\s*\[ "\$(?:output|\{lines\[\d+\]\})" ==? (.+) \]\s*$/gm)) out.push(shellWords(m[1]!).join(' '));
  return out;
}

export interface KubeconformTable {
  cases: KubeconformCase[];
  declined: { test: string; why: string }[];
}

/** The tests of acceptance.bats, each as the gate's command and what it asserts, or declined with why. */
export function kubeconformCases(bats: string): KubeconformTable {
  const table: KubeconformTable = { cases: [], declined: [] };
  for (const m of bats.matchAll(/^@test "(.+?)" \{\n([\s\S]*?)^\}/gm)) {
    const [test, body] = [m[1]!, m[2]!];
    const decline = (why: string) => table.declined.push({ test, why });
    if (test in DESIGN) {
      decline(`by design: ${DESIGN[test]}`);
      continue;
    }
    const runs = [...body.matchAll(/^\s*run (.+)$/gm)].map((r) => r[1]!);
    if (runs.length !== 1) {
      decline('runs another tool after kubeconform');
      continue;
    }
    let words = shellWords(runs[0]!);
    let stdin: string | undefined;
    if (words[0] === 'bash' && words[1] === '-c') {
      const inner = words[2]!;
      const piped = /^cat (\S+) \| (.+)$/.exec(inner);
      if (/[>]|^\w+=/.test(inner)) {
        decline('a redirection or an environment the test sets around the command');
        continue;
      }
      stdin = piped?.[1];
      words = shellWords(piped ? piped[2]! : inner);
    }
    if (!/(^|\/)kubeconform$/.test(words[0] ?? '')) {
      decline(`runs ${words[0]}, not kubeconform`);
      continue;
    }
    const translated = gateArgs(words.slice(1));
    if ('declined' in translated) {
      decline(translated.declined);
      continue;
    }
    const status = Number(/\[ "\$status" -eq (\d+) \]/.exec(body)?.[1] ?? Number.NaN);
    const texts = assertedTexts(body);
    const summary = texts.map(summaryCounts).find((c) => c !== undefined);
    const verdicts = texts.flatMap((t) => t.split('\n')).flatMap((t) => kubeconformVerdict(t) ?? []);
    table.cases.push({ test, args: translated.args, ...(stdin ? { stdin } : {}), status, ...(summary ? { summary } : {}), verdicts });
  }
  return table;
}

/** What the gate did: its exit status and its output (standard output and error together, as bats's $output). */
export interface GateRun {
  status: number;
  output: string;
}

/** Each case run through the gate (`run`, which says where a fixture is missing), held to what it asserts. */
export async function kubeconformAgreement(
  cases: readonly KubeconformCase[],
  run: (c: KubeconformCase) => Promise<GateRun | { missing: string }>,
): Promise<Agreement> {
  const a = emptyAgreement();
  for (const c of cases) {
    const got = await run(c);
    if ('missing' in got) {
      count(a, { group: 'not read', ok: false, file: c.test, why: `not read: ${got.missing}` });
      continue;
    }
    const why: string[] = [];
    if (got.status !== c.status) why.push(`exit ${got.status}, kubeconform's ${c.status}`);
    const counts = summaryCounts(got.output);
    if (c.summary && JSON.stringify(counts) !== JSON.stringify(c.summary))
      why.push(`counts ${JSON.stringify(counts)}, kubeconform's ${JSON.stringify(c.summary)}`);
    const verdicts = gateVerdicts(got.output);
    for (const v of c.verdicts)
      if (!verdicts.some((g) => g.kind === v.kind && g.name === v.name && g.verdict === v.verdict)) why.push(`${v.kind} ${v.name} not ${v.verdict}`);
    const group = c.summary ? 'exit and counts' : c.verdicts.length ? 'exit and verdicts' : 'exit';
    count(a, { group, ok: why.length === 0, file: c.test, why: why.join('; ') });
  }
  return a;
}
