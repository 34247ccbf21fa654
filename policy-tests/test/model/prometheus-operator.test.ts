/**
 * What the Prometheus operator refuses of a ServiceMonitor, PodMonitor or Probe (model/prometheus-operator/): its
 * relabel rules under each Prometheus version's scheme, a scrape timeout past the interval, a scrape class, a
 * Probe's prober URL; and the reader of its validator tests.
 */
import { describe, expect, it } from 'vitest';
import { monitorVerdict } from '../../model/prometheus-operator/monitors.ts';
import { prometheusFields, promVersion, relabelListError, relabelRuleError, type PromVersion } from '../../model/prometheus-operator/relabel.ts';
import { relabelAgreement, relabelCases } from '../../admission/upstream/prometheus-rule-cases.ts';

const V3: PromVersion = [3, 14, 0];
const V2_30: PromVersion = [2, 30, 0];
const fields = prometheusFields({ scrapeInterval: '30s', scrapeClasses: [{ name: 'tls' }] });
/** The monitor's namespace: Secret metrics-tls holds tls.crt, tls.key and ca.crt; nothing else is known. */
const env = {
  prometheus: fields,
  keysOf: (kind: string, name: string) => (kind === 'Secret' && name === 'metrics-tls' ? new Set(['tls.crt', 'tls.key', 'ca.crt']) : undefined),
};

