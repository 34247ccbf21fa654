/**
 * Go's flag package on MetalLB's controller and speaker (v0.16.1, as the repository's facts list them): a flag either
 * lacks stops it with exit 2; then, as each starts (exit 1), its log level, its TLS settings as internal/tlsconfig's
 * OptFor reads them (a version, cipher suites by name, none at TLS 1.3, curves by number, each once and known), the
 * controller's webhook mode and the speaker's BGP debounce timeout.
 */
import { describe, expect, it } from 'vitest';
import { goFlagRefusal } from '../../model/command-lines/go-flag.ts';
import { isGoFlagOptions, type GoFlagOptions } from '../../model/command-lines/go-flag-facts.ts';
import { programOptions } from '../../../test-support/program-options.ts';

const controller = programOptions<GoFlagOptions>('apps/platform/metallb/facts/images.yaml', 'controller');
const speaker = programOptions<GoFlagOptions>('apps/platform/metallb/facts/images.yaml', 'speaker');
// What metallb 0.16.1 renders with the repository's values.
const CONTROLLER = ['--port=7472', '--log-level=info', '--webhook-mode=enabled'];
const SPEAKER = ['--port=7472', '--log-level=info'];

describe("Go's flag package, on MetalLB's controller and speaker", () => {
  it("takes the chart's arguments, and TLS settings OptFor takes", () => {
    expect(isGoFlagOptions(controller) && isGoFlagOptions(speaker)).toBe(true);
    expect(goFlagRefusal(CONTROLLER, controller)).toBeUndefined();
    expect(goFlagRefusal(SPEAKER, speaker)).toBeUndefined();
    const tls = [
      '--tls-min-version=VersionTLS12',
      '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
      '--tls-curve-preferences=4588, 0029,23',
    ];
    expect(goFlagRefusal([...CONTROLLER, ...tls], controller)).toBeUndefined();
    expect(goFlagRefusal([...SPEAKER, ...tls, '--bgp-debounce-timeout=+3000'], speaker)).toBeUndefined();
  });

  it('refuses cipher suites at TLS 1.3, the default where no minimum version is given', () => {
    expect(goFlagRefusal([...SPEAKER, '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'], speaker)).toEqual({
      index: 2,
      message:
        '-tls-cipher-suites="TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" with -tls-min-version "" (its default): cipher suites cannot be configured with TLS 1.3',
      exit: 1,
    });
    expect(goFlagRefusal([...SPEAKER, '--tls-cipher-suites=TLS_AES_128_GCM_SHA256', '--tls-min-version=VersionTLS13'], speaker)).toMatchObject({
      index: 3,
      exit: 1,
    });
  });

  it('refuses a TLS version, a cipher suite or a curve OptFor does not take, as it starts', () => {
    expect(goFlagRefusal([...CONTROLLER, '--tls-min-version=1.2'], controller)).toMatchObject({
      index: 3,
      exit: 1,
      message: expect.stringMatching(/which takes one of "", VersionTLS10/),
    });
    expect(goFlagRefusal([...CONTROLLER, '--tls-min-version=VersionTLS12', '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM'], controller)).toMatchObject({
      index: 4,
      exit: 1,
    });
    // Empty between commas is a name it has not; 29 twice (0029 is 29); 4587 is Go 1.26's.
    expect(goFlagRefusal([...CONTROLLER, '--tls-min-version=VersionTLS12', '--tls-cipher-suites=TLS_AES_128_GCM_SHA256,'], controller)).toMatchObject({
      exit: 1,
    });
    expect(goFlagRefusal([...SPEAKER, '--tls-curve-preferences=29,23,0029'], speaker)).toMatchObject({ index: 2, exit: 1 });
    expect(goFlagRefusal([...SPEAKER, '--tls-curve-preferences=4587'], speaker)).toMatchObject({ index: 2, exit: 1 });
  });

  it("refuses the controller's webhook mode and the speaker's debounce timeout it does not take, and the other's flag", () => {
    expect(goFlagRefusal([...CONTROLLER.slice(0, 2), '--webhook-mode=on'], controller)).toEqual({
      index: 2,
      message: '"on" for -webhook-mode, which takes one of enabled, disabled, onlywebhook',
      exit: 1,
    });
    expect(goFlagRefusal([...SPEAKER, '--bgp-debounce-timeout=0'], speaker)).toMatchObject({ index: 2, exit: 1 });
    expect(goFlagRefusal([...SPEAKER, '--bgp-debounce-timeout=9223372036854775808'], speaker)).toMatchObject({ index: 2, exit: 1 });
    expect(goFlagRefusal([...SPEAKER, '--webhook-mode=enabled'], speaker)).toMatchObject({ index: 2, exit: 2 });
  });

  it('refuses a valued conflict whose default is not text', () => {
    const conflicts = [{ given: [], valued: [{ flag: '-tls-min-version', pattern: 'x', default: 1 as never }], says: 'x' }];
    expect(isGoFlagOptions({ ...speaker, conflicts })).toBe(false);
    expect(
      isGoFlagOptions({ ...speaker, conflicts: [{ given: [], valued: [{ flag: '-tls-min-version', pattern: 'x', any: true, default: '' }], says: 'x' }] }),
    ).toBe(false);
  });
});
