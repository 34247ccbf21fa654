/**
 * npm run tempo:reference: the reference read from a local clone of Tempo at a tag (its manifest's tree, its root
 * struct's fields, its source's field names, the flags its flag set holds and its modules' prefixes), and the
 * refusals: no --from (a usage error), a tag the clone lacks.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main, manifestTree, structFields } from '../monitoring/tempo-reference.ts';
import { capture } from '../../test-support/capture-io.ts';
import { taggedClone, type TaggedClone } from '../../test-support/tagged-clone.ts';

const MANIFEST =
  '# Manifest\n\n## Complete configuration\n\n```yaml\ntarget: all\nserver:\n    http_listen_port: 3200\ningester: {}\nstorage:\n    trace:\n        backend: local\n        wal:\n            path: /var/tempo/wal\n```\n';
const CONFIG_GO = [
  'package app\n\ntype Config struct {\n\tTarget string `yaml:"target,omitempty"`\n\tStreamOverHTTPEnabled bool `yaml:"stream_over_http_enabled,omitempty"`\n}\n',
  'func (c *Config) RegisterFlagsAndApplyDefaults(prefix string, f *flag.FlagSet) {',
  '\tf.StringVar(&c.Target, "target", SingleBinary, "target module")',
  '\tf.DurationVar(&c.ShutdownDelay, "shutdown-delay", 0, "How long to wait")',
  '\tflagext.DefaultValues(&c.InternalServer)',
  '\tc.Server.LogLevel.RegisterFlags(f)',
  '\tc.Overrides.RegisterFlagsAndApplyDefaults(f)',
  '\tc.Distributor.RegisterFlagsAndApplyDefaults(util.PrefixConfig(prefix, "distributor"), f)',
  '\tc.Frontend.RegisterFlagsAndApplyDefaults(util.PrefixConfig(prefix, "query-frontend"), f)',
  '}',
  '',
  'func (c *Config) CheckConfig() {}',
  '',
].join('\n');
const MAIN_GO = [
  'package main',
  'func main() {',
  '\tprintVersion := flag.Bool("version", false, "Print this builds version information")',
  '\tballastMBs := flag.Int("mem-ballast-size-mbs", 0, "Size of memory ballast to allocate in MBs.")',
  '}',
  'func loadConfig() {',
  '\tconst (',
  '\t\tconfigFileOption      = "config.file"',
  '\t\tconfigVerifyOption    = "config.verify"',
  '\t)',
  '\tflagext.IgnoredFlag(flag.CommandLine, configFileOption, "Configuration file to load")',
  '\tflagext.IgnoredFlag(flag.CommandLine, configVerifyOption, "Verify configuration and exit")',
  '}',
  '',
].join('\n');
const OVERRIDES_GO =
  'package overrides\nfunc (c *Config) RegisterFlagsAndApplyDefaults(f *flag.FlagSet) {\n\tf.Float64Var(&c.X, "metrics-generator.native-histogram-bucket-factor", 1.1, "x")\n}\n';
const LEVEL_GO =
  'package log\nfunc (l *Level) RegisterFlags(f *flag.FlagSet) {\n\tf.Var(l, "log.level", "Only log messages with the given severity or above.")\n}\n';

describe("Tempo's manifest and root struct", () => {
  it('reads the manifest as a tree of fields, an empty struct a leaf', () => {
    expect(manifestTree(MANIFEST)).toEqual({
      target: '.',
      server: { http_listen_port: '.' },
      ingester: '.',
      storage: { trace: { backend: '.', wal: { path: '.' } } },
    });
  });
  it("reads the root struct's yaml names", () => {
    expect(structFields(CONFIG_GO, 'Config')).toEqual(['target', 'stream_over_http_enabled']);
  });
});

describe('tempo:reference', () => {
  let clone: TaggedClone;
  let upstream: string;
  let root: string;
  beforeAll(async () => {
    clone = await taggedClone('tempo', 'v2.11.0', {
      files: {
        'docs/sources/tempo/configuration/manifest.md': MANIFEST,
        'cmd/tempo/app/config.go': CONFIG_GO,
        'cmd/tempo/main.go': MAIN_GO,
        'modules/overrides/config.go': OVERRIDES_GO,
        'vendor/github.com/grafana/dskit/log/level.go': LEVEL_GO,
        'vendor/x/x.go': 'type V struct {\n\tA string `yaml:"vendored"`\n}\n',
      },
      rootDirs: ['monitoring/tempo/facts'],
    });
    ({ upstream, root } = clone);
  });
  afterAll(() => clone.dispose());

  it("writes the reference of the tag: the manifest's tree, the root fields, the source's names but vendor's", async () => {
    const { out, io } = capture();
    expect(await main(['--from', upstream, '--ref', 'v2.11.0', '--chart-version', '2.3.0', '--root', root], io)).toBe(0);
    expect(out.stdout).toBe('wrote monitoring/tempo/facts/config-reference.yaml: 2 root fields, 2 field names, 8 flags, Tempo 2.11.0\n');
    const written = parse(await readFile(join(root, 'monitoring/tempo/facts/config-reference.yaml'), 'utf8'));
    expect(written).toMatchObject({
      version: '2.11.0',
      pin: { chart: 'tempo', version: '2.3.0' },
      root: ['target', 'stream_over_http_enabled'],
      names: ['stream_over_http_enabled', 'target'],
      // What main and the configuration register on the flag set by whole names, and the modules' prefixes.
      flags: {
        boolean: '-version\n',
        duration: '-shutdown-delay\n',
        float: '-metrics-generator.native-histogram-bucket-factor\n',
        int: '-mem-ballast-size-mbs\n',
        string: '-config.file\n-config.verify\n-log.level\n-target\n',
      },
      prefixes: ['distributor.', 'query-frontend.'],
    });
  });

  it('a tag the clone lacks is one line and exit 1; without --from a usage error', async () => {
    const missing = capture();
    expect(await main(['--from', upstream, '--ref', 'v9.9.9', '--root', root], missing.io)).toBe(1);
    expect(missing.out.stderr).toMatch(/^tempo:reference: cannot read docs\/sources\/tempo\/configuration\/manifest.md at v9.9.9 from .+\n$/);
    const usage = capture();
    expect(await main(['--ref', 'v2.11.0', '--root', root], usage.io)).toBe(2);
  });
});
