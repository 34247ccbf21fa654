/**
 * Go's text/template parser as the gate ports it (model/go/template-*.ts) and the strconv literals under it
 * (model/go/strconv.ts): what parses, what is refused and in which words, and what a number constant is.
 */
import { describe, expect, it } from 'vitest';
import { TEXT_TEMPLATE_BUILTINS, templateParseError } from '../../model/go/template-parse.ts';
import { templateNumber } from '../../model/go/template-number.ts';
import { lexTemplate } from '../../model/go/template-lex.ts';
import { goParseFloat, goParseInt, goParseUint, goUnquote, goUnquoteRunes } from '../../model/go/strconv.ts';

const FUNCS = new Set([...TEXT_TEMPLATE_BUILTINS, 'humanize', 'toUpper']);
const parse = (text: string, funcs: ReadonlySet<string> = FUNCS) => templateParseError('t', text, funcs);

describe("Go's text/template parser", () => {
  it('parses what Prometheus alert templates write', () => {
    for (const ok of [
      'Instance {{ $labels.instance }} is down',
      '{{ $value | humanize }}% full',
      '{{ if gt $value 1.0 }}high{{ else if lt $value 0.5 }}low{{ else }}mid{{ end }}',
      '{{ range $i, $e := . }}{{ if $i }}, {{ end }}{{ $e }}{{ break }}{{ end }}',
      '{{- /* a comment */ -}} {{ printf "%.2f" 1.5 }}',
      '{{ with .X }}a{{ else with .Y }}b{{ end }}',
      '{{ define "x" }}in{{ end }}{{ template "x" . }}',
      "{{ 'a' }} {{ 0x1p-2 }} {{ 1_000 }} {{ -1.5e3 }} {{ 1+2i }}",
      '{{ (toUpper "a") | printf "%s" }}',
      '{{ $x := 1 }}{{ $x = 2 }}{{ $x }}',
    ])
      expect(parse(`{{$labels := .Labels}}{{$value := .Value}}${ok}`), ok).toBeUndefined();
  });

  it("refuses what Go refuses, in Go's words, with the line", () => {
    expect(parse('{{ $value := 1 }}{{ $value | humanise }}')).toBe('template: t:1: function "humanise" not defined');
    expect(parse('{{ $label.x }}')).toBe('template: t:1: undefined variable "$label"');
    expect(parse('a\n{{ .X ')).toBe('template: t:2: unclosed action');
    expect(parse('{{ break }}')).toBe('template: t:1: {{break}} outside {{range}}');
    expect(parse('{{ if }}x{{ end }}')).toBe('template: t:1: missing value for if');
    expect(parse('{{ end }}')).toBe('template: t:1: unexpected {{end}}');
    expect(parse('{{ range .X }}x')).toBe('template: t:1: unexpected EOF');
    expect(parse('{{ 1 | 2 }}')).toBe('template: t:1: non executable command in pipeline stage 2');
    expect(parse("{{ 'ab' }}")).toBe("template: t:1: malformed character constant: 'ab'");
    expect(parse('{{ 1__0 }}')).toBe('template: t:1: illegal number syntax: "1__0"');
    expect(parse('{{ 99999999999999999999 }}')).toBe('template: t:1: integer overflow: "99999999999999999999"');
    expect(parse('{{ "\\q" }}')).toBe('template: t:1: invalid syntax');
    expect(parse('{{ print “x“ }}')).toBe("template: t:1: unrecognized character in action: U+201C '“'");
    expect(parse('{{ .X $x := 1 }}')).toMatch(/undefined variable "\$x"/);
    expect(parse('{{define "a"}}x{{end}}{{define "a"}}y{{end}}')).toMatch(/multiple definition of template "a"/);
    // An action left open across lines names the line it started on.
    expect(parse('{{ "x"\n"y"\n')).toBe('template: t:3: unclosed action started at t:1');
    // Only "if" chains after else in an if, "with" in a with (Go 1.23); a range has neither.
    expect(parse('{{ range .X }}a{{ else if .Y }}b{{ end }}')).toBe('template: t:1: unexpected <if> in input');
    expect(parse('{{ with .X }}a{{ else if .Y }}b{{ end }}')).toBe('template: t:1: unexpected <if> in input');
  });

  it('takes break and continue as functions where the template defines them so', () => {
    expect(parse('{{ break }}', new Set(['break']))).toBeUndefined();
  });

  it('lexes trim markers, keeping a number after {{- apart', () => {
    expect(lexTemplate('a {{- .X -}} b').map((i) => i.type)).toEqual(['text', 'leftDelim', 'field', 'rightDelim', 'text', 'eof']);
    expect(lexTemplate('{{-3}}').map((i) => [i.type, i.val])).toContainEqual(['number', '-3']);
  });
});

describe("text/template's numbers (newNumber) and strconv's literals", () => {
  it('gives each constant the kinds Go gives it', () => {
    expect(templateNumber('-0', 'number')).toEqual({ isInt: true, isUint: true, isFloat: true, isComplex: false });
    expect(templateNumber('1e19', 'number')).toEqual({ isInt: false, isUint: true, isFloat: true, isComplex: false });
    expect(templateNumber('0x_1p4', 'number')).toEqual({ isInt: true, isUint: true, isFloat: true, isComplex: false });
    expect(templateNumber('13+0i', 'complex')).toEqual({ isInt: true, isUint: true, isFloat: true, isComplex: true });
    expect(templateNumber('4i', 'number')).toEqual({ isInt: false, isUint: false, isFloat: false, isComplex: true });
    expect(templateNumber("'\\n'", 'charConstant')).toMatchObject({ isInt: true });
    expect(templateNumber('0x123.', 'number')).toEqual({ error: 'illegal number syntax: "0x123."' });
  });

  it('reads literals as strconv does', () => {
    expect(goUnquote('"a\\tb\\u00e9"')).toBe('a\tbé');
    expect(goUnquote('`a\\n`')).toBe('a\\n');
    expect(goUnquote("'x'")).toBe('x');
    for (const bad of ['"\\q"', '"\\\'"', "'xy'", "''", '"a', '"\\uD800"', '"\\400"']) expect(goUnquote(bad), bad).toBeUndefined();
    expect(goUnquoteRunes("it\\'s", "'")).toBe("it's");
    expect(goParseUint('0b1_0')).toBe(2n);
    expect(goParseUint('18446744073709551616')).toBeUndefined();
    expect(goParseInt('-9223372036854775808')).toBe(-(2n ** 63n));
    expect(goParseInt('9223372036854775808')).toBeUndefined();
    expect(goParseInt('0_1')).toBe(1n);
    expect(goParseFloat('1_000.5')).toBe(1000.5);
    expect(goParseFloat('1e400')).toBeUndefined();
    expect(goParseFloat('0x1.8p1')).toBe(3);
    expect(goParseFloat('0x1.8')).toBeUndefined();
    expect(goParseFloat('_1')).toBeUndefined();
  });
});
