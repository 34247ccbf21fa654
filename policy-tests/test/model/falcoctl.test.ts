/**
 * The port of falcoctl v0.13.0's reading of its configuration (model/falco/falcoctl.ts): viper's lookup, cast's
 * string slices, pflag's parsers behind `fmt.Sprintf("%v")`, and the config package's artifact types and references.
 */
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { falcoctlProblems, indexEntries, type FalcoctlCommand, type IndexEntry } from '../../model/falco/falcoctl.ts';

/** The chart's configuration, with `extra` YAML replacing its artifact block's lines; parsed as falcoctl's yaml.v3 reads ints. */
const config = (artifact: string): unknown =>
  parseDocument(`indexes:\n  - name: falcosecurity\n    url: https://falcosecurity.github.io/falcoctl/index.yaml\nartifact:\n${artifact}`, {
    intAsBigInt: true,
  }).toJS();

const CHART = `  allowedTypes: [rulesfile, plugin]
  install:
    resolveDeps: false
    refs: [falco-rules:5]
    rulesfilesDir: /rulesfiles
    pluginsDir: /plugins
    stateDir: /artifactstate
  follow:
    refs: [falco-rules:5]
    every: 168h
    falcoversions: http://localhost:8765/versions
    rulesfilesDir: /rulesfiles
`;

const messages = (doc: unknown, command: FalcoctlCommand, env: Record<string, string | undefined> = {}) =>
  falcoctlProblems(doc, command, { env: new Map(Object.entries(env)), whole: true }).map((p) => p.message);

describe("falcoctl's reading of its configuration", () => {
  it("takes the chart's own configuration, for both commands", () => {
    expect(messages(config(CHART), 'install')).toEqual([]);
    expect(messages(config(CHART), 'follow')).toEqual([]);
  });

  it('carries each setting into its flag as %v text: booleans as strconv reads them, durations as Go does', () => {
    const with_ = (from: string, to: string) => config(CHART.replace(from, to));
    expect(messages(with_('resolveDeps: false', 'resolveDeps: 1'), 'install')).toEqual([]);
    expect(messages(with_('resolveDeps: false', 'resolveDeps: "True"'), 'install')).toEqual([]);
    expect(messages(with_('resolveDeps: false', 'resolveDeps: "yes"'), 'install')).toEqual([expect.stringContaining('strconv.ParseBool: parsing "yes"')]);
    expect(messages(with_('resolveDeps: false', 'resolveDeps: 1.5'), 'install')).toEqual([expect.stringContaining('parsing "1.5"')]);
    expect(messages(with_('resolveDeps: false', 'resolveDeps: {a: 1}'), 'install')).toEqual([expect.stringContaining('parsing "map[a:1]"')]);
    // A null is unset: the flag keeps its default.
    expect(messages(with_('resolveDeps: false', 'resolveDeps: null'), 'install')).toEqual([]);
    expect(messages(with_('every: 168h', 'every: 0'), 'follow')).toEqual([]);
    expect(messages(with_('every: 168h', 'every: 7d'), 'follow')).toEqual([expect.stringContaining('unknown unit "d" in duration "7d"')]);
    // install reads nothing of follow.every.
    expect(messages(with_('every: 168h', 'every: 7d'), 'install')).toEqual([]);
  });

  it('reads keys in any case, and a FALCOCTL_ variable over the file; two spellings of one key are left to chance', () => {
    expect(messages(config(CHART.replace('resolveDeps', 'RESOLVEDEPS')), 'install', { FALCOCTL_ARTIFACT_INSTALL_RESOLVEDEPS: 'nope' })).toEqual([
      expect.stringContaining('parsing "nope"'),
    ]);
    // An empty variable is unset to viper; one from a Secret is not judged.
    expect(messages(config(CHART), 'install', { FALCOCTL_ARTIFACT_NOVERIFY: '' })).toEqual([]);
    expect(messages(config(CHART), 'install', { FALCOCTL_ARTIFACT_NOVERIFY: undefined })).toEqual([]);
    const both = config(CHART.replace('    resolveDeps: false\n', '    resolveDeps: false\n    resolvedeps: true\n'));
    expect(messages(both, 'install')).toEqual([expect.stringContaining('resolveDeps and resolvedeps are one key to it')]);
  });

  it('reads allowedTypes and refs as its config package does', () => {
    const types = (value: string) => messages(config(CHART.replace('allowedTypes: [rulesfile, plugin]', `allowedTypes: ${value}`)), 'install');
    // One text: split at spaces by cast, then at commas by the config package.
    expect(types('"rulesfile,plugin"')).toEqual([]);
    expect(types('"rulesfile plugin"')).toEqual([]);
    expect(types('[rulesfile, asset]')).toEqual([]);
    expect(types('[rulesfile, config]')).toEqual([expect.stringContaining('refuses the artifact type "config"')]);
    expect(types('"rulesfile,"')).toEqual([expect.stringContaining('no comma-separated list')]);
    // Nothing at all, or a map cast cannot make a list of: the flag refuses the empty text.
    expect(types('[]')).toEqual([expect.stringContaining('reads allowedTypes as ""')]);
    expect(types('{a: 1}')).toEqual([expect.stringContaining('reads allowedTypes as ""')]);
    const refs = (value: string) =>
      messages(config(CHART.replace('    refs: [falco-rules:5]\n    rulesfilesDir', `    refs: ${value}\n    rulesfilesDir`)), 'install');
    expect(refs('"falco-rules:5;falco-incubating-rules:4"')).toEqual([]);
    expect(refs('[]')).toEqual([expect.stringContaining('has no artifacts to install')]);
    expect(refs('"falco-rules:5;"')).toEqual([expect.stringContaining('no semicolon-separated list')]);
    // References on the command line: the file's are never read.
    const none = config(CHART.replace('    refs: [falco-rules:5]\n    rulesfilesDir', '    refs: []\n    rulesfilesDir'));
    expect(falcoctlProblems(none, 'install', { env: new Map(), whole: true, refsOnCommandLine: true })).toEqual([]);
  });

  it("checks the follower's startup behaviour and cron, and says a list taken as a path", () => {
    const follow = (line: string) => messages(config(CHART.replace('    every: 168h\n', `    every: 168h\n    ${line}\n`)), 'follow');
    expect(follow('startupBehavior: immediate')).toEqual([]);
    expect(follow('startupBehavior: Immediate')).toEqual([expect.stringContaining('refuses --startup-behavior "Immediate"')]);
    const cronAlone = (line: string) => messages(config(CHART.replace('    every: 168h\n', `    ${line}\n`)), 'follow');
    expect(cronAlone('cron: "0 3 * * 1"')).toEqual([]);
    expect(cronAlone('cron: "0 3 * *"')).toEqual([expect.stringContaining("cannot parse cron '0 3 * *'")]);
    // The chart's every: 168h and a cron both set their flags in PreRunE: cobra refuses the group before the cron is parsed.
    for (const cron of ['cron: "0 3 * * 1"', 'cron: "0 3 * *"'])
      expect(follow(cron)).toEqual([
        expect.stringMatching(/is given --cron \(by its configuration\) and --every \(by its configuration\): cobra refuses the two together/),
      ]);
    const chart = config(CHART);
    const given = (commandLineFlags: string[], env: Record<string, string> = {}) =>
      falcoctlProblems(chart, 'follow', { env: new Map(Object.entries(env)), whole: true, commandLineFlags }).map((p) => p.message);
    expect(given(['cron'])).toEqual([expect.stringMatching(/--cron \(by its command line\) and --every \(by its configuration\)/)]);
    expect(given([], { FALCOCTL_ARTIFACT_FOLLOW_CRON: '@daily' })).toEqual([expect.stringMatching(/--cron \(by FALCOCTL_ARTIFACT_FOLLOW_CRON\)/)]);
    // Both on the command line are the command line's reader's to say; --every there keeps the configuration's from counting.
    expect(given(['cron', 'every'])).toEqual([]);
    expect(given(['every'])).toEqual([]);
    expect(follow('tmpdir: [a, b]')).toEqual([expect.stringContaining('takes the text "[a b]" of artifact.follow.tmpdir as its --tmp-dir')]);
  });

  it('judges only what the values set where the chart defaults are not known', () => {
    expect(falcoctlProblems(config('  install:\n    resolveDeps: false\n'), 'install', { env: new Map(), whole: false })).toEqual([]);
    expect(falcoctlProblems(config('  install:\n    resolveDeps: false\n'), 'install', { env: new Map(), whole: true }).map((p) => p.message)).toEqual([
      expect.stringContaining('has no artifacts to install'),
    ]);
  });
});

