/**
 * Loki's configuration decoded as yaml.v2's UnmarshalStrict decodes it into the structs the repository's reference
 * lists: the byte sizes Loki reads with c2h5oh/datasize (its own test rows), a schema period's date, and the
 * reference's types (a block inlined, an inline map, a block that holds a list of blocks).
 */
import { describe, expect, it } from 'vitest';
import { byteSizeProblem, referenceTypes } from '../../model/loki/reference.ts';
import { goDecodeProblems } from '../../model/yaml/go-decode.ts';

describe("Loki's byte sizes (flagext.ByteSize: c2h5oh/datasize's UnmarshalText of the text upper-cased)", () => {
  it.each(['', '0', '1024', '1K', '1kb', '256KB', '1 MB', '5gb', '1terabyte', '16383PB', '15EB'])('takes %j', (text) => {
    expect(byteSizeProblem(text)).toBeUndefined();
  });
  it.each([
    ['1.5MB', 'invalid syntax'],
    ['-1', 'invalid syntax'],
    ['256KiB', 'invalid syntax'],
    ['MB', 'invalid syntax'],
    ['10 bits', 'invalid syntax'],
    ['16EB', 'value out of range'],
    ['18446744073709551616', 'value out of range'],
  ])('refuses %j (%s)', (text, why) => {
    expect(byteSizeProblem(text)).toBe(`strconv.UnmarshalText: parsing ${JSON.stringify(text.toUpperCase())}: ${why}`);
  });
});

describe('the reference as Go types', () => {
  const type = referenceTypes({
    root: { server: 'block server', schema_config: 'block schema_config', limits_config: { max_line_size: 'bytes', retention_period: 'duration' } },
    blocks: {
      server: { '<inline>': ['tls_config'], http_listen_port: 'int', http_headers: { '<rest>': 'strings' } },
      tls_config: { cert_file: 'string', insecure: 'boolean' },
      schema_config: { configs: 'list of block period_config' },
      period_config: { from: 'daytime', index: { period: 'duration' } },
    },
    hidden: ['http_prefix'],
  });
  const problems = (doc: unknown) => goDecodeProblems(doc, type).map((p) => `${p.path.join('.')}: ${p.message}`);

  it('takes a file of the fields each block has, an inlined block and a hidden field among them', () => {
    const file = {
      server: { http_listen_port: 3100, cert_file: '/tls.crt', insecure: 'no', http_prefix: '/loki', http_headers: { 'X-A': ['b'] } },
      schema_config: { configs: [{ from: '2025-01-01', index: { period: '24h' } }] },
      limits_config: { max_line_size: '256KB', retention_period: '30d' },
    };
    expect(problems(file)).toEqual([]);
  });

  it('refuses what UnmarshalStrict refuses, each at its path', () => {
    const file = {
      server: { http_listen_port: '3100x', cert_fil: 'x', http_headers: { 'X-A': 'b' } },
      schema_config: { configs: [{ from: '2025-02-30', index: { period: 'daily' } }] },
      limits_config: { max_line_size: [1] },
      querier_config: {},
    };
    expect(problems(file)).toEqual([
      'server.http_listen_port: cannot unmarshal !!str `3100x` into int',
      'server.cert_fil: field cert_fil not found in type server',
      'server.http_headers.X-A: cannot unmarshal !!str `b` into []string',
      'schema_config.configs.0.from: parsing time "2025-02-30" as "2006-01-02": cannot parse "2025-02-30" as a date',
      'schema_config.configs.0.index.period: time: invalid duration "daily"',
      'limits_config.max_line_size: cannot unmarshal !!seq into flagext.ByteSize',
      'querier_config: field querier_config not found in type loki.Config',
    ]);
  });
});
