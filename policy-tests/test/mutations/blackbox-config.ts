/**
 * Mutations for monitoring-blackbox-config: the exporter's values given what v0.28.0 refuses to load. The first list
 * runs offline (the values' config judged alone); the second with the stand-in of the exporter's chart
 * (probe-module.ts), where a refusal shows only in the rendered file, the values merged over the chart's defaults.
 */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const VALUES = 'monitoring/blackbox-exporter/values.yaml';
const CHECK = 'monitoring-blackbox-config';

export const blackboxConfigMutations: Mutation[] = [
  {
    check: CHECK,
    why: 'the module timeout written as a bare 10: yaml.v3 decodes no number into a time.Duration, and the exporter exits at start',
    mutate: swap(VALUES, '      timeout: 10s\n', '      timeout: 10\n'),
    at: 'timeout: 10',
  },
  {
    check: CHECK,
    why: 'preferred_ip_protocol misspelt: a field the HTTP probe does not have (KnownFields), so the configuration is refused',
    mutate: swap(VALUES, '        preferred_ip_protocol: ip4\n', '        preferred_ip_protcol: ip4\n'),
    at: 'preferred_ip_protcol',
  },
  {
    check: CHECK,
    why: 'valid_status_codes given "2xx": a string where the exporter decodes an int',
    mutate: swap(VALUES, '        valid_status_codes: []\n', '        valid_status_codes: ["2xx"]\n'),
    at: 'valid_status_codes',
  },
  {
    check: CHECK,
    why: 'fail_if_ssl set beside fail_if_not_ssl: the prober fails a final request over TLS, and else one not over TLS, so every site probe fails and InternetDown fires for good',
    mutate: swap(VALUES, '        fail_if_not_ssl: true\n', '        fail_if_not_ssl: true\n        fail_if_ssl: true\n'),
    at: 'fail_if_ssl: true',
  },
  {
    check: CHECK,
    why: 'the module names prober https, which the exporter has no function for: every probe of it is answered 400',
    mutate: swap(VALUES, '      prober: http\n', '      prober: https\n'),
    at: 'prober: https',
  },
  {
    check: CHECK,
    why: 'valid_status_codes given [null], which Go decodes as 0: no response has status 0, so every probe of the module fails and every site reads down',
    mutate: swap(VALUES, '        valid_status_codes: []\n', '        valid_status_codes: [null]\n'),
    at: 'valid_status_codes: [null]',
  },
];

export const blackboxRenderedMutations: Mutation[] = [
  {
    check: CHECK,
    why: "HTTP/3 on and HTTP/2 off in the values: the chart's default valid_http_versions (HTTP/1.1, HTTP/2.0) stay beside them, which the exporter refuses with HTTP/3",
    mutate: swap(VALUES, '        fail_if_not_ssl: true\n', '        fail_if_not_ssl: true\n        enable_http3: true\n        enable_http2: false\n'),
    at: '      http:',
  },
];
