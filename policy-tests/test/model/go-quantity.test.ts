/** resource.ParseQuantity and Quantity.UnmarshalJSON, as apimachinery's quantity_test.go holds them. */
import { describe, expect, it } from 'vitest';
import { decodeQuantity, parseGoQuantity, parsedQuantityValue, QUANTITY_ERRORS } from '../../model/go/quantity.ts';

const parsed = (text: string) => {
  const p = parseGoQuantity(text);
  return p.ok ? `${p.quantity.digits}e${p.quantity.exponent} ${p.quantity.format}` : p.error;
};

describe('resource.ParseQuantity', () => {
  it('reads the suffixes Kubernetes knows, and refuses SI prefixes it does not', () => {
    expect(parsed('128Mi')).toBe(`${128n * 2n ** 20n}e0 BinarySI`);
    expect(parsed('500m')).toBe('500e-3 DecimalSI');
    expect(parsed('1.3E+6')).toBe('13e5 DecimalExponent');
    expect(parsed('1E')).toBe('1e18 DecimalSI');
    for (const si of ['0.1mi', '1i', '1Ei5', '1mm', '-3.01e-']) expect(parsed(si)).toBe(QUANTITY_ERRORS.suffix);
    const noSuffixLetter = ['1d', '1h', '1c', '1da', '1Y', '1Z', '1p', '1f'];
    for (const bad of ['', ' 1', '1 ', '1.1.M', '1+1.0M', 'aoeu', ...noSuffixLetter]) expect(parsed(bad)).toBe(QUANTITY_ERRORS.format);
  });

  it('parses what its loops let through: a bare point, a bare sign, a bare suffix', () => {
    expect(parsed('.')).toBe('0e0 DecimalSI');
    expect(parsed('+')).toBe('0e0 DecimalSI');
    expect(parsed('1.')).toBe('1e0 DecimalSI');
    expect(parsed('Gi')).toBe('0e0 BinarySI');
    // Past nano scale, the slow path's inf.Dec needs a digit.
    expect(parsed('.e-20')).toBe(QUANTITY_ERRORS.numeric);
  });

  it('rounds a value finer than 1n up, caps a binary one at int64, and an exponent wraps at int32', () => {
    expect(parsed('3.001n')).toBe('4e-9 DecimalSI');
    expect(parsed('-3.001n')).toBe('-4e-9 DecimalSI');
    expect(parsed('0.000000000001Ki')).toBe('2e-9 DecimalSI');
    expect(parsed('9Ei')).toBe(`${2n ** 63n - 1n}e0 BinarySI`);
    expect(parsed('1e4294967296')).toBe('1e0 DecimalExponent');
    // Far below 1n is 1n, with no power of ten two billion digits long built to say so.
    expect(parsed('1e-2000000000')).toBe('1e-9 DecimalExponent');
  });
});

describe('Quantity.UnmarshalJSON', () => {
  it('trims the spaces JSON carries as they are, reads a number as its JSON text, and keeps a control character', () => {
    expect(decodeQuantity(' 1Gi ').ok).toBe(true);
    expect(decodeQuantity('\u00a01').ok).toBe(true);
    expect(decodeQuantity(1e21).ok).toBe(true);
    expect(decodeQuantity('1\t').ok).toBe(false);
    expect(decodeQuantity({}).ok).toBe(false);
    expect(parsedQuantityValue(' 1')).toBeUndefined();
    expect(parsedQuantityValue('10M')).toBe(1e7);
  });
});
