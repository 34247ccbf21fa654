/**
 * What Loki 3.7 refuses of a file it decoded, before it starts (pkg/loki/loki.go `Config.Validate`, with
 * pkg/loki/validation.go and the parts' own `Validate`), for the rules a file settles alone:
 *   - the schema (pkg/storage/config/schema_config.go): at least one period; each period's version a number Loki
 *     has (9 to 13), a TSDB index by the 24h period, index and chunk periods whole days, an index path prefix that
 *     is relative and ends in `/`, a chunk prefix for the stores that need one; the periods in increasing order;
 *     a `store` and an `object_store` Loki knows (or a named store of the storage config);
 *   - structured metadata (on unless `limits_config.allow_structured_metadata: false`) needs the period in force
 *     when Loki starts at schema v13 and a TSDB index. The gate reads no clock (its verdict is kept by its inputs), so
 *     it holds the last period to it (in force now, or at the first start once its day comes) and says an earlier
 *     one that would fail is not judged;
 *   - retention (`compactor.retention_enabled`) needs a delete-request store and a valid key prefix; the store is one
 *     of the object clients Loki makes (pkg/storage/factory.go internalNewObjectClient) or a named store, or the
 *     compactor's start fails ("failed to create delete request store object client") and Loki exits with it;
 *   - an S3 store (a period's object store, the delete-request store) has a bucket, or its client refuses at start;
 *   - a TSDB or boltdb-shipper index needs its directories, which `common.path_prefix` sets when they are not.
 * Each is one refusal at the path of the field it is about, in Loki's words (Loki prints them all at once).
 * Loki fills in its defaults first; the defaults read here are the reference's.
 */
import { dig, isMap, list } from '../core/dig.ts';
import { durationMs, goParseDuration } from '../core/time.ts';
import type { DecodeProblem } from '../yaml/go-decode.ts';
import { text } from '../blackbox/go-libraries.ts';
import { parsePromQL } from '../monitoring/promql.ts';
import { prometheusRegex, prometheusRegexProblem } from '../core/re2.ts';

const DAY_MS = 86_400_000;
const SUPPORTED_INDEX_TYPES = ['boltdb-shipper', 'tsdb'];
const DEPRECATED_INDEX_TYPES = ['aws', 'aws-dynamo', 'bigtable', 'bigtable-hashed', 'boltdb', 'cassandra', 'gcp', 'gcp-columnkey', 'grpc-store'];
const SUPPORTED_STORAGE_TYPES = ['filesystem', 'aws', 'alibabacloud', 'azure', 'bos', 'cos', 'gcs', 's3', 'swift', 'noop'];
const DEPRECATED_STORAGE_TYPES = ['aws-dynamo', 'bigtable', 'bigtable-hashed', 'cassandra', 'gcp', 'gcp-columnkey', 'grpc-store'];
const TESTING_STORAGE_TYPES = ['inmemory'];
/** pkg/storage/bucket's SupportedBackends: the stores of the thanos objstore clients. */
const THANOS_BACKENDS = ['s3', 'gcs', 'azure', 'swift', 'filesystem', 'alibabacloud', 'bos'];
/** validateChunks: the stores whose chunks live in tables, which need a chunk prefix. */
const TABLE_CHUNK_STORES = ['cassandra', 'aws-dynamo', 'bigtable-hashed', 'gcp', 'gcp-columnkey', 'bigtable', 'grpc-store'];

/** A duration field's value in ms (0 where unset), as either reader Loki's fields use takes it. */
function ms(v: unknown): number {
  if (typeof v === 'number') return v / 1e6; // yaml.v2 reads an int into a time.Duration as nanoseconds
  const t = text(v);
  if (t === '') return 0;
  const go = goParseDuration(t);
  return go.ok ? Number(go.nanoseconds) / 1e6 : durationMs(t);
}

/** ValidatePathPrefix: its error, or undefined. */
export function pathPrefixProblem(prefix: string): string | undefined {
  if (prefix === '') return 'prefix must be set';
  if (prefix.includes('\\')) return "prefix should only have '/' as a path separator";
  if (prefix.startsWith('/')) return "prefix should never start with a path separator i.e '/'";
  if (!prefix.endsWith('/')) return "prefix should end with a path separator i.e '/'";
  return undefined;
}

