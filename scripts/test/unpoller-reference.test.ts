/**
 * npm run unpoller:reference: the variables cnfg reads into unpoller's core configuration and each plugin main.go
 * compiles in (a tag upper-cased and joined with `_`, an untagged field at its parent's name, `-`, unexported fields
 * and locks skipped, a list's items at `_<n>`, a map's keys at `_<key>`, a type with its own UnmarshalText opaque),
 * read from a local clone's tag; and the refusals: no --from (a usage error), a tag the clone lacks (one line, exit 1).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../monitoring/unpoller-reference.ts';
import { goField, goPackage, typesWithMethod } from '../lib/go-structs.ts';
import { capture } from '../../test-support/capture-io.ts';
import { taggedClone, type TaggedClone } from '../../test-support/tagged-clone.ts';

const MAIN_GO = `package main

import (
	"github.com/unpoller/unpoller/pkg/poller"
	_ "github.com/unpoller/unpoller/pkg/lokiunifi"
)
`;
const POLLER_GO = `package poller

type Config struct {
	*Poller \`json:"poller" xml:"poller"\`
}

type Poller struct {
	Plugins []string \`json:"plugins" xml:"plugin"\`
	Debug   bool     \`json:"debug" xml:"debug,attr"\`
}

type Logger interface {
	Logf(m string, v ...any)
}
`;
const LOKI_GO = `package lokiunifi

import (
	"sync"

	"github.com/unpoller/unpoller/pkg/poller"
	"github.com/unpoller/unpoller/pkg/webserver"
	"golift.io/cnfg"
)

type Config struct {
	Disable  bool          \`xml:"disable"\` // a comment
	Interval cnfg.Duration \`xml:"interval"\`
	Timeout  *cnfg.Duration \`xml:"timeout,attr"\`
	Labels   map[string]string \`xml:"label"\`
	Client   *client       \`xml:"-"\`
	Zone     zone          \`xml:"zone"\`
	ID       string        \`json:"id"\`
}

type (
	zone struct{ name string }
	client struct {
		URL string \`xml:"url"\`
	}
)

type Loki struct {
	sync.RWMutex
	Collect poller.Logger
	*Config \`json:"loki" xml:"loki"\`
	last    string
}

func (z *zone) UnmarshalText(b []byte) error { return nil }

func init() {
	l := &Loki{Config: &Config{}}

	poller.NewOutput(&poller.Output{
		Name:   "loki",
		Config: l,
	})
}
`;

describe('the Go declarations the command reads', () => {
  it('reads named, grouped and embedded fields, and refuses a field it cannot read', () => {
    expect(goField('\tA, B *int `xml:"a"` // both')).toEqual({ names: ['A', 'B'], type: '*int', tag: 'xml:"a"' });
    expect(goField('\t*Config `json:"loki"`')).toEqual({ names: [], type: '*Config', tag: 'json:"loki"' });
    expect(() => goField('\tInner struct {')).toThrow(/does not read/);
    const pkg = goPackage([LOKI_GO]);
    expect([...pkg.structs.keys()]).toEqual(['Config', 'zone', 'client', 'Loki']);
    expect(typesWithMethod(pkg, ['UnmarshalText'])).toEqual(new Set(['zone']));
  });
});

describe('unpoller:reference', () => {
  let clone: TaggedClone;
  beforeAll(async () => {
    clone = await taggedClone('unpoller', 'v3.0.0', {
      files: {
        'main.go': MAIN_GO,
        'pkg/poller/config.go': POLLER_GO,
        'pkg/lokiunifi/loki.go': LOKI_GO,
        'pkg/lokiunifi/loki_test.go': 'package lokiunifi\n\ntype Config struct {\n\tTestOnly bool `xml:"test_only"`\n}\n',
        // Compiled in through the Loki plugin's import, not main.go's.
        'pkg/webserver/server.go':
          'package webserver\n\ntype Config struct {\n\tPort uint `xml:"port"`\n}\n\ntype Server struct {\n\t*Config `xml:"webserver"`\n}\n\nfunc init() {\n\ts := &Server{Config: &Config{}}\n\tpoller.NewOutput(&poller.Output{\n\t\tConfig: s,\n\t})\n}\n',
      },
      rootDirs: ['monitoring/unpoller/facts'],
    });
  });
  afterAll(() => clone.dispose());

  it("writes each variable cnfg reads at the tag, with its type, from the core's and each compiled-in plugin's structs", async () => {
    const { out, io } = capture();
    expect(await main(['--from', clone.upstream, '--ref', 'v3.0.0', '--root', clone.root], io)).toBe(0);
    expect(out.stdout).toBe('wrote monitoring/unpoller/facts/settings-reference.yaml: 10 variables, unpoller 3.0.0\n');
    const written = parse(await readFile(join(clone.root, 'monitoring/unpoller/facts/settings-reference.yaml'), 'utf8'));
    expect(written).toMatchObject({ version: '3.0.0', prefix: 'UP', source: { ref: 'v3.0.0' } });
    expect(written.variables).toEqual({
      UP: 'opaque poller.Logger',
      UP_LOKI: 'string',
      UP_LOKI_DISABLE: 'bool',
      UP_LOKI_INTERVAL: 'cnfg.Duration',
      'UP_LOKI_LABEL_<key>': 'string',
      UP_LOKI_TIMEOUT: '*cnfg.Duration',
      UP_LOKI_ZONE: 'opaque zone',
      UP_POLLER_DEBUG: 'bool',
      'UP_POLLER_PLUGIN_<n>': 'string',
      UP_WEBSERVER_PORT: 'uint',
    });
  });

  it('a tag the clone lacks is one line and exit 1; without --from a usage error', async () => {
    const missing = capture();
    expect(await main(['--from', clone.upstream, '--ref', 'v9.9.9', '--root', clone.root], missing.io)).toBe(1);
    expect(missing.out.stderr).toMatch(/^unpoller:reference: cannot (read|search) .+ at v9\.9\.9 .+\n$/);
    const usage = capture();
    expect(await main(['--ref', 'v3.0.0', '--root', clone.root], usage.io)).toBe(2);
  });
});
