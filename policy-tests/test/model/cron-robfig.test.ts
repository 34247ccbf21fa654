/**
 * The port of robfig/cron v3.0.1's parser (model/cron/robfig.ts) where its own tests say nothing: the standard
 * parser's words for what the API server refuses of a CronJob's schedule, Go's ParseDuration behind @every, the zone
 * lookup, and a schedule that never fires; and the reader of the parser's tests (upstream/cron-cases.ts), on a file
 * written in their form.
 */
import { describe, expect, it } from 'vitest';
import { cronAgreement, cronCases } from '../../admission/upstream/cron-cases.ts';
import { goParseDuration, loadLocation } from '../../model/core/time.ts';
import { firingsOf } from '../../model/cron/firings.ts';
import { neverFires, parseCron, parseStandard, STANDARD, type CronSchedule } from '../../model/cron/robfig.ts';

const error = (spec: string) => {
  const r = parseStandard(spec);
  return r.ok ? undefined : r.error;
};

describe("robfig/cron's standard parser", () => {
  it('refuses in its own words', () => {
    expect(error('0 2 * *')).toBe('expected exactly 5 fields, found 4: [0 2 * *]');
    expect(error('0 24 * * *')).toBe('end of range (24) above maximum (23): 24');
    expect(error('0 2 0 * *')).toBe('beginning of range (0) below minimum (1): 0');
    expect(error('0 2 * 1-2-3 *')).toBe('too many hyphens: 1-2-3');
    expect(error('0 2 * * */2/3')).toBe('too many slashes: */2/3');
    expect(error('0 x * * *')).toBe('failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    expect(error('0 99999999999999999999 * * *')).toBe(
      'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range',
    );
    expect(error('@every 90')).toBe('failed to parse duration @every 90: time: missing unit in duration "90"');
    expect(error('@weekly ')).toBe('unrecognized descriptor: @weekly ');
    expect(error('')).toBe('empty spec string');
    expect(error('CRON_TZ=Mars/Olympus 0 2 * * *')).toBe('provided bad location Mars/Olympus: unknown time zone Mars/Olympus');
    // Upstream slices past the end of a TZ= prefix with no space after it: Go panics, and the request fails.
    expect(error('TZ=UTC')).toMatch(/^runtime error: slice bounds out of range/);
    // cert-manager's copy of the parser says so instead.
    expect(parseCron('CRON_TZ=UTC', STANDARD, 'refused')).toEqual({ ok: false, error: 'expected timezone prefix to be followed by a cron spec: CRON_TZ=UTC' });
  });

  it('takes names in any case, a star before a hyphen, a sign, empty list items and white space Go counts as space', () => {
    for (const spec of ['0 2 * JAN-mar Mon', '*-5 2 * * *', '+5 2 * * *', '0 1,,2 * * *', '0\t2 *\u00a0* *', '@every 1.5h', 'TZ=UTC  @daily'])
      expect(error(spec), spec).toBeUndefined();
    // U+FEFF is white space to JavaScript, not to Go.
    expect(error('0 2 * * *\ufeff')).toMatch(/^failed to parse int from/);
  });

  it('never fires on days its months never have while the week is *, and fires on the weekday when the week is restricted', () => {
    const fires = (spec: string) => {
      const r = parseStandard(spec);
      if (!r.ok) throw new Error(r.error);
      return !neverFires(r.schedule);
    };
    expect(fires('0 2 30 2 *')).toBe(false);
    expect(fires('0 2 31 4,6,9,11 *')).toBe(false);
    expect(fires('0 2 29 2 *')).toBe(true);
    expect(fires('0 2 30 2 1')).toBe(true);
    expect(fires('0 2 31 * *')).toBe(true);
    expect(fires('@every 1h')).toBe(true);
  });
});

describe('when a schedule fires, in UTC', () => {
  const spec = (text: string) => {
    const r = parseStandard(text);
    if (!r.ok || r.schedule.kind !== 'spec') throw new Error(`not a spec: ${text}`);
    return r.schedule as Extract<CronSchedule, { kind: 'spec' }>;
  };
  const at = (iso: string) => Date.parse(iso);
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

  it('is the first firing at or after a moment, and the latest strictly before one', () => {
    const daily = firingsOf(spec('30 2 * * *'));
    expect(iso(daily.atOrAfter(at('2028-03-01T02:30:00Z')))).toBe('2028-03-01T02:30:00.000Z');
    expect(iso(daily.atOrAfter(at('2028-03-01T02:30:00.001Z')))).toBe('2028-03-02T02:30:00.000Z');
    expect(iso(daily.before(at('2028-03-01T02:30:00Z')))).toBe('2028-02-29T02:30:00.000Z');
    expect(iso(daily.before(at('2028-03-01T02:30:00.001Z')))).toBe('2028-03-01T02:30:00.000Z');
  });

  it('matches the day as dayMatches does: both fields where either is *, else either', () => {
    // The 13th, or any Friday: 2028-10-06 is a Friday before the 13th.
    expect(iso(firingsOf(spec('0 0 13 * 5')).atOrAfter(at('2028-10-01T00:00:00Z')))).toBe('2028-10-06T00:00:00.000Z');
    // A step of 1 keeps the star bit: */1 of the week is *, so only the 2nd (a Monday in 2028-10, a Wednesday in 2028-11).
    expect(iso(firingsOf(spec('0 0 2 * */1')).atOrAfter(at('2028-10-03T00:00:00Z')))).toBe('2028-11-02T00:00:00.000Z');
    // A step of 2 drops it: the 2nd, or any Sunday, Tuesday, Thursday or Saturday.
    expect(iso(firingsOf(spec('0 0 2 * */2')).atOrAfter(at('2028-10-03T00:00:00Z')))).toBe('2028-10-03T00:00:00.000Z');
    expect(iso(firingsOf(spec('0 0 29 2 *')).atOrAfter(at('2029-01-01T00:00:00Z')))).toBe('2032-02-29T00:00:00.000Z');
  });

  it('finds nothing where Next finds nothing within five years', () => {
    expect(firingsOf(spec('0 0 30 2 *')).atOrAfter(at('2028-01-01T00:00:00Z'))).toBeUndefined();
    expect(firingsOf(spec('0 0 30 2 *')).before(at('2028-01-01T00:00:00Z'))).toBeUndefined();
  });
});