/** PeriodConfig.validate after applyDefaults: the first refusal of one period. */
function periodProblem(period: unknown, at: (string | number)[]): DecodeProblem | undefined {
  const store = text(dig(period, ['store']));
  const objectStore = text(dig(period, ['object_store'])) || store;
  if (TABLE_CHUNK_STORES.includes(objectStore) && text(dig(period, ['chunks', 'prefix'])) === '')
    return { path: [...at, 'chunks'], message: "schema config for chunks is missing the 'prefix' setting" };
  const indexPeriod = ms(dig(period, ['index', 'period']));
  if (store === 'tsdb' && indexPeriod !== DAY_MS)
    return { path: [...at, 'index', 'period'], message: 'tsdb must always have periodic config for index set to 24h' };
  const wholeDays = 'the table period must be a multiple of 24h (1h for schema v1)';
  if (indexPeriod > 0 && indexPeriod % DAY_MS !== 0) return { path: [...at, 'index', 'period'], message: `validating index tables: ${wholeDays}` };
  const prefix = pathPrefixProblem(text(dig(period, ['index', 'path_prefix'])) || 'index/');
  if (prefix) return { path: [...at, 'index', 'path_prefix'], message: `validating index tables: ${prefix}` };
  const chunkPeriod = ms(dig(period, ['chunks', 'period']));
  if (chunkPeriod > 0 && chunkPeriod % DAY_MS !== 0) return { path: [...at, 'chunks', 'period'], message: `validating chunk tables: ${wholeDays}` };
  const version = versionOf(period);
  if (!(version === 9 || (version >= 10 && version <= 13))) return { path: [...at, 'schema'], message: 'invalid schema version' };
  return undefined;
}

/** The version Loki reads of a period's `schema` (strings.Trim of `v`, then Atoi): NaN where it reads none. */
const versionOf = (period: unknown): number => {
  const digits = text(dig(period, ['schema'])).replace(/^v+|v+$/g, '');
  return /^[-+]?[0-9]+$/.test(digits) ? Number(digits) : NaN;
};

/** Why a period cannot hold structured metadata (validateSchemaRequirements), in Loki's words; none where it can. */
function structuredMetadataProblems(period: unknown, at: (string | number)[], position: number): DecodeProblem[] {
  const out: DecodeProblem[] = [];
  const version = versionOf(period);
  const why = (what: string) =>
    `${what} is required to store Structured Metadata and use native OTLP ingestion; set allow_structured_metadata: false in limits_config`;
  if (Number.isNaN(version)) out.push({ path: [...at, 'schema'], message: `CONFIG ERROR: invalid schema version at schema position ${position}` });
  else if (version < 13)
    out.push({ path: [...at, 'schema'], message: `CONFIG ERROR: ${why('schema v13')}, your schema version is ${text(dig(period, ['schema']))}` });
  if (text(dig(period, ['store'])) !== 'tsdb')
    out.push({ path: [...at, 'store'], message: `CONFIG ERROR: ${why('`tsdb` index type')}, your index type is \`${text(dig(period, ['store']))}\`` });
  return out;
}

/** The earlier periods that could not hold structured metadata were they in force when Loki starts: which is, the gate cannot tell. */
export function undecidedPeriods(doc: unknown): (string | number)[][] {
  const configs = list(dig(doc, ['schema_config', 'configs']));
  if (dig(doc, ['limits_config', 'allow_structured_metadata']) === false) return [];
  return configs.slice(0, -1).flatMap((p, i) => (structuredMetadataProblems(p, [], i).length ? [['schema_config', 'configs', i]] : []));
}

/** SchemaConfig.Validate, wrapped as Loki wraps it. */
function schemaProblems(doc: unknown): DecodeProblem[] {
  const configs = list(dig(doc, ['schema_config', 'configs']));
  if (configs.length === 0)
    return [{ path: ['schema_config'], message: 'CONFIG ERROR: invalid schema config: must specify at least one schema configuration' }];
  const out: DecodeProblem[] = [];
  const at = (i: number) => ['schema_config', 'configs', i];
  configs.some((period, i) => {
    const problem = periodProblem(period, at(i));
    if (problem) out.push({ path: problem.path, message: `CONFIG ERROR: invalid schema config: validating period_config: ${problem.message}` });
    else if (i + 1 < configs.length && text(dig(period, ['from'])) >= text(dig(configs[i + 1], ['from'])))
      out.push({ path: [...at(i + 1), 'from'], message: 'CONFIG ERROR: invalid schema config: from time in schemas must be distinct and in increasing order' });
    return out.length > 0;
  });
  out.push(...storeProblems(doc, configs, at));
  // validateSchemaRequirements on the last period: in force now, or at the first start once its day comes.
  const last = configs.length - 1;
  if (dig(doc, ['limits_config', 'allow_structured_metadata']) !== false) out.push(...structuredMetadataProblems(configs[last], at(last), last));
  return out;
}

/** The names of the storage config's named stores, of every type (those of the thanos clients where Loki uses them). */
function namedStoresOf(doc: unknown, thanos: boolean): Set<string> {
  const stores = dig(doc, thanos ? ['storage_config', 'object_store', 'named_stores'] : ['storage_config', 'named_stores']);
  return new Set(isMap(stores) ? Object.values(stores).flatMap((byName) => (isMap(byName) ? Object.keys(byName) : [])) : []);
}

