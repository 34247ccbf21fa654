/**
 * How a program reads TZ (model/programs/tz-variable.ts), each case as glibc 2.36's tzset reads it (docs/admission.md
 * gives the measure over twelve thousand values): a file of the tz database, a POSIX rule, or UTC.
 */
import { describe, expect, it } from 'vitest';
import { readTimeZone } from '../../model/programs/tz-variable.ts';

const reading = (text: string) => readTimeZone(text).reading;

describe('readTimeZone', () => {
  it('reads a name of the tz database, a link among them, written as the database writes it, as a zone', () => {
    for (const zone of [
      'Europe/Oslo',
      'America/Argentina/Buenos_Aires',
      'US/Eastern',
      'Etc/GMT-1',
      'CET',
      'EST5EDT',
      'UTC',
      'posixrules',
      ':Europe/Oslo',
      '/usr/share/zoneinfo/Europe/Oslo',
      'Europe//Oslo',
      '',
    ])
      expect(reading(zone), zone).toBe('zone');
  });

  it('reads a name no zone file holds as UTC, with the zone one slip away (ICU alone knows PST and a name in another case)', () => {
    expect(readTimeZone('Europe/Olso')).toEqual({ reading: 'utc', near: 'Europe/Oslo' });
    expect(readTimeZone('europe/oslo')).toEqual({ reading: 'utc', near: 'Europe/Oslo' });
    expect(readTimeZone('canada/pacific')).toEqual({ reading: 'utc' });
    for (const name of ['PST', 'IST', 'Local', 'SystemV/EST5', 'Europe/Oslo/', ':Europe/Olso', '/usr/share/zoneinfo/Europe/Olso'])
      expect(reading(name), name).toBe('utc');
  });

  it('reads a POSIX rule as a rule, and one whose start alone parses as that start', () => {
    for (const rule of ['CET-1CEST,M3.5.0,M10.5.0/3', '<+03>-3', 'UTC0', 'EST5EDT4,J60/2,300', 'ABC-1DEF', ':CET-1']) expect(reading(rule), rule).toBe('rule');
    // glibc reads `Ind0` as the rule and the rest as far as it goes; Go and .NET read UTC.
    expect(readTimeZone('Ind0ian/Maldives')).toEqual({ reading: 'start', near: 'Indian/Maldives' });
    for (const broken of ['CET-1CEST,M13.5.0,M10.5.0/3', 'CET-1CEST,M3.5.0', 'XYZ9:']) expect(reading(broken), broken).toBe('start');
  });

  it('leaves a file outside the tz database unknown', () => {
    expect(reading('/etc/localtime')).toBe('unknown');
    expect(reading(':/config/zone')).toBe('unknown');
  });
});
