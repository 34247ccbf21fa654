/**
 * golift.io/cnfg v0.2.3's reading of unpoller's environment (model/unpoller/cnfg.ts): each value by its Go type, as
 * parse.go's Member and Interface read it (rows from strconv's and time's own behaviour), the names it never reads,
 * and a list's items from _0 up to the first one nothing sets (SliceValue), a pointer's empty value setting nothing.
 */
import { describe, expect, it } from 'vitest';
import { cnfgValueProblem, unpollerProblems, type UnpollerEnv } from '../../model/unpoller/cnfg.ts';
import type { UnpollerReference } from '../../model/unpoller/reference.ts';

const REF: UnpollerReference = {
  version: '2.20.0',
  prefix: 'UP',
  variables: {
    UP: 'opaque poller.Logger',
    UP_INFLUXDB_DISABLE: 'bool',
    UP_LOKI_INTERVAL: 'cnfg.Duration',
    UP_PROMETHEUS_BUFFER: 'int',
    UP_UNIFI_DEFAULT_PASS: 'string',
    UP_WEBSERVER_PORT: 'uint',
    UP_DATADOG_BUFFER_POOL_SIZE: '*int',
    UP_DATADOG_AGGREGATION_FLUSH_INTERVAL: '*time.Duration',
    'UP_UNIFI_DEFAULT_SSL_CERT_PATH_<n>': 'string',
    'UP_UNIFI_CONTROLLER_<n>_URL': 'string',
    'UP_UNIFI_CONTROLLER_<n>_VERIFY_SSL': '*bool',
    'UP_UNIFI_CONTROLLER_<n>_SITE_<n>': 'string',
    'UP_WEBSERVER_ACCOUNTS_<key>': 'string',
  },
};

const env = (pairs: Record<string, string>): UnpollerEnv[] => Object.entries(pairs).map(([name, value]) => ({ name, value }));
const messages = (e: UnpollerEnv[], whole = true) => unpollerProblems(e, REF, { whole }).map((p) => `${p.notJudged ? 'not judged: ' : ''}${p.message}`);

