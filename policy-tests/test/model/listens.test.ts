/**
 * Where a program listens (model/programs/listens.ts): a bind address's reach, a port as the program reads it, and
 * Node's inspector as NODE_OPTIONS starts it (each case as Node 24.21 itself listened, 2026-12-06: docs/admission.md).
 */
import { describe, expect, it } from 'vitest';
import { bindReach, LISTENS_FIELD, nodeInspector, optionValue, optionValues, portValue } from '../../model/programs/listens.ts';

describe('bindReach', () => {
  it('reads the wildcard addresses as every address of the pod, loopback as loopback, and another address as one', () => {
    for (const all of ['0.0.0.0', '::', '[::]']) expect(bindReach(all), all).toBe('all');
    for (const loop of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', '[::1]']) expect(bindReach(loop), loop).toBe('loopback');
    expect(bindReach('10.0.0.1')).toBe('one');
    expect(bindReach('api.local')).toBe('unknown');
  });
});

describe('portValue', () => {
  it('reads a whole number from 1 to 65535, spaces around it aside', () => {
    expect(portValue('3000')).toBe(3000);
    expect(portValue(' 3000 ')).toBe(3000);
    for (const bad of ['0', '65536', '3.5', 'abc', '', '-1']) expect(portValue(bad), bad).toBeUndefined();
  });
});

describe('nodeInspector', () => {
  it('starts with --inspect, --inspect-brk or --inspect-wait, on 127.0.0.1:9229 unless a value or --inspect-port says otherwise', () => {
    expect(nodeInspector('--inspect')).toEqual({ host: '127.0.0.1', port: 9229 });
    expect(nodeInspector('--inspect=0.0.0.0:9230')).toEqual({ host: '0.0.0.0', port: 9230 });
    expect(nodeInspector('--inspect=9300')).toEqual({ host: '127.0.0.1', port: 9300 });
    expect(nodeInspector('--inspect=[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(nodeInspector('--max-old-space-size=100 --inspect-brk=127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(nodeInspector('--inspect-wait=127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    // --inspect-port names the address, the last word that names one wins, and a quoted word is one word.
    expect(nodeInspector('--inspect-port=127.0.0.1:0 --inspect')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(nodeInspector('--inspect=127.0.0.3:0 --inspect-port=127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(nodeInspector('--inspect=127.0.0.4:0 --inspect=127.0.0.5:0')).toEqual({ host: '127.0.0.5', port: 0 });
    expect(nodeInspector('"--inspect=127.0.0.1:0"')).toEqual({ host: '127.0.0.1', port: 0 });
  });
  it('does not start without one of them', () => {
    expect(nodeInspector('--max-old-space-size=100')).toBeUndefined();
    expect(nodeInspector('--inspect-port=127.0.0.1:0')).toBeUndefined();
    expect(nodeInspector('')).toBeUndefined();
  });
});

describe('LISTENS_FIELD', () => {
  it('takes a fixed port (a default without a variable), and refuses a port variable that is no name or a default that is no port', () => {
    expect(LISTENS_FIELD.valid([{ default: 32400 }, { port: 'PORT', default: 11011, address: 'HOST', addressDefault: '0.0.0.0' }])).toBe(true);
    expect(LISTENS_FIELD.valid([{ listen: 'UP_PROMETHEUS_HTTP_LISTEN', default: 9130, addressDefault: '0.0.0.0' }])).toBe(true);
    expect(LISTENS_FIELD.valid([{ option: '--server.http.listen-addr', default: 12345, addressDefault: '127.0.0.1' }])).toBe(true);
    for (const bad of [
      [{ port: 'not a name', default: 80 }],
      [{ default: 0 }],
      [{ port: 'PORT' }],
      [{ default: '80' }],
      [],
      [{ listen: 'LISTEN', port: 'PORT', default: 80 }],
      [{ listen: 'LISTEN', address: 'HOST', default: 80 }],
      [{ option: 'web.listen-address', default: 80 }],
      [{ option: '--web', listen: 'LISTEN', default: 80 }],
      [{ option: '--web', port: 'PORT', default: 80 }],
    ])
      expect(LISTENS_FIELD.valid(bad), JSON.stringify(bad)).toBe(false);
  });
});

describe('optionValue', () => {
  it('reads --opt=value and --opt value, the last one given, up to --', () => {
    const opt = '--web.listen-address';
    expect(optionValue(['--config.file=/x'], opt)).toBeUndefined();
    expect(optionValue([`${opt}=:9222`], opt)).toBe(':9222');
    expect(optionValue([opt, '[::]:9223', '--config.file=/x'], opt)).toBe('[::]:9223');
    expect(optionValue([`${opt}=:1`, opt, ':2'], opt)).toBe(':2');
    expect(optionValue(['--', `${opt}=:1`], opt)).toBeUndefined();
    // Another option that starts with the same letters is not this one.
    expect(optionValue([`${opt}-v6=:1`], opt)).toBeUndefined();
    expect(optionValue([opt], opt)).toBeUndefined();
    expect(optionValue([1, `${opt}=:1`], opt)).toBeNull();
  });

  it('reads every value of a list option in order (optionValues), and takes every only with an option', () => {
    const opt = '--web.listen-address';
    expect(optionValues([`${opt}=:1`, '--x', opt, ':2', '--', `${opt}=:3`], opt)).toEqual([':1', ':2']);
    expect(optionValues([], opt)).toEqual([]);
    expect(LISTENS_FIELD.valid([{ option: opt, every: true, default: 9116 }])).toBe(true);
    expect(LISTENS_FIELD.valid([{ port: 'PORT', every: true, default: 9116 }])).toBe(false);
    expect(LISTENS_FIELD.valid([{ option: opt, every: 'yes', default: 9116 }])).toBe(false);
  });

  it('takes a switch a listener runs under, and older port-only names only beside listen', () => {
    const when = { variable: 'HTTPPROXY', aliases: ['PROXY'], on: ['on', 'yes'], default: 'off' };
    expect(LISTENS_FIELD.valid([{ listen: 'ADDR', portAliases: ['PORT'], default: 8888, when }])).toBe(true);
    expect(LISTENS_FIELD.valid([{ default: 53, when: { variable: 'DOT', on: ['on'] } }])).toBe(true);
    expect(LISTENS_FIELD.valid([{ port: 'P', portAliases: ['PORT'], default: 8888 }])).toBe(false);
    expect(LISTENS_FIELD.valid([{ default: 53, when: { variable: 'DOT', on: ['On'] } }])).toBe(false);
    expect(LISTENS_FIELD.valid([{ default: 53, when: { variable: 'DOT', on: [] } }])).toBe(false);
    expect(LISTENS_FIELD.valid([{ default: 53, when: { variable: 'DOT', on: ['on'], extra: 1 } }])).toBe(false);
  });
});
