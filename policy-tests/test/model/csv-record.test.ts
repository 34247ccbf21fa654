/** Go's encoding/csv reading one record as pflag's StringSlice reads a flag's value (model/command-lines/csv-record.ts). */
import { describe, expect, it } from 'vitest';
import { goCsvRecord } from '../../model/command-lines/csv-record.ts';

describe("Go's encoding/csv, one record", () => {
  it('splits at commas, keeps an empty last field, and reads a quoted field with its commas and doubled quotes', () => {
    expect(goCsvRecord('1.1.1.1:53,8.8.8.8:53')).toEqual({ fields: ['1.1.1.1:53', '8.8.8.8:53'] });
    expect(goCsvRecord('a,')).toEqual({ fields: ['a', ''] });
    expect(goCsvRecord('"a,b",c')).toEqual({ fields: ['a,b', 'c'] });
    expect(goCsvRecord('"say ""hi"""')).toEqual({ fields: ['say "hi"'] });
    expect(goCsvRecord('a\nb,c')).toEqual({ fields: ['a'] });
  });

  it('refuses a quote in a field not quoted, a quoted field that does not end before a comma, and one never closed', () => {
    expect(goCsvRecord('a"b')).toEqual({ error: 'parse error on line 1, column 2: bare " in non-quoted-field' });
    expect(goCsvRecord('"a"b')).toMatchObject({ error: expect.stringMatching(/extraneous or missing " in quoted-field$/) });
    expect(goCsvRecord('"a')).toMatchObject({ error: expect.stringMatching(/extraneous or missing " in quoted-field$/) });
    expect(goCsvRecord('')).toEqual({ error: 'EOF' });
  });
});
