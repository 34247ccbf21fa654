/**
 * A plain scalar as go-yaml v2 reads it (resolve.go at v2.4.0, which go.yaml.in/yaml/v2 2.4.3 carries unchanged: the
 * booleans of its resolve map, then for a scalar that starts with a digit or a sign its underscores dropped and
 * strconv.ParseInt/ParseUint with base 0, else its float form), where YAML 1.2's core schema reads it otherwise; and
 * a manifest that writes one, read as the API server receives it and said at its line.
 */
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../model/core/manifest.ts';
import { yaml11Value } from '../../model/yaml/yaml11.ts';

describe('a plain scalar YAML 1.1 reads otherwise', () => {
  it.each([
    ['yes', true],
    ['Off', false],
    ['y', true],
    ['N', false],
    ['0755', 493],
    ['-0755', -493],
    ['010', 8],
    ['1_000', 1000],
    ['1__0', 10],
    ['0x_1F', 31],
    ['1_0.5', 10.5],
    ['0b101', 5],
    ['-0b101', -5],
    ['+0x1F', 31],
    ['-0x1F', -31],
  ])('%s is %s', (source, value) => {
    expect(yaml11Value(source)).toBe(value);
  });

  it.each(['true', 'False', 'NULL', '0x1F', '0o17', '08', '0009', '0.5', '0', '-0', '12', '1e3', '_1', '1_a', '0b2', 'abc', 'yesno', '18446744073709551616'])(
    '%s is read alike',
    (source) => {
      expect(yaml11Value(source)).toBeUndefined();
    },
  );
});

describe('a manifest that writes one', () => {
  it('is read as the API server receives it, and said at its line', () => {
    const parsed = parseManifest(
      'd.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1_0\n  revisionHistoryLimit: 0b11\n',
    );
    expect((parsed.resources[0]!.object.spec as Record<string, unknown>).replicas).toBe(10);
    expect(parsed.findings.map((f) => [f.check, f.line, f.message])).toEqual([
      ['yaml-1.1-scalar', 6, 'plain 1_0 is the number 10 to Helm and Kubernetes (YAML 1.1) but the string "1_0" in YAML 1.2; write 10 or "1_0"'],
      ['yaml-1.1-scalar', 7, 'plain 0b11 is the number 3 to Helm and Kubernetes (YAML 1.1) but the string "0b11" in YAML 1.2; write 3 or "0b11"'],
    ]);
  });
});
