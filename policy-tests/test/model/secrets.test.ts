import { describe, expect, it } from 'vitest';
import { secretEntries, secretValue } from '../../model/core/secrets.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe("a Secret's values as the API server stores them", () => {
  it('decodes data from base64 and takes stringData as written, data first', () => {
    expect(secretEntries({ data: { a: b64('one') }, stringData: { b: 'two', port: 8080 } })).toEqual([
      { field: 'data', key: 'a', value: 'one' },
      { field: 'stringData', key: 'b', value: 'two' },
      { field: 'stringData', key: 'port', value: '8080' },
    ]);
  });

  it('gives stringData the last word on a key in both, as the server writes it over data', () => {
    const secret = { data: { server: b64('https://old.example') }, stringData: { server: 'https://new.example' } };
    expect(secretValue(secret, 'server')).toBe('https://new.example');
    expect(secretValue({ data: { server: b64('https://only.example') } }, 'server')).toBe('https://only.example');
    expect(secretValue(secret, 'name')).toBeUndefined();
  });

  it('reads nothing from a data or stringData that is not a map', () => {
    expect(secretEntries({ data: ['x'], stringData: 'y' })).toEqual([]);
    expect(secretEntries({})).toEqual([]);
  });
});
