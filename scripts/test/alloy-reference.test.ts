/**
 * npm run alloy:reference: the components Alloy registers at a tag (a literal name or a constant of its file, its
 * stability level, a community component without one) and its services, read from a local clone; and the refusals:
 * no --from (a usage error), a tag the clone lacks, a registration that no longer reads as expected.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main, registrations, stdlibIdentifiers } from '../monitoring/alloy-reference.ts';
import { capture } from '../../test-support/capture-io.ts';
import { taggedClone, type TaggedClone } from '../../test-support/tagged-clone.ts';

const WRITE_GO = `package write

import (
	"time"

	"github.com/grafana/alloy/internal/component"
	types "github.com/grafana/alloy/internal/component/common/config"
	"github.com/grafana/alloy/syntax/alloytypes"
)

func init() {
	component.Register(component.Registration{
		Name:      "loki.write",
		Stability: featuregate.StabilityGenerallyAvailable,
		Args:      Arguments{},
		Exports:   Exports{},
	})
}

type Exports struct {
	Receiver loki.LogsReceiver \`alloy:"receiver,attr"\`
}

type Arguments struct {
	Endpoints      []EndpointOptions \`alloy:"endpoint,block,optional"\`
	ExternalLabels map[string]string \`alloy:"external_labels,attr,optional"\`
	ForwardTo      []string          \`alloy:"forward_to,attr"\`
	Stages         []Stage           \`alloy:"stage,enum,optional"\`
	Internal       string
}

type Stage struct {
	JSON *JSONConfig \`alloy:"json,block,optional"\`
}

type JSONConfig struct {
	Expressions map[string]string \`alloy:"expressions,attr"\`
}

type EndpointOptions struct {
	URL              string                  \`alloy:"url,attr"\`
	HTTPClientConfig *types.HTTPClientConfig \`alloy:",squash"\`
	Headers          Headers                 \`alloy:"headers,block,optional"\`
	BatchWait        time.Duration           \`alloy:"batch_wait,attr,optional"\`
	Retries          *int64                  \`alloy:"retries,attr,optional"\`
	Retry429         bool                    \`alloy:"retry_on_http_429,attr,optional"\`
	Token            alloytypes.Secret       \`alloy:"token,attr,optional"\`
	Level            Level                   \`alloy:"level,attr,optional"\`
	Size             Size                    \`alloy:"size,attr,optional"\`
	Own              Own                     \`alloy:"own,attr,optional"\`
	Limits           Limits                  \`alloy:"limits,attr,optional"\`
	Waits            []time.Duration         \`alloy:"waits,attr,optional"\`
	Anything         any                     \`alloy:"anything,attr,optional"\`
}

// Its own Validate runs on every endpoint decoded; the squashed client's does not (only where the endpoint's calls it).
func (r *EndpointOptions) Validate() error { return nil }

type Headers map[string]string

// A level reads itself from text; a size is a number underneath; one with its own decoder is opaque.
type Level int

func (l *Level) UnmarshalText(text []byte) error { return nil }

type Size uint64

type Own struct{}

func (o *Own) UnmarshalAlloy(f func(any) error) error { return nil }

type Limits struct {
	Max int \`alloy:"max,attr"\`
}
`;
const HTTP_CLIENT_GO = `package config

func (h *HTTPClientConfig) Validate() error { return nil }

type HTTPClientConfig struct {
	BearerToken string \`alloy:"bearer_token,attr,optional"\`
	TLSConfig   TLSConfig \`alloy:"tls_config,block,optional"\`
}

type TLSConfig struct {
	CAFile string \`alloy:"ca_file,attr,optional"\`
}
`;
const MYSQL_GO = `package mysql

const name = "database_observability.mysql"

func init() {
	component.Register(component.Registration{
		Name:      name,
		Stability: featuregate.StabilityExperimental,
	})
}
`;
const STDLIB_GO = `package stdlib

var ExperimentalIdentifiers = map[string]bool{
	"array.group_by": true,
}

var DeprecatedIdentifiers = map[string]any{
	"env": os.Getenv,
}

var Identifiers = map[string]any{
	"coalesce": coalesce,
	"sys":      sys,
	"array":    array,
}

var array = map[string]any{
	"group_by": groupBy,
	"concat":   concat,
}

var sys = map[string]any{
	"env": os.Getenv,
}
`;
const PUBSUB_GO = `package googlecloudpubsub

func init() {
	component.Register(component.Registration{
		Name:      "otelcol.receiver.googlecloudpubsub",
		Community: true,
	})
}
`;

describe("Alloy's registrations", () => {
  it('reads a literal name, a constant of the file, and a community component without a stability level', () => {
    expect([...registrations(WRITE_GO), ...registrations(MYSQL_GO), ...registrations(PUBSUB_GO)]).toEqual([
      { name: 'loki.write', stability: 'generally-available', args: 'Arguments', exports: 'Exports' },
      // No Exports at all is the field's zero value: nil, the component exports nothing.
      { name: 'database_observability.mysql', stability: 'experimental', exports: 'nil' },
      { name: 'otelcol.receiver.googlecloudpubsub', community: true, exports: 'nil' },
    ]);
  });
  it('refuses a registration it cannot read, rather than leave the component out', () => {
    expect(() => registrations('component.Register(component.Registration{\n\t\tName: names[0],\n\t})')).toThrow(/does not read as this command expects/);
    expect(() => stdlibIdentifiers('package stdlib\n')).toThrow(/holds no `var Identifiers = map\[string\]any\{` as this command expects/);
  });
});

describe('alloy:reference', () => {
  let clone: TaggedClone;
  beforeAll(async () => {
    clone = await taggedClone('alloy', 'v1.30.0', {
      files: {
        'internal/component/loki/write/write.go': WRITE_GO,
        'internal/component/common/config/config.go': HTTP_CLIENT_GO,
        'internal/component/database_observability/mysql/component.go': MYSQL_GO,
        'internal/component/otelcol/receiver/googlecloudpubsub/googlecloudpubsub.go': PUBSUB_GO,
        'internal/component/loki/write/write_test.go':
          'package write\n\nfunc init() {\n\tcomponent.Register(component.Registration{\n\t\tName: "test.only",\n\t\tStability: featuregate.StabilityExperimental,\n\t})\n}\n',
        'internal/service/http/http.go': 'package http\n\nconst ServiceName = "http"\n',
        'syntax/internal/stdlib/stdlib.go': STDLIB_GO,
      },
      rootDirs: ['monitoring/alloy/facts'],
    });
  });
  afterAll(() => clone.dispose());

  it('writes the components of the tag, not its tests, with the services and the chart pinned', async () => {
    const { out, io } = capture();
    expect(await main(['--from', clone.upstream, '--ref', 'v1.30.0', '--chart-version', '2.0.0', '--root', clone.root], io)).toBe(0);
    expect(out.stdout).toBe('wrote monitoring/alloy/facts/components.yaml: 3 components, 1 services, Alloy 1.30.0\n');
    const written = parse(await readFile(join(clone.root, 'monitoring/alloy/facts/components.yaml'), 'utf8'));
    expect(written).toMatchObject({ version: '1.30.0', pin: { chart: 'alloy', version: '2.0.0' }, services: ['http'] });
    expect(Object.keys(written.components)).toEqual(['database_observability.mysql', 'loki.write', 'otelcol.receiver.googlecloudpubsub']);
    // Each component's arguments as the decoder reads the struct: tags, a squashed struct of another package, an enum's blocks, a block read as a map.
    expect(written.components['loki.write'].arguments).toBe('internal/component/loki/write.Arguments');
    expect(written.components['database_observability.mysql'].arguments).toBe('opaque');
    expect([written.components['loki.write'].exports, written.components['database_observability.mysql'].exports]).toEqual([
      'internal/component/loki/write.Exports',
      'none',
    ]);
    // The standard library: its functions, its namespaces with their names, the deprecated ones it copies in, the experimental names.
    expect(written.stdlib).toEqual({
      identifiers: { array: ['concat', 'group_by'], coalesce: 'function', env: 'function', sys: ['env'] },
      experimental: ['array.group_by'],
    });
    expect(written.schemas).toEqual({
      'internal/component/loki/write.Arguments': {
        endpoint: 'blocks internal/component/loki/write.EndpointOptions',
        external_labels: 'attr map',
        forward_to: 'attr required list(string)',
        'stage.json': 'enum internal/component/loki/write.JSONConfig',
      },
      // Each attribute with the type its value decodes into (attrType).
      'internal/component/loki/write.EndpointOptions': {
        '(runs)': 'Validate',
        url: 'attr required string',
        bearer_token: 'attr string',
        tls_config: 'block internal/component/common/config.TLSConfig',
        headers: 'block map',
        batch_wait: 'attr duration',
        retries: 'attr number',
        retry_on_http_429: 'attr bool',
        token: 'attr secret',
        level: 'attr text(internal/component/loki/write.Level)',
        size: 'attr number',
        own: 'attr opaque(internal/component/loki/write.Own)',
        limits: 'attr object(internal/component/loki/write.Limits)',
        waits: 'attr list(duration)',
        anything: 'attr any',
      },
      'internal/component/loki/write.Limits': { max: 'attr required number' },
      'internal/component/loki/write.JSONConfig': { expressions: 'attr required map' },
      'internal/component/common/config.TLSConfig': { ca_file: 'attr string' },
      // Another package's type the clone does not hold: opaque.
      'internal/component/loki/write.Exports': { receiver: 'attr required opaque' },
    });
  });

  it('a tag the clone lacks is one line and exit 1; without --from a usage error', async () => {
    const missing = capture();
    expect(await main(['--from', clone.upstream, '--ref', 'v9.9.9', '--chart-version', '2.0.0', '--root', clone.root], missing.io)).toBe(1);
    expect(missing.out.stderr).toMatch(/^alloy:reference: cannot (read|search) .+ at v9\.9\.9 .+\n$/);
    const usage = capture();
    expect(await main(['--ref', 'v1.30.0', '--root', clone.root], usage.io)).toBe(2);
  });
});