/**
 * Whether an S3 object client of this name has a bucket (aws.NewS3ObjectClient's buckets(): `bucketnames`, or the
 * path of an `s3` URL): a named store's own config, else the storage config's `aws`, which `common.storage.s3` fills
 * (applyStorageConfig). Without one the client refuses, "at least one bucket name must be specified", and Loki exits.
 */
function s3HasBucket(doc: unknown, name: string): boolean {
  const named = dig(doc, ['storage_config', 'named_stores', 'aws', name]);
  const configs = isMap(named) ? [named] : [dig(doc, ['storage_config', 'aws']), dig(doc, ['common', 'storage', 's3'])];
  return configs.some((c) => text(dig(c, ['bucketnames'])) !== '' || text(dig(c, ['s3'])).replace(/^[a-z0-9+.-]+:\/\/[^/]*\/?/i, '') !== '');
}

/** Whether a store name makes an S3 client (the type, or a named store of the storage config's aws stores). */
const makesS3Client = (doc: unknown, name: string): boolean => ['aws', 's3'].includes(name) || isMap(dig(doc, ['storage_config', 'named_stores', 'aws', name]));

/** The object clients internalNewObjectClient makes by type, in the order its refusal names them (inmemory aside). */
const OBJECT_CLIENTS = ['aws', 's3', 'gcs', 'azure', 'alibabacloud', 'swift', 'bos', 'cos', 'filesystem'];

/** validateSchemaValues: a store and an object store Loki knows, or a named store of the storage config. */
function storeProblems(doc: unknown, configs: unknown[], at: (i: number) => (string | number)[]): DecodeProblem[] {
  const out: DecodeProblem[] = [];
  const thanos = dig(doc, ['storage_config', 'use_thanos_objstore']) === true;
  const namedStores = namedStoresOf(doc, thanos);
  configs.forEach((period, i) => {
    const store = text(dig(period, ['store']));
    if (![...TESTING_STORAGE_TYPES, ...SUPPORTED_INDEX_TYPES, ...DEPRECATED_INDEX_TYPES].includes(store))
      out.push({ path: [...at(i), 'store'], message: `unrecognized \`store\` (index) type \`${store}\`, choose one of: ${SUPPORTED_INDEX_TYPES.join(', ')}` });
    const object = text(dig(period, ['object_store']));
    const known = thanos ? THANOS_BACKENDS : [...TESTING_STORAGE_TYPES, ...SUPPORTED_STORAGE_TYPES, ...DEPRECATED_STORAGE_TYPES];
    if (!known.includes(object) && !namedStores.has(object))
      out.push({
        path: [...at(i), 'object_store'],
        message: `unrecognized \`object_store\` type \`${object}\`, which also does not match any named_stores. Choose one of: ${(thanos ? THANOS_BACKENDS : SUPPORTED_STORAGE_TYPES).join(', ')}. Or choose a named_store`,
      });
    // Every period's object client is made at start (NewStore), past and future ones alike.
    else if (!thanos && makesS3Client(doc, object) && !s3HasBucket(doc, object))
      out.push({ path: [...at(i), 'object_store'], message: `error creating object client for ${object}: at least one bucket name must be specified` });
  });
  return out;
}

