/**
 * Loki's configuration decoded as yaml.v2's UnmarshalStrict decodes it into the structs the repository's reference
 * lists: the byte sizes Loki reads with c2h5oh/datasize (its own test rows), a schema period's date, and the
 * reference's types (a block inlined, an inline map, a block that holds a list of blocks).
 */
import { describe, expect, it } from 'vitest';
import { byteSizeProblem, referenceTypes } from '../../model/loki/reference.ts';
import { goDecodeProblems } from '../../model/yaml/go-decode.ts';
import { lokiValidationProblems, undecidedPeriods } from '../../model/loki/validate.ts';

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
      schema_config: { configs: [{ from: '2025-02-30', index: { period: 'daily' } }, { from: '2025-13-01' }] },
      limits_config: { max_line_size: [1] },
      querier_config: {},
    };
    expect(problems(file)).toEqual([
      'server.http_listen_port: cannot unmarshal !!str `3100x` into int',
      'server.cert_fil: field cert_fil not found in type server',
      'server.http_headers.X-A: cannot unmarshal !!str `b` into []string',
      'schema_config.configs.0.from: parsing time "2025-02-30" as "2006-01-02": cannot parse "2025-02-30" as a date',
      'schema_config.configs.0.index.period: time: invalid duration "daily"',
      'schema_config.configs.1.from: parsing time "2025-13-01" as "2006-01-02": cannot parse "2025-13-01" as a date',
      'limits_config.max_line_size: cannot unmarshal !!seq into flagext.ByteSize',
      'querier_config: field querier_config not found in type loki.Config',
    ]);
  });
});