describe("the operator's relabel rule validator", () => {
  it('accepts the rules the repository writes and Prometheus takes', () => {
    for (const rule of [
      { targetLabel: 'job', replacement: 'exportarr-sonarr' },
      { sourceLabels: ['__name__'], regex: 'sonarr_(queue|episode).*', action: 'keep' },
      { action: 'labeldrop', regex: 'pod_template_hash' },
      { action: 'hashmod', sourceLabels: ['__address__'], targetLabel: '__tmp_hash', modulus: 4 },
      { action: 'Lowercase', targetLabel: 'instance' },
      { action: 'labelmap', regex: '__meta_kubernetes_pod_label_(.+)', replacement: '${1}' },
    ])
      expect(relabelRuleError(rule, V3), JSON.stringify(rule)).toBeUndefined();
  });

  it('refuses what the operator refuses, in its words', () => {
    expect(relabelRuleError({ regex: 'sonarr_(queue' }, V3)).toMatch(/^invalid regex sonarr_\(queue for relabel configuration: /);
    expect(relabelRuleError({ action: 'hashmod', targetLabel: 'x' }, V3)).toBe('relabel configuration for hashmod requires non-zero modulus');
    expect(relabelRuleError({ action: 'replace' }, V3)).toBe('relabel configuration for replace action needs targetLabel value');
    expect(relabelRuleError({ action: 'uppercase', targetLabel: 'x', replacement: 'y' }, V3)).toBe("'replacement' can not be set for uppercase action");
    expect(relabelRuleError({ action: 'labeldrop', regex: 'x', targetLabel: 'y' }, V3)).toBe("labeldrop action requires only 'regex', and no other fields");
    expect(relabelRuleError({ action: 'keepequal', targetLabel: 'x', regex: 'y' }, V3)).toBe(
      "keepequal action requires only 'source_labels' and `target_label`, and no other fields",
    );
    // Legacy names before Prometheus 3, and actions their versions lack.
    expect(relabelRuleError({ targetLabel: 'team-name' }, V2_30)).toBe('"team-name" is invalid \'target_label\' for replace action');
    expect(relabelRuleError({ targetLabel: 'team-name' }, V3)).toBeUndefined();
    expect(relabelRuleError({ action: 'lowercase', targetLabel: 'x' }, V2_30)).toBe(
      'lowercase relabel action is only supported from Prometheus version 2.36.0',
    );
    expect(relabelListError([{ targetLabel: 'a' }, { regex: '(' }], V3)).toMatchObject({
      path: [1, 'regex'],
      message: expect.stringMatching(/^\[1\]: invalid regex/),
    });
    expect(promVersion('v3.14.0-distroless')).toEqual([3, 14, 0]);
  });
});

describe('what the operator skips of a monitor', () => {
  it('refuses a scrape timeout past the interval, its own or the Prometheus default', () => {
    const monitor = (endpoint: object) => monitorVerdict('ServiceMonitor', { selector: {}, endpoints: [{ port: 'http', ...endpoint }] }, env);
    expect(monitor({ interval: '60s', scrapeTimeout: '90s' })).toEqual({
      refused: { path: ['spec', 'endpoints', 0, 'scrapeTimeout'], message: 'endpoints[0]: scrapeTimeout "90s" greater than scrapeInterval "60s"' },
    });
    expect(monitor({ scrapeTimeout: '45s' })).toMatchObject({ refused: { message: 'endpoints[0]: scrapeTimeout "45s" greater than scrapeInterval "30s"' } });
    expect(monitor({ interval: '60s', scrapeTimeout: '45s' })).toBeUndefined();
    // A Secret whose keys the repository cannot say: the operator's read of it is not judged.
    expect(monitor({ basicAuth: { username: { name: 's', key: 'u' }, password: { name: 's', key: 'p' } } })).toEqual({
      notJudged: {
        path: ['spec', 'endpoints', 0, 'basicAuth', 'username'],
        message: 'whether Secret s holds key u, which the operator reads, is not known here',
      },
    });
  });

  it('refuses a selector apimachinery cannot build, a scrape class the Prometheus lacks, a file a Prometheus denies', () => {
    expect(monitorVerdict('PodMonitor', { selector: { matchExpressions: [{ key: 'a', operator: 'In' }] }, podMetricsEndpoints: [] }, env)).toMatchObject({
      refused: { path: ['spec', 'selector'] },
    });
    expect(monitorVerdict('ServiceMonitor', { selector: {}, endpoints: [], scrapeClassName: 'mtls' }, env)).toMatchObject({
      refused: { message: 'scrapeClassName: scrapeClass "mtls" not found in Prometheus scrapeClasses' },
    });
    expect(monitorVerdict('ServiceMonitor', { selector: {}, endpoints: [], scrapeClassName: 'tls' }, env)).toBeUndefined();
    const deny = prometheusFields({ arbitraryFSAccessThroughSMs: { deny: true } });
    expect(
      monitorVerdict('ServiceMonitor', { selector: {}, endpoints: [{ bearerTokenFile: '/var/run/token' }] }, { prometheus: deny, keysOf: () => undefined }),
    ).toMatchObject({
      refused: { path: ['spec', 'endpoints', 0, 'bearerTokenFile'] },
    });
  });

  it("judges the HTTP client's settings as the operator validates them, and the keys its store reads", () => {
    const monitor = (endpoint: object) => monitorVerdict('ServiceMonitor', { selector: {}, endpoints: [{ port: 'http', ...endpoint }] }, env);
    const secret = (key: string) => ({ name: 'metrics-tls', key });
    expect(monitor({ basicAuth: { username: secret('tls.crt'), password: secret('tls.key') }, bearerTokenSecret: secret('ca.crt') })).toMatchObject({
      refused: {
        path: ['spec', 'endpoints', 0, 'bearerTokenSecret'],
        message: 'endpoints[0]: basicAuth and bearerTokenSecret cannot be configured at the same time',
      },
    });
    expect(monitor({ authorization: { type: 'Basic', credentials: secret('ca.crt') } })).toMatchObject({
      refused: { message: `endpoints[0]: authorization: 'authorization' type cannot be set to "basic", use "basicAuth" instead` },
    });
    expect(monitor({ authorization: { type: 'Bearer' } })).toMatchObject({
      refused: { message: "endpoints[0]: authorization: 'authorization' credentials are required" },
    });
    expect(monitor({ oauth2: { clientId: { secret: secret('ca.crt') }, clientSecret: secret('tls.key') } })).toMatchObject({
      refused: { message: 'endpoints[0]: oauth2: OAuth2 tokenURL must be specified' },
    });
    expect(monitor({ noProxy: 'localhost' })).toMatchObject({
      refused: { message: 'endpoints[0]: if noProxy is configured, proxyUrl must also be configured' },
    });
    expect(monitor({ basicAuth: { username: secret('tls.crt'), password: secret('password') } })).toEqual({
      refused: {
        path: ['spec', 'endpoints', 0, 'basicAuth', 'password'],
        message: 'endpoints[0]: basicAuth: failed to get basic auth password: key "password" in secret "metrics-tls" not found',
      },
    });
    expect(monitor({ authorization: { credentials: secret('token') } })).toMatchObject({
      refused: { message: 'endpoints[0]: authorization: failed to get authorization token of type "Bearer": key "token" in secret "metrics-tls" not found' },
    });
    expect(monitor({ authorization: { credentials: secret('ca.crt') } })).toBeUndefined();
  });

  it('judges a TLS configuration, and the keys of the Secrets it names where the repository says them', () => {
    const tls = (tlsConfig: object, kind = 'ServiceMonitor') =>
      monitorVerdict(kind, { selector: {}, [kind === 'PodMonitor' ? 'podMetricsEndpoints' : 'endpoints']: [{ port: 'https', tlsConfig }] }, env);
    expect(tls({ caFile: '/etc/ca.crt', insecureSkipVerify: true })).toBeUndefined();
    expect(tls({ ca: { secret: { name: 'metrics-tls', key: 'ca.crt' } }, caFile: '/etc/ca.crt' })).toMatchObject({
      refused: { message: "endpoints[0]: tlsConfig: cannot specify both 'caFile' and 'ca'" },
    });
    expect(tls({ certFile: '/etc/tls.crt' })).toMatchObject({ refused: { message: 'endpoints[0]: tlsConfig: cannot specify client cert without client key' } });
    expect(tls({ cert: { secret: { name: 'metrics-tls', key: 'tls.crt' } } }, 'PodMonitor')).toMatchObject({
      refused: { message: 'podMetricsEndpoints[0]: tlsConfig: client cert specified without client key' },
    });
    expect(tls({ ca: { secret: { name: 'metrics-tls', key: 'ca.crt' } } })).toBeUndefined();
    expect(tls({ ca: { secret: { name: 'metrics-tls', key: 'ca.pem' } } })).toEqual({
      refused: {
        path: ['spec', 'endpoints', 0, 'tlsConfig', 'ca', 'secret'],
        message: 'endpoints[0]: tlsConfig: key "ca.pem" in secret "metrics-tls" not found',
      },
    });
    expect(tls({ ca: { configMap: { name: 'elsewhere', key: 'ca.crt' } } })).toEqual({
      notJudged: {
        path: ['spec', 'endpoints', 0, 'tlsConfig', 'ca', 'configMap'],
        message: 'whether ConfigMap elsewhere holds key ca.crt, which the operator reads, is not known here',
      },
    });
  });

  it("refuses a Probe's prober URL with a scheme, and its relabel rules as a monitor's", () => {
    const probe = (spec: object) => monitorVerdict('Probe', { prober: { url: 'blackbox:9115' }, ...spec }, env);
    expect(probe({})).toBeUndefined();
    expect(probe({ prober: { url: 'http://blackbox:9115' } })).toMatchObject({ refused: { path: ['spec', 'prober', 'url'] } });
    expect(probe({ targets: { staticConfig: { static: ['a'], relabelingConfigs: [{ action: 'hashmod', targetLabel: 'x' }] } } })).toMatchObject({
      refused: {
        path: ['spec', 'targets', 'staticConfig', 'relabelingConfigs', 0],
        message: 'targets.staticConfig.relabelConfigs: [0]: relabel configuration for hashmod requires non-zero modulus',
      },
    });
  });

  it('reads the Prometheus fields with the operator defaults', () => {
    expect(prometheusFields({})).toEqual({ version: [3, 0, 0], scrapeInterval: '30s', scrapeClasses: [], denyFileAccess: false });
    expect(prometheusFields({ image: 'quay.io/prometheus/prometheus:v2.35.1' }).version).toEqual([2, 35, 1]);
  });
});

describe("the reader of the operator's validator tests", () => {
  it('reads each scenario with its Prometheus version; a wrong expectation disagrees', () => {
    const table = relabelCases(
      [
        'func TestValidateRelabelConfig(t *testing.T) {',
        '\tdefaultPrometheusSpec := monitoringv1.Prometheus{}',
        '\tfor _, tc := range []struct {\n\t\tscenario string\n\t}{',
        '\t\t{\n\t\t\tscenario: "Invalid regex",\n\t\t\trelabelConfig: monitoringv1.RelabelConfig{\n\t\t\t\tRegex: "invalid regex)",\n\t\t\t},\n\t\t\tprometheus:  defaultPrometheusSpec,\n\t\t\texpectedErr: true,\n\t\t},',
        '\t\t{\n\t\t\tscenario: "lowercase on an old Prometheus",\n\t\t\trelabelConfig: monitoringv1.RelabelConfig{\n\t\t\t\tAction: "lowercase",\n\t\t\t\tTargetLabel: "x",\n\t\t\t},\n\t\t\tprometheus: monitoringv1.Prometheus{\n\t\t\t\tSpec: monitoringv1.PrometheusSpec{\n\t\t\t\t\tCommonPrometheusFields: monitoringv1.CommonPrometheusFields{\n\t\t\t\t\t\tVersion: "v2.30.0",\n\t\t\t\t\t},\n\t\t\t\t},\n\t\t\t},\n\t\t\texpectedErr: false,\n\t\t},',
        '\t} {',
        '\t}',
        '}',
      ].join('\n'),
    );
    expect(table.cases.map((c) => [c.name, c.rule, c.version, c.refused])).toEqual([
      ['Invalid regex', { regex: 'invalid regex)' }, 'v2.36.0', true],
      ['lowercase on an old Prometheus', { action: 'lowercase', targetLabel: 'x' }, 'v2.30.0', false],
    ]);
    expect(relabelAgreement(table)).toMatchObject({ agree: 1, total: 2 });
  });
});