describe("falcoctl's install of each reference, held to allowedTypes by its type in the index", () => {
  const index: IndexEntry[] = [
    { name: 'falco-rules', type: 'rulesfile', registry: 'ghcr.io', repository: 'falcosecurity/rules/falco-rules' },
    { name: 'container', type: 'plugin', registry: 'ghcr.io', repository: 'falcosecurity/plugins/plugin/container' },
  ];
  const install = (doc: unknown, commandLineRefs?: string[]) =>
    falcoctlProblems(doc, 'install', { env: new Map(), whole: true, index, ...(commandLineRefs ? { refsOnCommandLine: true, commandLineRefs } : {}) });

  it('takes a reference of an allowed type, by its name, its full reference, or named on the command line', () => {
    expect(install(config(CHART))).toEqual([]);
    expect(install(config(CHART.replace('refs: [falco-rules:5]', 'refs: [ghcr.io/falcosecurity/rules/falco-rules:5]')))).toEqual([]);
    expect(install(config(CHART), ['container:0.3', 'falco-rules:5'])).toEqual([]);
  });

  it('refuses one whose type allowedTypes does not take, where falcoctl stops: "type not permitted"', () => {
    expect(install(config(CHART.replace('allowedTypes: [rulesfile, plugin]', 'allowedTypes: [plugin]')))).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/pulls falco-rules:5, a rulesfile, and allowedTypes \(plugin\) does not take it/) }),
    ]);
    expect(install(config(CHART.replace('allowedTypes: [rulesfile, plugin]', 'allowedTypes: [rulesfile]')), ['container:0.3'])).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/pulls container:0\.3, a plugin/) }),
    ]);
  });

  it('says a reference the index facts do not hold not judged, and reads names through no other index', () => {
    expect(install(config(CHART.replace('refs: [falco-rules:5]', 'refs: [k8smeta:0.3]')))).toEqual([
      expect.objectContaining({ notJudged: true, message: expect.stringMatching(/k8smeta:0\.3, whose type the index facts do not say/) }),
    ]);
    const other = parseDocument(`indexes:\n  - name: mine\n    url: https://example.net/index.yaml\nartifact:\n${CHART}`).toJS();
    expect(install(other)).toEqual([expect.objectContaining({ notJudged: true })]);
  });

  it('reads the index facts only where each entry has its four texts', () => {
    expect(indexEntries({ index })).toEqual(index);
    expect(indexEntries({ index: [{ ...index[0], type: 1 }] })).toBeUndefined();
    expect(indexEntries({ index: [] })).toBeUndefined();
    expect(indexEntries(undefined)).toBeUndefined();
  });
});
