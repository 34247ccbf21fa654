/** The volume sources that put files in a pod, as pkg/apis/core/validation judges them. */
import { describe, expect, it } from 'vitest';
import { fileSourceProblems } from '../../admission/validation/volume-sources.ts';

const problems = (v: Record<string, unknown>) => fileSourceProblems(v, ['volumes', 0], 'volume v').map((i) => `${i.path.join('.')}: ${i.message}`);

describe('validateVolumeSource: files', () => {
  it('a file mode at most 0777: a defaultMode or an item mode written as decimal 755 is refused, and said in octal', () => {
    expect(problems({ configMap: { name: 'c', defaultMode: 0o755 } })).toEqual([]);
    expect(problems({ configMap: { name: 'c', defaultMode: 755 } })).toEqual([
      'volumes.0.configMap.defaultMode: volume v: defaultMode 755 (01363 in octal): must be a number between 0 and 0777 (octal), both inclusive',
    ]);
    expect(problems({ secret: { secretName: 's', items: [{ key: 'k', path: 'p', mode: -1 }] } })).toEqual([
      'volumes.0.secret.items.0.mode: volume v: mode -1: must be a number between 0 and 0777 (octal), both inclusive',
    ]);
    expect(problems({ downwardAPI: { defaultMode: 512, items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' }, mode: 0o400 }] } })).toHaveLength(1);
  });

  it('the object named, and each item a key and a relative path', () => {
    expect(problems({ configMap: {} })).toEqual(['volumes.0.configMap.name: volume v: name: Required value']);
    expect(problems({ secret: { name: 's' } })).toEqual(['volumes.0.secret.secretName: volume v: secretName: Required value']);
    expect(problems({ configMap: { name: 'c', items: [{ key: 'k', path: '/etc/x' }] } })).toEqual([
      `volumes.0.configMap.items.0.path: volume v: path "/etc/x" must be relative and may not contain '..'`,
    ]);
  });

  it("a projection's sources: one kind each, no path twice, a token of at least ten minutes at a relative path", () => {
    const projected = (sources: unknown[]) => problems({ projected: { sources } });
    expect(
      projected([{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { configMap: { name: 'c', items: [{ key: 'ca', path: 'ca.crt' }] } }]),
    ).toEqual([]);
    expect(projected([{ serviceAccountToken: { path: 'token', expirationSeconds: 300 } }])).toEqual([
      'volumes.0.projected.sources.0.serviceAccountToken.expirationSeconds: volume v: expirationSeconds 300: may not specify a duration less than 10 minutes',
    ]);
    expect(
      projected([{ configMap: { name: 'a', items: [{ key: 'x', path: 'same' }] } }, { secret: { name: 'b', items: [{ key: 'y', path: 'same' }] } }]),
    ).toEqual(['volumes.0.projected.sources.1.secret.items.0.path: volume v: path "same": conflicting duplicate paths']);
    expect(projected([{ configMap: { name: 'a' }, secret: { name: 'b' } }])).toEqual([
      'volumes.0.projected.sources.0: volume v: may not specify more than 1 volume type per source (secret, configMap)',
    ]);
  });
});