/** The compactor's Validate on retention, and validateDirectoriesExist with common.path_prefix filling the directories in. */
function compactorAndDirectoryProblems(doc: unknown): DecodeProblem[] {
  const out: DecodeProblem[] = [];
  const compactor = (key: string) => dig(doc, ['compactor', key]);
  if (compactor('retention_enabled') === true) {
    const store = text(compactor('delete_request_store'));
    const thanos = dig(doc, ['storage_config', 'use_thanos_objstore']) === true;
    if (store === '')
      out.push({
        path: ['compactor'],
        message: 'CONFIG ERROR: invalid compactor config: compactor.delete-request-store should be configured when retention is enabled',
      });
    // Through the thanos clients the name is the bucket's to read, and not judged here.
    else if (!thanos && ![...OBJECT_CLIENTS, ...TESTING_STORAGE_TYPES].includes(store) && !namedStoresOf(doc, false).has(store))
      out.push({
        path: ['compactor', 'delete_request_store'],
        message: `failed to create delete request store object client: Unrecognized storage client ${store}, choose one of: ${OBJECT_CLIENTS.join(', ')}`,
      });
    else if (!thanos && makesS3Client(doc, store) && !s3HasBucket(doc, store))
      out.push({
        path: ['compactor', 'delete_request_store'],
        message: 'failed to create delete request store object client: at least one bucket name must be specified',
      });
    const keyPrefix = compactor('delete_request_store_key_prefix');
    const prefix = pathPrefixProblem(keyPrefix === undefined || keyPrefix === null ? 'index/' : text(keyPrefix));
    if (prefix)
      out.push({
        path: ['compactor', 'delete_request_store_key_prefix'],
        message: `CONFIG ERROR: invalid compactor config: validate delete store path prefix: ${prefix}`,
      });
    const marker = text(compactor('deletion_marker_object_store_prefix'));
    if (marker !== '' && !marker.endsWith('/'))
      out.push({
        path: ['compactor', 'deletion_marker_object_store_prefix'],
        message: 'CONFIG ERROR: invalid compactor config: deletion marker object store prefix must end with /',
      });
  }
  const fromCommon = text(dig(doc, ['common', 'path_prefix'])) !== '';
  const stores = new Set(list(dig(doc, ['schema_config', 'configs'])).map((p) => text(dig(p, ['store']))));
  for (const [store, shipper] of [
    ['tsdb', 'tsdb_shipper'],
    ['boltdb-shipper', 'boltdb_shipper'],
  ] as const) {
    if (!stores.has(store) || fromCommon) continue;
    for (const dir of ['active_index_directory', 'cache_location'])
      if (text(dig(doc, ['storage_config', shipper, dir])) === '')
        out.push({
          path: ['storage_config'],
          message: `CONFIG ERROR: \`${store}\` index type is configured in at least one schema period, however, \`storage_config\`, \`${shipper}\`, \`${dir}\` is not set, please set this directly or set \`path_prefix:\` in the \`common:\` section`,
        });
  }
  const workingDirectory = compactor('working_directory');
  if (
    (stores.has('tsdb') || stores.has('boltdb-shipper')) &&
    workingDirectory !== undefined &&
    workingDirectory !== null &&
    text(workingDirectory) === '' &&
    !fromCommon
  )
    out.push({
      path: ['compactor', 'working_directory'],
      message: 'CONFIG ERROR: `compactor:` `working_directory:` is empty, please set a valid directory or set `path_prefix:` in the `common:` section',
    });
  return out;
}

/**
 * LogQL's ParseMatchers(selector, true) (pkg/logql/syntax/parser.go): a stream selector alone (`{...}`, no pipeline,
 * no metric name), each matcher a label matcher Prometheus's labels package compiles, and at least one that does not
 * match the empty value (validateMatchers). Read with Prometheus's own grammar, which writes a selector alike.
 */
export function streamSelectorProblem(selector: string): string | undefined {
  const trimmed = selector.trim();
  const parsed = parsePromQL(trimmed);
  if (parsed.error) return `parse error : ${parsed.error.message.replace(/^PromQL/, 'the stream selector')}`;
  const [only, ...more] = parsed.selectors;
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}') || !only || more.length > 0 || only.name !== undefined) return 'only label matchers are supported';
  for (const m of only.matchers)
    if (m.op === '=~' || m.op === '!~') {
      const problem = prometheusRegexProblem(m.value);
      if (problem) return `parse error : ${problem}`;
    }
  const empty = (m: (typeof only.matchers)[number]) =>
    m.op === '=' ? m.value === '' : m.op === '!=' ? m.value !== '' : prometheusRegex(m.value).test('') === (m.op === '=~');
  return only.matchers.every(empty)
    ? 'parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will'
    : undefined;
}

/**
 * Limits.Validate's stream retention (pkg/validation/limits.go): each `retention_stream` rule's selector parses as a
 * stream selector, and keeps its streams at least 24h; the first refusal, wrapped as Config.Validate wraps it.
 */
export function streamRetentionProblems(limits: unknown, at: (string | number)[], wrap: string): DecodeProblem[] {
  const rules = list(dig(limits, ['retention_stream']));
  for (const [i, rule] of rules.entries()) {
    const selector = streamSelectorProblem(text(dig(rule, ['selector'])));
    if (selector) return [{ path: [...at, 'retention_stream', i, 'selector'], message: `${wrap}: invalid labels matchers: ${selector}` }];
    const period = dig(rule, ['period']);
    if (ms(period) < DAY_MS)
      return [{ path: [...at, 'retention_stream', i, 'period'], message: `${wrap}: retention period must be >= 24h was ${text(period) || '0s'}` }];
  }
  return [];
}

/** Every refusal Loki's validation makes of a file that decoded cleanly. */
export function lokiValidationProblems(doc: unknown): DecodeProblem[] {
  return [
    ...schemaProblems(doc),
    ...streamRetentionProblems(dig(doc, ['limits_config']), ['limits_config'], 'CONFIG ERROR: invalid limits_config config'),
    ...compactorAndDirectoryProblems(doc),
  ];
}