describe("Loki's checks of a decoded file (Config.Validate)", () => {
  const period = (over: Record<string, unknown> = {}) => ({
    from: '2025-01-01',
    store: 'tsdb',
    object_store: 'filesystem',
    schema: 'v13',
    index: { prefix: 'index_', period: '24h' },
    ...over,
  });
  const file = (periods: unknown[], more: Record<string, unknown> = {}) => ({
    common: { path_prefix: '/var/loki' },
    schema_config: { configs: periods },
    ...more,
  });
  const refusals = (doc: unknown) => lokiValidationProblems(doc).map((p) => `${p.path.join('.')}: ${p.message}`);

  it("takes the repository's shape of file", () => {
    expect(refusals(file([period()], { compactor: { retention_enabled: true, delete_request_store: 'filesystem' } }))).toEqual([]);
    // A named store, or any name the thanos clients read, is a store too.
    const named = { retention_enabled: true, delete_request_store: 'deletes' };
    expect(refusals(file([period()], { compactor: named, storage_config: { named_stores: { filesystem: { deletes: { directory: '/d' } } } } }))).toEqual([]);
    expect(
      refusals(file([period()], { compactor: { ...named, delete_request_store: 'anything' }, storage_config: { use_thanos_objstore: true } })),
    ).not.toContainEqual(expect.stringContaining('delete request store'));
  });

  it("holds an S3 store, a period's or the delete-request store, to a bucket: its own, the storage config's, or common.storage.s3's", () => {
    const s3 = (more: Record<string, unknown>) =>
      refusals(file([period({ object_store: 's3' })], { compactor: { retention_enabled: true, delete_request_store: 'aws' }, ...more }));
    expect(s3({})).toEqual([
      'schema_config.configs.0.object_store: error creating object client for s3: at least one bucket name must be specified',
      'compactor.delete_request_store: failed to create delete request store object client: at least one bucket name must be specified',
    ]);
    expect(s3({ storage_config: { aws: { bucketnames: 'chunks' } } })).toEqual([]);
    expect(s3({ common: { path_prefix: '/var/loki', storage: { s3: { s3: 's3://key:secret@eu-west-1/chunks' } } } })).toEqual([]);
    // A URL without a path names no bucket.
    expect(s3({ storage_config: { aws: { s3: 's3://eu-west-1' } } })).toHaveLength(2);
    // A named aws store answers for itself alone.
    const named = { named_stores: { aws: { archive: { bucketnames: 'archive' } } } };
    expect(refusals(file([period({ object_store: 'archive' })], { storage_config: named }))).toEqual([]);
    expect(
      refusals(
        file([period({ object_store: 'archive' })], { storage_config: { named_stores: { aws: { archive: { region: 'x' } } }, aws: { bucketnames: 'b' } } }),
      ),
    ).toHaveLength(1);
    // Through the thanos clients the bucket is theirs to read.
    expect(refusals(file([period({ object_store: 's3' })], { storage_config: { use_thanos_objstore: true } }))).toEqual([]);
  });

  it.each([
    [file([]), 'schema_config: CONFIG ERROR: invalid schema config: must specify at least one schema configuration'],
    [
      file([period({ index: { period: '168h' } })]),
      'schema_config.configs.0.index.period: CONFIG ERROR: invalid schema config: validating period_config: tsdb must always have periodic config for index set to 24h',
    ],
    [
      file([period({ store: 'boltdb-shipper', index: { period: '36h' } })]),
      'schema_config.configs.0.index.period: CONFIG ERROR: invalid schema config: validating period_config: validating index tables: the table period must be a multiple of 24h (1h for schema v1)',
    ],
    [
      file([period({ index: { period: '24h', path_prefix: '/index/' } })]),
      "schema_config.configs.0.index.path_prefix: CONFIG ERROR: invalid schema config: validating period_config: validating index tables: prefix should never start with a path separator i.e '/'",
    ],
    [
      file([period({ schema: 'v14' })]),
      'schema_config.configs.0.schema: CONFIG ERROR: invalid schema config: validating period_config: invalid schema version',
    ],
    [
      file([period(), period()]),
      'schema_config.configs.1.from: CONFIG ERROR: invalid schema config: from time in schemas must be distinct and in increasing order',
    ],
    [
      file([period({ object_store: 'minio' })]),
      'schema_config.configs.0.object_store: unrecognized `object_store` type `minio`, which also does not match any named_stores. Choose one of: filesystem, aws, alibabacloud, azure, bos, cos, gcs, s3, swift, noop. Or choose a named_store',
    ],
    [
      file([period({ schema: 'v12' })]),
      expect.stringMatching(
        /^schema_config\.configs\.0\.schema: CONFIG ERROR: schema v13 is required to store Structured Metadata .*your schema version is v12$/,
      ),
    ],
    [
      file([period()], { compactor: { retention_enabled: true } }),
      'compactor: CONFIG ERROR: invalid compactor config: compactor.delete-request-store should be configured when retention is enabled',
    ],
    [
      file([period()], { compactor: { retention_enabled: true, delete_request_store: 'fielsystem' } }),
      'compactor.delete_request_store: failed to create delete request store object client: Unrecognized storage client fielsystem, choose one of: aws, s3, gcs, azure, alibabacloud, swift, bos, cos, filesystem',
    ],
    [
      file([period()], { limits_config: { retention_stream: [{ selector: '{a="b"}', priority: 1, period: '12h' }] } }),
      'limits_config.retention_stream.0.period: CONFIG ERROR: invalid limits_config config: retention period must be >= 24h was 12h',
    ],
    [
      { schema_config: { configs: [period()] } },
      expect.stringContaining(
        '`tsdb` index type is configured in at least one schema period, however, `storage_config`, `tsdb_shipper`, `active_index_directory` is not set',
      ),
    ],
  ])('refuses %j', (doc, first) => {
    expect(refusals(doc)[0]).toEqual(first);
  });

  it('takes a named store, and v12 with structured metadata off', () => {
    // Config.Validate takes it by its name; its client then needs a bucket to start.
    const named = { storage_config: { named_stores: { aws: { 'store-1': { endpoint: 's3://foo', bucketnames: 'chunks' } } } } };
    expect(refusals(file([period({ object_store: 'store-1' })], named))).toEqual([]);
    expect(refusals(file([period({ schema: 'v12' })], { limits_config: { allow_structured_metadata: false } }))).toEqual([]);
  });

  it('holds the last period to structured metadata, and leaves an earlier one undecided: the gate reads no clock', () => {
    const migrating = file([period({ schema: 'v12' }), period({ from: '2030-01-01' })]);
    expect(refusals(migrating)).toEqual([]);
    expect(undecidedPeriods(migrating)).toEqual([['schema_config', 'configs', 0]]);
  });
});
