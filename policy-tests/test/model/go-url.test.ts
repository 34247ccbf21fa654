/**
 * Kubernetes' url() reads a URL with Go's url.ParseRequestURI (model/go/url.ts): the cases of Go's own
 * net/url tests (url_test.go: parseRequestURLTests, TestURLHostnameAndPort), and the examples of the Kubernetes
 * library's documentation (k8s.io/apiserver pkg/cel/library/urls.go), through the rule evaluator.
 */
import { describe, expect, it } from 'vitest';
import { hostname, parseRequestURI, port } from '../../model/go/url.ts';
import { eachHolds } from '../support/cel-rule.ts';

const valid = (raw: string) => {
  try {
    parseRequestURI(raw);
    return true;
  } catch {
    return false;
  }
};

describe("Go's url.ParseRequestURI", () => {
  it.each([
    ['http://foo.com', true],
    ['http://foo.com/', true],
    ['http://foo.com/path', true],
    ['/', true],
    ['//not.a.user@not.a.host/just/a/path', true],
    ['//not.a.user@%66%6f%6f.com/just/a/path/also', true],
    ['*', true],
    ['http://192.168.0.1/', true],
    ['http://192.168.0.1:8080/', true],
    ['http://[fe80::1]/', true],
    ['http://[fe80::1]:8080/', true],
    ['http://[fe80::1%25en0]/', true],
    ['http://[fe80::1%25en0]:8080/', true],
    ['http://[fe80::1%25%65%6e%301-._~]/', true],
    ['http://[fe80::1%25%65%6e%301-._~]:8080/', true],
    ['foo.html', false],
    ['../dir/', false],
    [' http://foo.com', false],
    ['http://192.168.0.%31/', false],
    ['http://192.168.0.%31:8080/', false],
    ['http://[fe80::%31]/', false],
    ['http://[fe80::%31]:8080/', false],
    ['http://[fe80::%31%25en0]/', false],
    ['http://[fe80::%31%25en0]:8080/', false],
    ['http://[fe80::1%en0]/', false],
    ['http://[fe80::1%en0]:8080/', false],
    // What the WHATWG parser refuses and Go reads: a scheme and an opaque rest.
    ['https:://kubernetes.io/', true],
  ])('%s: %s', (raw, expected) => {
    expect(valid(raw)).toBe(expected);
  });

  it.each([
    ['foo.com:80', 'foo.com', '80'],
    ['foo.com', 'foo.com', ''],
    ['foo.com:', 'foo.com', ''],
    ['FOO.COM', 'FOO.COM', ''],
    ['1.2.3.4', '1.2.3.4', ''],
    ['1.2.3.4:80', '1.2.3.4', '80'],
    ['[1:2:3:4]', '1:2:3:4', ''],
    ['[1:2:3:4]:80', '1:2:3:4', '80'],
    ['[::1]:80', '::1', '80'],
    ['[::1]', '::1', ''],
    ['[::1]:', '::1', ''],
    ['localhost:443', 'localhost', '443'],
    ['[2001:0db8:85a3:0000:0000:8a2e:0370:7334]:17000', '2001:0db8:85a3:0000:0000:8a2e:0370:7334', '17000'],
    ['[google.com]:80', 'google.com', '80'],
    ['google.com]:80', 'google.com]', '80'],
    ['google.com:80_invalid_port', 'google.com:80_invalid_port', ''],
    ['[::1]extra]:80', '::1]extra', '80'],
    ['google.com]extra:extra', 'google.com]extra:extra', ''],
  ])('host %s: hostname %s, port %s', (host, name, p) => {
    const u = { scheme: 'http', opaque: '', host, path: '', rawPath: '', rawQuery: '' };
    expect([hostname(u), port(u)]).toEqual([name, p]);
  });
});

describe("Kubernetes' url library, as its documentation shows it", () => {
  eachHolds([
    "url('https://example.com:80/').getHost() == 'example.com:80'",
    "url('https://[::1]:80/').getHostname() == '::1'",
    "url('https://[::1]:80/').getPort() == '80'",
    "url('/absolute-path').getScheme() == ''",
    "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
    "url('https://example.com').getEscapedPath() == ''",
    "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
    // Checked by ParseRequestURI, read by Parse: the fragment is not part of the query.
    "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    "!isURL('../relative-path') && !isURL('https://a b.com')",
    // Go keeps what WHATWG rewrites: the host's case, a default port, an opaque rest.
    "url('HTTPS://Example.COM:443').getScheme() == 'https' && url('HTTPS://Example.COM:443').getHost() == 'Example.COM:443'",
    "url('https:://kubernetes.io/').getHostname() == '' && url('https:://kubernetes.io/').getEscapedPath() == ''",
  ]);
});
