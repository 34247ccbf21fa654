/** The one "did you mean" (model/core/did-you-mean.ts), as every finding and usage error that suggests a name asks it. */
import { describe, expect, it } from 'vitest';
import { didYouMean, nearestName, onePartSlipped, oneSlipApart } from '../../model/core/did-you-mean.ts';

describe('did you mean', () => {
  it('suggests a likely slip: a transposition, a letter off, case aside; nothing for a far name', () => {
    expect(nearestName('nmae', ['name', 'namespace'])).toBe('name');
    expect(nearestName('tga', ['tag', 'repository'])).toBe('tag');
    expect(nearestName('Deploymnet', ['Deployment', 'DaemonSet'])).toBe('Deployment');
    expect(nearestName('monitorng', new Set(['monitoring', 'media']))).toBe('monitoring');
    expect(nearestName('ab', ['cd', 'xy'])).toBeUndefined();
    expect(nearestName('replicas', ['image', 'tag'])).toBeUndefined();
    expect(didYouMean('imgae', ['image'])).toBe(' (did you mean "image"?)');
    expect(didYouMean('zzz', [])).toBe('');
  });

  it('holds two names one keystroke apart: a letter changed, dropped, added, or two neighbours swapped; not the same name', () => {
    for (const [a, b] of [
      ['unpackesr', 'unpackerr'],
      ['unpackrr', 'unpackerr'],
      ['unpackerrr', 'unpackerr'],
      ['unpakcerr', 'unpackerr'],
      ['ab', 'ba'],
    ])
      expect(oneSlipApart(a!, b!), `${a} ${b}`).toBe(true);
    for (const [a, b] of [
      ['bazarr', 'radarr'],
      ['unpackerr', 'unpackerr'],
      ['abc', 'cba'],
      ['abcd', 'badc'],
    ])
      expect(oneSlipApart(a!, b!), `${a} ${b}`).toBe(false);
  });

  it('holds two names in parts one keystroke apart in one part alone', () => {
    expect(onePartSlipped(['status'], ['tsatus'])).toBe(true);
    expect(onePartSlipped(['ghcr.io', 'unpackerr', 'unpackesr'], ['ghcr.io', 'unpackerr', 'unpackerr'])).toBe(true);
    expect(onePartSlipped(['ghcr.io', 'unpackerx', 'unpackesr'], ['ghcr.io', 'unpackerr', 'unpackerr'])).toBe(false);
    expect(onePartSlipped(['status', 'x'], ['tsatus'])).toBe(false);
    expect(onePartSlipped(['status'], ['status'])).toBe(false);
  });
});
