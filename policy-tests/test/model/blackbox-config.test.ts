/**
 * The blackbox exporter's configuration load (model/blackbox/) and yaml.v3's strict decode under it
 * (model/yaml/go-decode.ts), beyond the exporter's own tests (npm run conformance -- --blackbox-exporter): the type
 * rules v3 applies to each Go kind, which those tests do not exercise.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { blackboxConfigProblems, unknownProbers } from '../../model/blackbox/config.ts';
import { base2BytesProblem, canonicalHeaderKey, celCompiles } from '../../model/blackbox/go-libraries.ts';

const problems = (yaml: string) => blackboxConfigProblems(parse(yaml)).map((p) => `${p.path.join('.')}: ${p.message}`);
const module = (body: string) => `modules:\n  m:\n    prober: http\n${body.replace(/^/gm, '    ')}\n`;

describe("the blackbox exporter's load (v0.28.0)", () => {
  it.each([
    ['timeout: 10s', []],
    ['timeout: 1m30s', []],
    ['timeout: 10', ['modules.m.timeout: cannot unmarshal !!int `10` into time.Duration']],
    ['timeout: ten seconds', ['modules.m.timeout: cannot unmarshal !!str `ten sec...` into time.Duration']],
    ['http: 0', ['modules.m.http: cannot unmarshal !!int `0` into config.plain']],
    ['http: []', ['modules.m.http: cannot unmarshal !!seq into config.plain']],
    ['http:', []],
    ['http: {}', []],
    ['http:\n  valid_status_codes: [200, 301]', []],
    ['http:\n  valid_status_codes: ["200"]', ['modules.m.http.valid_status_codes.0: cannot unmarshal !!str `200` into int']],
    ['http:\n  valid_status_codes: 200', ['modules.m.http.valid_status_codes: cannot unmarshal !!int `200` into []int']],
    ['http:\n  fail_if_ssl: yes', []],
    ['http:\n  fail_if_ssl: maybe', ['modules.m.http.fail_if_ssl: cannot unmarshal !!str `maybe` into bool']],
    ['http:\n  method: 1', []],
    ['http:\n  method: [GET]', ['modules.m.http.method: cannot unmarshal !!seq into string']],
    ['http:\n  body_size_limit: 1MB', []],
    ['http:\n  body_size_limit: 1MiB', []],
    ['http:\n  body_size_limit: 1024', ['modules.m.http.body_size_limit: units: unknown unit  in 1024']],
    ['http:\n  tls_config:\n    min_version: TLS12', []],
    ['http:\n  tls_config:\n    min_version: TLS1.2', ['modules.m.http.tls_config.min_version: unknown TLS version: TLS1.2']],
    [
      'http:\n  tls_config:\n    cert_file: /c.pem',
      ['modules.m.http.tls_config: exactly one of key or key_file must be configured when a client certificate is configured'],
    ],
    ['http:\n  http_headers:\n    Authorization:\n      values: [x]', ['modules.m.http: setting header "Authorization" is not allowed']],
    ['http:\n  http_headers:\n    X-Probe:\n      value: [x]', ['modules.m.http.http_headers.X-Probe.value: field value not found in type config.Header']],
    [
      'http:\n  basic_auth:\n    username: a\n  bearer_token: b',
      ['modules.m.http: at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured'],
    ],
    ['http:\n  oauth2:\n    client_id: a', ['modules.m.http: oauth2 token_url must be configured']],
    ['http:\n  no_proxy: example.com', ['modules.m.http: if no_proxy is configured, proxy_url must also be configured']],
    ['http:\n  proxy_url: "http://[::1"', ['modules.m.http.proxy_url: parse "http://[::1": missing \']\' in host']],
    ['http:\n  proxy_url: "http://u:hunter2@[::1"', ['modules.m.http.proxy_url: parse "http://u:xxxxx@[::1": missing \']\' in host']],
    ['http:\n  fail_if_body_json_matches_cel: body.up == false', []],
    [
      'http:\n  fail_if_body_json_matches_cel: status.up == false',
      ['modules.m.http.fail_if_body_json_matches_cel: "Could not compile CEL program" expression="status.up == false"'],
    ],
    ['icmp:\n  ttl: 1.5', []],
    ['icmp:\n  ttl: 256', ['modules.m.icmp: "ttl" cannot exceed 255']],
    [
      'tcp:\n  query_response:\n    - expect: "^SSH"\n      expect_bytes: "5353"',
      ['modules.m.tcp.query_response.0: expect and expect_bytes are mutually exclusive'],
    ],
    ['grpc:\n  metadata:\n    x-a: [b]', []],
    ['grpc:\n  metadata:\n    x-a: b', ['modules.m.grpc.metadata.x-a: cannot unmarshal !!str `b` into []string']],
    ['dns:\n  query_name: example.com\n  query_type: AAAA', []],
  ])('%j: %j', (body, expected) => {
    expect(problems(module(body))).toEqual(expected);
  });

  it('refuses a key outside modules, and a type error stops the struct from validating', () => {
    expect(problems('module:\n  m: {}\n')).toEqual(['module: field module not found in type config.plain']);
    // The DNS module has no query name, but its type error comes first: UnmarshalYAML returns before validating.
    expect(problems(module('dns:\n  recursion_desired: 2'))).toEqual(['modules.m.dns.recursion_desired: cannot unmarshal !!int `2` into bool']);
  });

  it('names the modules whose prober the exporter has none of', () => {
    expect(unknownProbers(parse('modules:\n  a: {prober: http}\n  b: {prober: https}\n  c: {timeout: 5s}\n'))).toEqual([
      { module: 'b', prober: 'https' },
      { module: 'c', prober: '' },
    ]);
  });
});

describe("the Go libraries' readings", () => {
  it.each([
    ['0', undefined],
    ['512B', undefined],
    ['1.5KiB', undefined],
    ['2GB', undefined],
    ['1kb', 'units: unknown unit kb in 1kb'],
    ['MB', 'units: invalid MB'],
  ])('ParseBase2Bytes(%j): %j', (text, expected) => {
    expect(base2BytesProblem(text)).toBe(expected);
  });

  it('canonicalizes header keys as textproto does, and leaves a key that is no token', () => {
    expect(canonicalHeaderKey('accEpt-enCoding')).toBe('Accept-Encoding');
    expect(canonicalHeaderKey('x-probe-id')).toBe('X-Probe-Id');
    expect(canonicalHeaderKey('bad key')).toBe('bad key');
  });

  it('compiles CEL with body the one variable, macros binding their own', () => {
    expect(celCompiles('body.items.all(i, i.ok == true) && has(body.status)')).toBe(true);
    expect(celCompiles('body.items.all(i, j.ok)')).toBe(false);
    expect(celCompiles('body.')).toBe(false);
  });
});
