/**
 * What Go's text/template parser makes of a number, a character or a complex constant (parse/node.go, newNumber):
 * the kinds it can be (an int, a uint, a float, a complex), or why it is none, read with strconv as Go reads it.
 */
import { goParseFloat, goParseInt, goParseUint, goParsesFloat, goUnquoteChar, GO_SYNTAX_ERROR } from './strconv.ts';

/** What newNumber makes of a number, character or complex constant: the kinds it can be, or why it is none. */
export function templateNumber(
  text: string,
  type: 'number' | 'charConstant' | 'complex',
): { isInt: boolean; isUint: boolean; isFloat: boolean; isComplex: boolean } | { error: string } {
  if (type === 'charConstant') {
    const read = goUnquoteChar(text.slice(1), text[0]!);
    if (!read) return { error: GO_SYNTAX_ERROR };
    if (read.tail !== "'") return { error: `malformed character constant: ${text}` };
    return { isInt: true, isUint: true, isFloat: true, isComplex: false };
  }
  if (type === 'complex') {
    // fmt.Sscan of a complex128: two floats, the second ending in i.
    const m = /^([+-]?[^+-]*(?:[eEpP][+-][^+-]*)?)([+-].*)i$/.exec(text);
    if (!m || !goParsesFloat(m[1]!) || !goParsesFloat(m[2]!)) return { error: `expected integer` };
    return { ...realKinds(goParseFloat(m[1]!)!, goParseFloat(m[2]!) === 0), isComplex: true };
  }
  if (text.endsWith('i') && goParsesFloat(text.slice(0, -1))) return { ...realKinds(0, goParseFloat(text.slice(0, -1)) === 0), isComplex: true };
  const u = goParseUint(text);
  const i = goParseInt(text);
  const kinds = { isInt: i !== undefined, isUint: u !== undefined || i === 0n, isFloat: i !== undefined || u !== undefined, isComplex: false };
  const f = kinds.isFloat ? undefined : goParseFloat(text);
  if (f !== undefined) {
    if (!/[.eEpP]/.test(text)) return { error: `integer overflow: ${JSON.stringify(text)}` };
    return { isInt: Number.isInteger(f) && Math.abs(f) < 2 ** 63, isUint: Number.isInteger(f) && f >= 0 && f < 2 ** 64, isFloat: true, isComplex: false };
  }
  return kinds.isFloat ? kinds : { error: `illegal number syntax: ${JSON.stringify(text)}` };
}

/** simplifyComplex: a complex with no imaginary part is also the float (and the integers) of its real part. */
function realKinds(real: number, imaginaryZero: boolean): { isInt: boolean; isUint: boolean; isFloat: boolean } {
  if (!imaginaryZero) return { isInt: false, isUint: false, isFloat: false };
  return { isInt: Number.isInteger(real) && Math.abs(real) < 2 ** 63, isUint: Number.isInteger(real) && real >= 0 && real < 2 ** 64, isFloat: true };
}
