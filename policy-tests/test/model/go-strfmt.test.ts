/** kube-openapi's formats as the API server holds a custom resource to them (model/go/strfmt.ts), and Go's net/mail under `email`. */
import { describe, expect, it } from 'vitest';
import { parseMailAddress } from '../../model/go/mail.ts';
import { isGoRFC3339, NUMBER_FORMATS, STRING_FORMATS, validatedFormat } from '../../model/go/strfmt.ts';

describe('the formats the API server keeps, as StripUnsupportedFormatsPostProcessor keeps them', () => {
  it('keeps a supported string format by its registry name, an integer its range, a float its own; drops the rest', () => {
    expect(validatedFormat('string', 'date-time')).toBe('datetime');
    expect(validatedFormat(undefined, 'k8s-short-name')).toBe('k8sshortname');
    expect(validatedFormat('string', 'uri-reference')).toBeUndefined();
    expect(validatedFormat('string', 'int32')).toBeUndefined();
    expect(validatedFormat('integer', 'int32')).toBe('int32');
    expect(validatedFormat('integer', 'uint8')).toBe('int64');
    expect(validatedFormat('integer', undefined)).toBe('int64');
    expect(validatedFormat('number', 'float')).toBe('float');
    expect(validatedFormat('number', 'double')).toBeUndefined();
    expect(validatedFormat('boolean', 'date')).toBeUndefined();
  });

  it("checks a number against its type's range as IsValueValidAgainstRange does", () => {
    expect([2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1].map(NUMBER_FORMATS.int32!)).toEqual([true, false, true, false]);
    expect([2 ** 62, 2 ** 64, 1.5].map(NUMBER_FORMATS.int64!)).toEqual([true, false, false]);
    expect([3.4e38, 3.5e38].map(NUMBER_FORMATS.float!)).toEqual([true, false]);
  });
});

describe("strfmt's validators, as Go's parsers and govalidator's patterns read a value", () => {
  const judge = (format: string, values: string[]) => values.map(STRING_FORMATS[format]!);
  it('reads a URI as url.ParseRequestURI, a date as time.Parse, a date-time and a duration as strfmt does', () => {
    expect(judge('uri', ['http://x.example/a', '/just/a/path', 'relative', 'http://[::1'])).toEqual([true, true, false, false]);
    expect(judge('date', ['2000-02-29', '1900-02-29', '0004-02-29', '2017-1-1'])).toEqual([true, false, true, false]);
    expect(judge('datetime', ['2014-12-15T08:00:00Z', '2014-12-15t08:00:00.5+01:00', '2014-12-15T08:00:00', '1972-12-31T24:40:00Z'])).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(judge('duration', ['1h30m', '3 days', '2 weeks', '45 weeekks', 'soon'])).toEqual([true, true, true, false, false]);
  });

  it('reads addresses as Go parses them: IPs sloppily, CIDRs, MACs, hostnames by their Unicode pattern and lengths', () => {
    expect(judge('ipv4', ['192.168.1.01', '1.2.3', '::ffff:1.2.3.4'])).toEqual([true, false, true]);
    expect(judge('ipv6', ['::1', '127.0.0.1', 'fe80::1%eth0'])).toEqual([true, false, false]);
    expect(judge('cidr', ['192.0.02.1/24', '10.0.0.0/33', '2001:db8::/32'])).toEqual([true, false, true]);
    expect(judge('mac', ['01:23:45:67:89:ab', '0123.4567.89ab', '01:23-45:67:89:ab', '01:02:03:04:05'])).toEqual([true, true, false, false]);
    expect(judge('hostname', ['www.詹姆斯.org', 'ex$ample', 'www.-d.org', `${'a'.repeat(64)}.com`])).toEqual([true, true, false, false]);
  });

  it('checks the checksums and patterns govalidator checks', () => {
    expect(judge('isbn', ['0321751043', '978-0321751041', '836217463'])).toEqual([true, true, false]);
    expect(judge('creditcard', ['4111-1111-1111-1111', '9999-9999-9999-999'])).toEqual([true, false]);
    expect(judge('ssn', ['111-11-1111', '999 99 999'])).toEqual([true, false]);
    expect(judge('byte', ['aGVsbG8=', 'aGVsbG8', ''])).toEqual([true, false, false]);
    expect(judge('k8slongname', ['a.b-c', 'a..b', 'A'])).toEqual([true, false, false]);
  });
});

describe("Go's time.Parse(time.RFC3339), as metav1.Time reads a timestamp", () => {
  it('takes a date, T, a time and a zone, a fraction too; not what Date.parse also takes', () => {
    expect(['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.5+01:00', '2024-02-29T23:59:59,5Z'].map(isGoRFC3339)).toEqual([true, true, true]);
    expect(
      ['2024-02-29 23:59:59Z', '2024-02-29T23:59:59', '2023-02-29T00:00:00Z', '2024-01-01T24:00:00Z', 'Feb 29 2024', '2024-01-01'].map(isGoRFC3339),
    ).toEqual(Array(6).fill(false));
  });
});

describe('a hostile value', () => {
  it('costs each format linear time: a long run of spaces in an rgb(), a long run of digits in a duration', () => {
    const spaces = ' '.repeat(200_000);
    const started = process.hrtime.bigint();
    expect([STRING_FORMATS.rgbcolor!(`rgb(${spaces}1${spaces},`), STRING_FORMATS.duration!(`${'9'.repeat(300_000)}s`)]).toEqual([false, false]);
    // Well inside a second on any machine; a backtracking pattern takes minutes here.
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(30);
  });
});

describe("Go's net/mail.ParseAddress", () => {
  it('reads an addr-spec, a named address, a quoted local part, a domain literal and a group of one', () => {
    expect(['a@b.c', 'Name <a@b.c>', '"Joe\\\\Blow"@example.com', 'a@[192.0.2.1]', 'Team: a@b.c;', 'a@b.c (the admin)'].map(parseMailAddress)).toEqual([
      'a@b.c',
      'a@b.c',
      'Joe\\Blow@example.com',
      'a@[192.0.2.1]',
      'a@b.c',
      'a@b.c',
    ]);
  });

  it('refuses what Go refuses: two @, a dot where an atom has none, an empty group, a bad domain literal, a charset Go cannot read', () => {
    expect(['somebody@somewhere@com', 'a.@b.c', 'Team: ;', 'a@[1.2.3]', '=?koi8-r?q?x?= <a@b.c>', 'a@b.c, d@e.f'].map(parseMailAddress)).toEqual(
      Array(6).fill(undefined),
    );
  });
});