describe("cnfg's parse of one value", () => {
  it.each([
    ['bool', 'true', undefined],
    ['bool', 'T', undefined],
    ['bool', '0', undefined],
    ['bool', 'yes', 'X: strconv.ParseBool: parsing "yes": invalid syntax'],
    ['bool', '', 'X: strconv.ParseBool: parsing "": invalid syntax'],
    ['*bool', 'on', 'X: strconv.ParseBool: parsing "on": invalid syntax'],
    ['int', '-3', undefined],
    ['int', '0x10', 'X: parsing integer: strconv.ParseInt: parsing "0x10": invalid syntax'],
    ['int', '9223372036854775808', 'X: parsing integer: strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ['uint', '+1', 'X: parsing integer: strconv.ParseUint: parsing "+1": invalid syntax'],
    ['uint16', '65536', 'X: parsing integer: strconv.ParseUint: parsing "65536": value out of range'],
    ['float64', '1e3', undefined],
    ['time.Duration', '90s', undefined],
    ['time.Duration', '90', 'X: time: missing unit in duration "90"'],
    ['cnfg.Duration', '1m', undefined],
    ['cnfg.Duration', '1 m', `UnmarshalText interface: parsing duration '1 m': time: unknown unit " m" in duration "1 m"`],
    ['cnfg.Duration', '', 'X: time: invalid duration ""'],
    ['string', '', undefined],
  ])('%s %j', (type, value, problem) => {
    expect(cnfgValueProblem(type, { name: 'X', value })).toBe(problem);
  });
});

describe("unpoller's environment as cnfg reads it", () => {
  it('takes what the reference lists, each value parsed by its type', () => {
    expect(
      messages(
        env({ UP_INFLUXDB_DISABLE: 'true', UP_LOKI_INTERVAL: '1m', UP_UNIFI_DEFAULT_SSL_CERT_PATH_0: '/a.pem', UP_WEBSERVER_ACCOUNTS_ADMIN: 'hash', TZ: 'x' }),
      ),
    ).toEqual([]);
  });
  it('says a value it cannot parse stops unpoller, and a plain type parses the empty text while a pointer takes it as unset', () => {
    expect(
      messages(env({ UP_INFLUXDB_DISABLE: 'yes', UP_PROMETHEUS_BUFFER: '', UP_DATADOG_BUFFER_POOL_SIZE: '', UP_DATADOG_AGGREGATION_FLUSH_INTERVAL: '' })),
    ).toEqual([
      'unpoller 2.20.0 cannot read UP_INFLUXDB_DISABLE (env unmarshal: UP_INFLUXDB_DISABLE: strconv.ParseBool: parsing "yes": invalid syntax) and exits at start',
      'unpoller 2.20.0 cannot read UP_PROMETHEUS_BUFFER (env unmarshal: UP_PROMETHEUS_BUFFER: parsing integer: strconv.ParseInt: parsing "": invalid syntax) and exits at start',
    ]);
  });
  it('judges the last entry of a name, as the pod passes it', () => {
    expect(messages(env({ UP_INFLUXDB_DISABLE: 'yes' }).concat(env({ UP_INFLUXDB_DISABLE: 'true' })))).toEqual([]);
  });
  it('says a name no struct has, or one not in upper case, does nothing', () => {
    expect(messages(env({ UP_INFLUXDB_DISABLED: 'true', up_loki_interval: '1m', UPSTREAM: 'x' }))).toEqual([
      'unpoller 2.20.0 reads no UP_INFLUXDB_DISABLED (did you mean "UP_INFLUXDB_DISABLE"?): it does nothing',
      'unpoller 2.20.0 reads its variables by their upper-case names alone (cnfg looks UP_LOKI_INTERVAL up as written): up_loki_interval does nothing',
    ]);
  });
  it("reads a list's items from _0 up, and an index as strconv.Itoa writes it", () => {
    expect(messages(env({ UP_UNIFI_DEFAULT_SSL_CERT_PATH_1: '/b.pem', UP_UNIFI_DEFAULT_SSL_CERT_PATH_01: '/c.pem' }))).toEqual([
      'unpoller 2.20.0 reads no UP_UNIFI_DEFAULT_SSL_CERT_PATH_01 (did you mean "UP_UNIFI_DEFAULT_SSL_CERT_PATH_<n>"?): it does nothing',
      "unpoller 2.20.0 never reads UP_UNIFI_DEFAULT_SSL_CERT_PATH_1: cnfg reads a list's items from _0 up to the first one nothing sets, and nothing sets UP_UNIFI_DEFAULT_SSL_CERT_PATH_0; it does nothing",
    ]);
    // An empty string is set (the item is appended); an item whose only field is a pointer left empty is not.
    expect(messages(env({ UP_UNIFI_DEFAULT_SSL_CERT_PATH_0: '', UP_UNIFI_DEFAULT_SSL_CERT_PATH_1: '/b.pem' }))).toEqual([]);
    expect(messages(env({ UP_UNIFI_CONTROLLER_0_VERIFY_SSL: '', UP_UNIFI_CONTROLLER_1_URL: 'https://b' }))).toEqual([
      "unpoller 2.20.0 never reads UP_UNIFI_CONTROLLER_1_URL: cnfg reads a list's items from _0 up to the first one nothing sets, and nothing sets UP_UNIFI_CONTROLLER_0; it does nothing",
    ]);
    expect(messages(env({ UP_UNIFI_CONTROLLER_0_URL: 'https://a', UP_UNIFI_CONTROLLER_1_URL: 'https://b', UP_UNIFI_CONTROLLER_1_SITE_0: 'default' }))).toEqual(
      [],
    );
    expect(messages(env({ UP_UNIFI_CONTROLLER_0_SITE_1: 'x', UP_UNIFI_CONTROLLER_0_URL: 'https://a' }))).toHaveLength(1);
  });
  it('leaves lists alone where an envFrom may set the missing item', () => {
    expect(messages(env({ UP_UNIFI_DEFAULT_SSL_CERT_PATH_1: '/b.pem' }), false)).toEqual([]);
  });
  it('says not judged what it cannot read: a Secret for a typed value (a text takes any), a type it does not parse', () => {
    const fromSecret: UnpollerEnv[] = [
      { name: 'UP_INFLUXDB_DISABLE', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      { name: 'UP_UNIFI_DEFAULT_PASS', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      { name: 'UP', value: 'x' },
    ];
    expect(messages(fromSecret)).toEqual([
      'not judged: unpoller 2.20.0 parses UP_INFLUXDB_DISABLE as bool; its value is set where the gate cannot read it',
      'not judged: unpoller 2.20.0 reads UP as poller.Logger, which the gate does not parse',
    ]);
  });
});
