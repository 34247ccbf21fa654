/**
 * closure-traefik-flags: Traefik's flags held to its static configuration's options (model/traefik/options.ts), on
 * the real repository's proxies, rendered as a test gives them (judgedWithRender) and as their values stand.
 */
import { describe, expect, it } from 'vitest';
import { traefikFlagsCheck } from '../../checks/closure/traefik-flags.ts';
import { blockFlags, flagOf, knownFlag, meantOption, TRAEFIK_FLAG_BLOCKS, traefikOptions, type TraefikOptions } from '../../model/traefik/options.ts';
import { judgedWithRender } from '../support/chart-render.ts';
import { TRAEFIK_DOC_PAGES, traefikFlagCases } from '../../admission/upstream/traefik-flag-cases.ts';

const reference = traefikOptions({
  version: '3.7.9',
  options: [
    'log.level',
    'tracing.otlp.grpc.insecure',
    'tracing.otlp.grpc.tls.insecureskipverify',
    'entrypoints._name_',
    'entrypoints._name_.address',
    'entrypoints._name_.http.tls.domains[0].main',
    'providers.plugin._name_',
  ],
}) as TraefikOptions;

describe("Traefik's options", () => {
  it('knows an option, a struct on the way to one, a map key and a list index, case aside', () => {
    for (const flag of [
      'log.level',
      'LOG.Level',
      'tracing.otlp',
      'tracing.otlp.grpc.tls',
      'entryPoints.web.address',
      'entrypoints.websecure.http.tls.domains[0].main',
    ])
      expect(knownFlag(flag, reference), flag).toBe(true);
  });
  it('takes anything under a map the reference ends at, and nothing under a field', () => {
    expect(knownFlag('providers.plugin.mine.a.b', reference)).toBe(true);
    expect(knownFlag('log.level.extra', reference)).toBe(false);
    expect(knownFlag('entrypoints.web', reference)).toBe(true);
    // entrypoints._name_ is a row of its own, and the longer rows say what an entry point has.
    expect(knownFlag('entrypoints.web.adress', reference)).toBe(false);
  });
  it('refuses a name no field has, and names the option one slip away, written as the flag writes the rest', () => {
    expect(knownFlag('log.levle', reference)).toBe(false);
    expect(meantOption('log.levle', reference)).toBe('log.level');
    expect(meantOption('entryPoints.web.adress', reference)).toBe('entryPoints.web.address');
    expect(meantOption('tracing.otlp.grpc.insceure', reference)).toBe('tracing.otlp.grpc.insecure');
    expect(meantOption('tracing.otlp.grpc.timeout', reference)).toBeUndefined();
  });
  it("splits an argument as paerser's parser does", () => {
    expect(flagOf('--log.level=DEBUG')).toEqual({ name: 'log.level', value: 'DEBUG' });
    expect(flagOf('-ping')).toEqual({ name: 'ping' });
    expect(flagOf('--a=b=c')).toEqual({ name: 'a', value: 'b=c' });
    expect(flagOf('serve')).toBeUndefined();
    expect(flagOf('---x')).toBeUndefined();
  });
  it("writes an OTLP block's keys as the chart's helper does: maps walked, enabled and empty values left out", () => {
    const grpc = TRAEFIK_FLAG_BLOCKS.find((b) => b.flag === 'tracing.otlp.grpc')!;
    const values = { tracing: { otlp: { grpc: { enabled: true, endpoint: 'tempo:4317', insecure: false, headers: { a: 'b' }, tls: { ca: '' } } } } };
    expect(blockFlags(values, grpc)).toEqual([
      { flag: 'tracing.otlp.grpc.endpoint', path: ['tracing', 'otlp', 'grpc', 'endpoint'] },
      { flag: 'tracing.otlp.grpc.insecure', path: ['tracing', 'otlp', 'grpc', 'insecure'] },
      { flag: 'tracing.otlp.grpc.headers.a', path: ['tracing', 'otlp', 'grpc', 'headers', 'a'] },
    ]);
  });
  it('reads a reference with a version and options, and says what a broken one lacks', () => {
    expect(traefikOptions({ version: '3.7.9', options: [] })).toEqual({ problem: expect.stringContaining('needs version and options') });
    expect(traefikOptions({ options: ['a'] })).toHaveProperty('problem');
  });
});

const traefik = (tag: string, args: string[]) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'traefik-public', namespace: 'ingress' },
  spec: { template: { spec: { containers: [{ name: 'traefik', image: `docker.io/traefik:${tag}`, args }] } } },
});
const rendered = (tag: string, args: string[]) =>
  judgedWithRender(traefikFlagsCheck, { app: 'ingress-public', chart: 'traefik', namespace: 'ingress' }, [traefik(tag, args)]);

describe('closure-traefik-flags on a rendered proxy', () => {
  const real = [
    '--entryPoints.web.address=:8000/tcp',
    '--tracing.otlp=true',
    '--tracing.otlp.grpc.endpoint=tempo.monitoring.svc:4317',
    '--providers.kubernetescrd',
  ];

  it("passes the flags the real chart writes for the repository's values", async () => {
    expect(await rendered('v3.7.9', real)).toEqual({ failed: [], notJudged: [] });
  });
  it('fails a flag one slip from an option at any version, with the option meant', async () => {
    const { failed } = await rendered('v3.7.11', [...real, '--log.levle=DEBUG']);
    expect(failed).toEqual([expect.stringContaining('flag --log.levle names no option of Traefik 3.7.9\'s static configuration (did you mean "log.level"?)')]);
  });
  it("fails a flag far from every option where the proxy runs the reference's version, and says another version not judged", async () => {
    expect((await rendered('v3.7.9', [...real, '--tracing.otlp.grpc.timeout=5s'])).failed).toEqual([expect.stringContaining('exits at start')]);
    const other = await rendered('v3.8.0', [...real, '--tracing.otlp.grpc.timeout=5s']);
    expect(other.failed).toEqual([]);
    expect(other.notJudged).toEqual([expect.stringContaining('the chart runs Traefik 3.8.0: whether that Traefik has it is not judged')]);
  });
});

describe("Traefik's docs' command-line examples (npm run conformance -- --traefik)", () => {
  it('reads each flag of a CLI tab as one Traefik takes, and no other tab', () => {
    const text = '```yaml tab="File (YAML)"\nlog:\n  level: DEBUG\n```\n\n```bash tab="CLI"\n--log.level=DEBUG\n--log.levle=INFO\n```\n';
    const table = traefikFlagCases([{ name: 'docs/content/observability/logs.md', text }], reference);
    expect(table.cases.map((c) => [c.test, c.name, c.judge(), c.want])).toEqual([
      ['observability/logs.md', 'log.level', 'takes', 'takes'],
      ['observability/logs.md', 'log.levle', 'refuses (did you mean "log.level"?)', 'takes'],
    ]);
  });
  it('reads no migration guide, whose flags are older versions', () => {
    expect(TRAEFIK_DOC_PAGES.test('docs/content/migrate/v2-to-v3.md')).toBe(false);
    expect(TRAEFIK_DOC_PAGES.test('docs/content/reference/install-configuration/observability/tracing.md')).toBe(true);
  });
});
