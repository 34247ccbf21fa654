/**
 * npm run loki:reference: the reference read from a local clone of Loki at a tag (its configuration reference and the
 * fields marked doc:"hidden"), the grammar of that reference as Loki's doc-generator writes it, and the refusals: no
 * --from (a usage error), a tag the clone lacks (one line, exit 1, nothing written).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../monitoring/loki-reference.ts';
import { parseReference } from '../monitoring/loki-reference-parse.ts';
import { capture } from '../../test-support/capture-io.ts';
import { taggedClone, type TaggedClone } from '../../test-support/tagged-clone.ts';

const REFERENCE = `# Configuration

### Supported contents and default values of \`loki.yaml\`

\`\`\`yaml
# Comma-separated list of targets.
# CLI flag: -target
[target: <string> | default = "all"]

[server: <server>]

[schema_config: <schema_config>]

ui:
  # Enable the UI.
  [enabled: <boolean> | default = false]

  goldfish:
    [max_connections: <int> | default = 10]
\`\`\`

### period_config

Example:
\`\`\`yaml
configs:
  - from: 2020-01-01
\`\`\`

\`\`\`yaml
[from: <daytime>]

index:
  [period: <duration>]
\`\`\`

### schema_config

\`\`\`yaml
[configs: <list of period_configs>]
\`\`\`

### server

\`\`\`yaml
[<tls_config>]

[grpc_server_max_recv_msg_size: <int> | default = 4194304]

[max_line_size: <int> | default = 256KB]

proxy_url:
  [url: <url>]

http_headers:
  [: <map of string to list of strings>]

[relabel_configs: <relabel_config...>]

[labels: <map of string to string>]
\`\`\`

### tls_config

The TLS configuration. The supported CLI flags \`<prefix>\` used to reference this configuration block are:

- \`ingester.client\`
- \`server\`

\`\`\`yaml
# CLI flag: -<prefix>.tls-cert-path
[cert_file: <string> | default = ""]
\`\`\`
`;

describe("the reference's grammar", () => {
  it('reads blocks, structs written in place, inlined blocks, inline maps, lists of blocks and the types it does not list', () => {
    expect(parseReference(REFERENCE)).toEqual({
      root: {
        target: 'string',
        server: 'block server',
        schema_config: 'block schema_config',
        ui: { enabled: 'boolean', goldfish: { max_connections: 'int' } },
      },
      blocks: {
        period_config: { from: 'daytime', index: { period: 'duration' } },
        schema_config: { configs: 'list of block period_config' },
        server: {
          '<inline>': ['tls_config'],
          grpc_server_max_recv_msg_size: 'int',
          max_line_size: 'bytes',
          proxy_url: 'string',
          http_headers: { '<rest>': 'map of strings' },
          relabel_configs: 'any',
          labels: 'map of string',
        },
        tls_config: { cert_file: 'string' },
      },
    });
  });

  it('refuses a line it does not know, naming it', () => {
    expect(() => parseReference(REFERENCE.replace('[cert_file: <string> | default = ""]', 'cert_file = ""'))).toThrow(
      'a line of the reference this reader does not know: "cert_file = \\"\\""',
    );
  });
});

describe('loki:reference', () => {
  let clone: TaggedClone;
  let upstream: string;
  let root: string;
  beforeAll(async () => {
    clone = await taggedClone('loki', 'v3.8.0', {
      files: {
        'docs/sources/shared/configuration.md': REFERENCE,
        'pkg/compactor/config.go': [
          'type Config struct {\n\tRunOnce bool `yaml:"_" doc:"hidden"`\n\tTenant string `doc:"hidden"`\n}\n',
          'func (cfg *Config) RegisterFlags(prefix string, f *flag.FlagSet) {\n\tf.BoolVar(&cfg.RunOnce, "compactor.run-once", false, "")\n\tf.StringVar(&cfg.Tenant, prefix+"tenant", "", "")\n}\n',
        ].join(''),
        'pkg/loki/config_wrapper.go': [
          'const versionFlag = "version"\n',
          'func (c *ConfigWrapper) RegisterFlags(f *flag.FlagSet) {\n\tf.BoolVar(&c.printVersion, versionFlag, false, "")\n',
          '\tf.StringVar(&c.ConfigFile, "config.file", "config.yaml", "")\n}\n',
        ].join(''),
      },
      rootDirs: ['monitoring/loki/facts'],
    });
    ({ upstream, root } = clone);
  });
  afterAll(() => clone.dispose());

  it('writes the reference of the tag, with the hidden fields and the chart it pins', async () => {
    const { out, io } = capture();
    expect(await main(['--from', upstream, '--ref', 'v3.8.0', '--chart-version', '19.0.0', '--root', root], io)).toBe(0);
    expect(out.stdout).toBe('wrote monitoring/loki/facts/config-reference.yaml: 4 blocks, 2 hidden fields, 5 flags, Loki 3.8.0\n');
    const written = parse(await readFile(join(root, 'monitoring/loki/facts/config-reference.yaml'), 'utf8'));
    expect(written).toMatchObject({
      program: 'loki',
      version: '3.8.0',
      pin: { chart: 'loki', version: '19.0.0' },
      source: { ref: 'v3.8.0' },
      hidden: ['_', 'tenant'],
      root: { target: 'string' },
      // Each <prefix> written out for every prefix its block lists, with the wrapper's flags beside them, one to a line under its type.
      flags: { boolean: '-version\n', string: '-config.file\n-ingester.client.tls-cert-path\n-server.tls-cert-path\n-target\n' },
      // What the source registers beyond the reference: whole names, and the ends of prefixed ones.
      undocumented: { boolean: '-compactor.run-once\n' },
      endings: 'tenant\n',
    });
  });

  it('a tag the clone lacks is one line and exit 1, and the reference stays as it was', async () => {
    const before = await readFile(join(root, 'monitoring/loki/facts/config-reference.yaml'), 'utf8');
    const { out, io } = capture();
    expect(await main(['--from', upstream, '--ref', 'v9.9.9', '--root', root], io)).toBe(1);
    expect(out.stderr).toMatch(/^loki:reference: cannot read docs\/sources\/shared\/configuration.md at v9.9.9 from .+\n$/);
    expect(await readFile(join(root, 'monitoring/loki/facts/config-reference.yaml'), 'utf8')).toBe(before);
  });

  it('without --from is a usage error (exit 2); --help exits 0', async () => {
    const usage = capture();
    expect(await main(['--ref', 'v3.8.0', '--root', root], usage.io)).toBe(2);
    expect(usage.out.stderr).toContain('--from <local clone of grafana/loki> is needed');
    const help = capture();
    expect(await main(['--help'], help.io)).toBe(0);
    expect(help.out.stdout).toContain('loki:reference --from <clone of grafana/loki>');
  });
});