describe("Go's time.ParseDuration", () => {
  it('reads units, fractions and signs, and refuses in its words', () => {
    expect(goParseDuration('1h30m')).toEqual({ ok: true, nanoseconds: 5_400_000_000_000n });
    expect(goParseDuration('.5s')).toEqual({ ok: true, nanoseconds: 500_000_000n });
    expect(goParseDuration('-0')).toEqual({ ok: true, nanoseconds: 0n });
    expect(goParseDuration('1d')).toEqual({ ok: false, error: 'time: unknown unit "d" in duration "1d"' });
    expect(goParseDuration('5')).toEqual({ ok: false, error: 'time: missing unit in duration "5"' });
    expect(goParseDuration('.s')).toEqual({ ok: false, error: 'time: invalid duration ".s"' });
    expect(goParseDuration('')).toEqual({ ok: false, error: 'time: invalid duration ""' });
    expect(goParseDuration('3000000h')).toEqual({ ok: false, error: 'time: invalid duration "3000000h"' });
  });
});

describe("Go's time.LoadLocation, through ICU's names", () => {
  it('finds a zone as the tz database writes it, and refuses another case, a path and an unknown name', () => {
    for (const name of ['', 'UTC', 'Local', 'Europe/Berlin', 'US/Eastern', 'Etc/GMT+5']) expect(loadLocation(name), name).toEqual({ ok: true });
    expect(loadLocation('europe/berlin')).toEqual({ ok: false, error: 'unknown time zone europe/berlin' });
    expect(loadLocation('../etc/passwd')).toEqual({ ok: false, error: 'time: invalid location name' });
    expect(loadLocation('Mars/Olympus')).toEqual({ ok: false, error: 'unknown time zone Mars/Olympus' });
    // ICU reads a UTC offset as a zone; Go finds no such file.
    expect(loadLocation('+01:00')).toEqual({ ok: false, error: 'unknown time zone +01:00' });
    expect(loadLocation('-0500')).toEqual({ ok: false, error: 'unknown time zone -0500' });
  });
});

const TESTS = `
func TestRange(t *testing.T) {
	zero := uint64(0)
	ranges := []struct {
		expr     string
		min, max uint
		expected uint64
		err      string
	}{
		{"5-7/2", 0, 7, 1<<5 | 1<<7, ""},
		{"*", 1, 3, 1<<1 | 1<<2 | 1<<3 | starBit, ""},
		{"5-3", 3, 5, zero, "beyond end of range"},
		{"4", 0, 7, 1 << 5, ""},
		{"x", 0, 7, unknownName, ""},
	}
}

func TestStandardSpecSchedule(t *testing.T) {
	entries := []struct {
		expr     string
		expected Schedule
		err      string
	}{
		{
			expr:     "5 * * * *",
			expected: &SpecSchedule{1 << seconds.min, 1 << 5, all(hours), all(dom), all(months), all(dow), time.Local},
		},
		{
			expr: "* * * *",
			err:  "expected exactly 5 fields",
		},
	}
}

func TestNoDescriptorParser(t *testing.T) {
	parser := NewParser(Minute | Hour)
	_, err := parser.Parse("@every 1m")
	if err == nil {
		t.Error("expected an error, got none")
	}
}
`;

describe("the reader of robfig/cron's parser tests", () => {
  it('reads each row as the test runs it, counts a row the port answers otherwise against it, and one it cannot read as not read', () => {
    const table = cronCases(TESTS);
    expect(table.cases.map((c) => `${c.test} ${c.want}`)).toEqual([
      'TestRange bits a0',
      'TestRange bits 800000000000000e',
      'TestRange error containing "beyond end of range"',
      'TestRange bits 20',
      'TestStandardSpecSchedule spec 1 20 8000000000ffffff 80000000fffffffe 8000000000001ffe 800000000000007f in Local',
      'TestStandardSpecSchedule error containing "expected exactly 5 fields"',
      'TestNoDescriptorParser refused',
    ]);
    expect(table.unread).toEqual([{ name: 'TestRange/5: "x", 0, 7, unknownName, ""', why: 'unknown identifier unknownName' }]);
    const agreement = cronAgreement(table);
    expect([agreement.agree, agreement.total]).toEqual([6, 8]);
    expect(agreement.disagreements.map((d) => d.why)).toEqual(['the gate answers bits 10, robfig/cron bits 20', 'not read: unknown identifier unknownName']);
  });
});
