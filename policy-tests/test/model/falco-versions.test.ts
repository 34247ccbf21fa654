/** Where falcoctl artifact follow asks Falco's versions, held to Falco's webserver as model/falco/falco-versions.ts reads both. */
import { describe, expect, it } from 'vitest';
import { FALCO_VERSIONS_DEFAULT, falcoWebserver, versionsMiss } from '../../model/falco/falco-versions.ts';

const chart = falcoWebserver({ webserver: { enabled: true, listen_address: '0.0.0.0', listen_port: 8765, ssl_enabled: false } })!;

describe("falcoctl follow's versions URL against Falco's webserver", () => {
  it("reads the webserver as Falco does: off, 0.0.0.0 and 8765 unset, yaml-cpp's booleans, and no reading of a value it cannot", () => {
    expect(falcoWebserver({})).toEqual({ enabled: false, port: 8765, address: '0.0.0.0', ssl: false });
    expect(falcoWebserver({ webserver: { enabled: 'on', listen_port: '8766', ssl_enabled: 'No' } })).toEqual({
      enabled: true,
      port: 8766,
      address: '0.0.0.0',
      ssl: false,
    });
    expect(falcoWebserver({ webserver: { enabled: 'maybe' } })).toBeUndefined();
    expect(falcoWebserver({ webserver: { enabled: true, listen_port: 'http' } })).toBeUndefined();
  });

  it("takes falcoctl's default against the chart's webserver, and loopback in any spelling", () => {
    expect(versionsMiss(FALCO_VERSIONS_DEFAULT, chart)).toBeUndefined();
    expect(versionsMiss('http://127.0.0.1:8765/versions?x=1', chart)).toBeUndefined();
    expect(versionsMiss('HTTP://LOCALHOST:8765/versions', chart)).toBeUndefined();
  });

  it('says what the URL misses: the port, the webserver off, the scheme either way, the path', () => {
    expect(versionsMiss(FALCO_VERSIONS_DEFAULT, { ...chart, port: 8766 })).toEqual({
      why: 'serves on port 8766 (webserver.listen_port), not 8765',
      setting: 'listen_port',
    });
    expect(versionsMiss(FALCO_VERSIONS_DEFAULT, { ...chart, enabled: false })).toMatchObject({ setting: 'enabled' });
    expect(versionsMiss(FALCO_VERSIONS_DEFAULT, { ...chart, ssl: true })).toMatchObject({ setting: 'ssl_enabled', why: expect.stringMatching(/HTTPS alone/) });
    expect(versionsMiss('https://localhost:8765/versions', chart)).toMatchObject({ setting: 'ssl_enabled', why: expect.stringMatching(/TLS handshake/) });
    expect(versionsMiss('http://localhost/versions', chart)).toMatchObject({ setting: 'listen_port', why: expect.stringMatching(/not 80$/) });
    expect(versionsMiss('http://localhost:8765/versions/', chart)).toMatchObject({ setting: 'path' });
    expect(versionsMiss('http://localhost:8765', chart)).toMatchObject({ setting: 'path', why: expect.stringMatching(/not \//) });
  });

  it('leaves unjudged another host, an address loopback may not reach, HTTPS to HTTPS, and what is no http URL', () => {
    expect(versionsMiss('http://falco.security.svc:8765/versions', chart)).toMatchObject({ unjudged: expect.stringMatching(/another host/) });
    expect(versionsMiss(FALCO_VERSIONS_DEFAULT, { ...chart, address: '10.0.0.5' })).toMatchObject({ unjudged: expect.stringMatching(/10\.0\.0\.5/) });
    expect(versionsMiss('https://localhost:8765/versions', { ...chart, ssl: true })).toMatchObject({ unjudged: expect.stringMatching(/certificate/) });
    expect(versionsMiss('/etc/falco/versions.json', chart)).toMatchObject({ unjudged: expect.any(String) });
  });
});
