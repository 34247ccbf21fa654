/**
 * The reader of the prometheus-operator's configuration generator tests (upstream/prometheus-config-cases.ts over
 * upstream/go-test-driver.ts), on a file written in their form: a table test whose rows name what the statements
 * before the table made, a test of one case, a direct call of generateK8SSDConfig, a row declined for its
 * apiserverConfig, and a golden file the gate does not agree with, which must be counted as a disagreement.
 */
import { describe, expect, it } from 'vitest';
import { goldenReading, operatorConfigAgreement, operatorConfigCases } from '../../admission/upstream/prometheus-config-cases.ts';

const TEST = `
func defaultPrometheus() *monitoringv1.Prometheus {
	return &monitoringv1.Prometheus{
		ObjectMeta: metav1.ObjectMeta{
			Name:      "test",
			Namespace: "default",
		},
		Spec: monitoringv1.PrometheusSpec{
			CommonPrometheusFields: monitoringv1.CommonPrometheusFields{
				Version:        operator.DefaultPrometheusVersion,
				ScrapeInterval: "30s",
			},
		},
	}
}

func TestServiceMonitorWithServiceDiscoveryRole(t *testing.T) {
	smon := &monitoringv1.ServiceMonitor{
		ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: "default"},
		Spec: monitoringv1.ServiceMonitorSpec{
			ServiceDiscoveryRole: ptr.To(monitoringv1.EndpointsRole),
			Endpoints: []monitoringv1.Endpoint{{Port: "web"}, {Port: "metrics"}},
		},
	}
	for _, tc := range []struct {
		name     string
		promRole *monitoringv1.ServiceDiscoveryRole
		smonRole *monitoringv1.ServiceDiscoveryRole
		golden   string
	}{
		{
			name:   "Default",
			golden: "Default.golden",
		},
		{
			name:     "Prometheus with endpointslice",
			promRole: ptr.To(monitoringv1.EndpointSliceRole),
			golden:   "Slice.golden",
		},
		{
			name:     "The golden file the gate disagrees with",
			promRole: ptr.To(monitoringv1.EndpointSliceRole),
			smonRole: ptr.To(monitoringv1.EndpointsRole),
			golden:   "Slice.golden",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := defaultPrometheus()
			p.Spec.CommonPrometheusFields.ServiceDiscoveryRole = tc.promRole
			smon.Spec.ServiceDiscoveryRole = tc.smonRole
			cg := mustNewConfigGenerator(t, p, WithEndpointSliceSupport())
			cfg, err := cg.GenerateServerConfiguration(p, map[string]*monitoringv1.ServiceMonitor{"test": smon}, nil, nil, nil, &assets.StoreBuilder{}, nil, nil, nil, nil)
			require.NoError(t, err)
			golden.Assert(t, string(cfg), tc.golden)
		})
	}
}

func TestAlertmanagerBearerToken(t *testing.T) {
	p := defaultPrometheus()
	p.Spec.Alerting = &monitoringv1.AlertingSpec{
		Alertmanagers: []monitoringv1.AlertmanagerEndpoints{
			{
				Name:            "alertmanager-main",
				Port:            intstr.FromInt(9093),
				PathPrefix:      new("/am"),
				BearerTokenFile: "/some/file/on/disk",
			},
		},
	}
	cg := mustNewConfigGenerator(t, p)
	cfg, err := cg.GenerateServerConfiguration(p, nil, nil, nil, nil, &assets.StoreBuilder{}, nil, nil, nil, nil)
	require.NoError(t, err)
	golden.Assert(t, string(cfg), "AlertmanagerBearerToken.golden")
}

func TestNamespaceSetCorrectly(t *testing.T) {
	type testCase struct {
		ServiceMonitor           *monitoringv1.ServiceMonitor
		IgnoreNamespaceSelectors bool
		Golden                   string
	}
	testcases := []testCase{
		{
			ServiceMonitor: &monitoringv1.ServiceMonitor{
				ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "default"},
				Spec: monitoringv1.ServiceMonitorSpec{
					NamespaceSelector: monitoringv1.NamespaceSelector{Any: true},
					AttachMetadata: &monitoringv1.AttachMetadata{Node: new(true)},
				},
			},
			IgnoreNamespaceSelectors: true,
			Golden:                   "Ignore.golden",
		},
	}
	for _, tc := range testcases {
		cg := mustNewConfigGenerator(t, &monitoringv1.Prometheus{Spec: monitoringv1.PrometheusSpec{CommonPrometheusFields: monitoringv1.CommonPrometheusFields{IgnoreNamespaceSelectors: tc.IgnoreNamespaceSelectors}}})
		var attachMetaConfig *attachMetadataConfig
		if tc.ServiceMonitor.Spec.AttachMetadata != nil {
			attachMetaConfig = &attachMetadataConfig{MinimumVersion: "2.37.0", attachMetadata: tc.ServiceMonitor.Spec.AttachMetadata}
		}
		c := cg.generateK8SSDConfig(tc.ServiceMonitor.Spec.NamespaceSelector, tc.ServiceMonitor.Namespace, nil, assets.NewTestStoreBuilder(), kubernetesSDRoleEndpoint, attachMetaConfig)
		golden.Assert(t, string(s), tc.Golden)
	}
}

func TestK8SSDConfigGeneration(t *testing.T) {
	sm := &monitoringv1.ServiceMonitor{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "default"}}
	for _, tc := range []struct {
		apiServerConfig *monitoringv1.APIServerConfig
		golden          string
	}{
		{apiServerConfig: &monitoringv1.APIServerConfig{Host: "example.com"}, golden: "Two.golden"},
		{apiServerConfig: nil, golden: "Missing.golden"},
	} {
		c := cg.generateK8SSDConfig(sm.Spec.NamespaceSelector, sm.Namespace, tc.apiServerConfig, tc.store, kubernetesSDRoleEndpoint, nil)
		golden.Assert(t, string(s), tc.golden)
	}
}
`;

const sd = (role: string, names: string[] | undefined, extra = '') =>
  `  - role: ${role}\n${names ? `    namespaces:\n      names:\n${names.map((n) => `      - ${n}\n`).join('')}` : ''}${extra}`;
const job = (name: string, role: string) => `- job_name: ${name}\n  kubernetes_sd_configs:\n${sd(role, ['default'])}`;
const GOLDEN: Record<string, string> = {
  'Default.golden': `scrape_configs:\n${job('serviceMonitor/default/test/0', 'endpoints')}\n${job('serviceMonitor/default/test/1', 'endpoints')}\n`,
  'Slice.golden': `scrape_configs:\n${job('serviceMonitor/default/test/0', 'endpointslice')}\n${job('serviceMonitor/default/test/1', 'endpointslice')}\n`,
  'AlertmanagerBearerToken.golden': `alerting:
  alertmanagers:
  - path_prefix: /am
    kubernetes_sd_configs:
${sd('endpoints', ['default']).replace(/^/gm, '  ')}
    bearer_token_file: /some/file/on/disk
    relabel_configs:
    - action: keep
      source_labels: [__meta_kubernetes_service_name]
      regex: alertmanager-main
    - action: keep
      source_labels: [__meta_kubernetes_pod_container_port_number]
      regex: "9093"
`,
  'Ignore.golden': `scrape_configs:\n- job_name: k8s-sd-test\n  kubernetes_sd_configs:\n${sd('endpoints', ['default'], '    attach_metadata:\n      node: true\n')}`,
  'Two.golden': `scrape_configs:\n- job_name: k8s-sd-test\n  kubernetes_sd_configs:\n  - api_server: example.com\n    role: endpoints\n`,
};

describe("the reader of the prometheus-operator's configuration generator tests", () => {
  const table = operatorConfigCases(TEST, (file) => GOLDEN[file]);

  it('drives each row as its loop runs it, with what the statements before the table made, and reads the golden file', () => {
    expect(table.cases.map((c) => [c.name, c.judge(), c.want])).toEqual([
      [
        'TestServiceMonitorWithServiceDiscoveryRole/Default (Default.golden)',
        'serviceMonitor/default/test/0: role=endpoints namespaces=default; serviceMonitor/default/test/1: role=endpoints namespaces=default',
        'serviceMonitor/default/test/0: role=endpoints namespaces=default; serviceMonitor/default/test/1: role=endpoints namespaces=default',
      ],
      [
        'TestServiceMonitorWithServiceDiscoveryRole/Prometheus with endpointslice (Slice.golden)',
        expect.stringContaining('serviceMonitor/default/test/0: role=endpointslice namespaces=default'),
        expect.stringContaining('serviceMonitor/default/test/0: role=endpointslice namespaces=default'),
      ],
      [
        'TestServiceMonitorWithServiceDiscoveryRole/The golden file the gate disagrees with (Slice.golden)',
        expect.stringContaining('role=endpoints namespaces=default'),
        expect.stringContaining('role=endpointslice'),
      ],
      [
        'TestAlertmanagerBearerToken/0 (AlertmanagerBearerToken.golden)',
        'alertmanager 0: role=endpoints namespaces=default service=alertmanager-main port=__meta_kubernetes_pod_container_port_number:9093 path_prefix=/am',
        'alertmanager 0: role=endpoints namespaces=default service=alertmanager-main port=__meta_kubernetes_pod_container_port_number:9093 path_prefix=/am',
      ],
      [
        'TestNamespaceSetCorrectly/0 (Ignore.golden)',
        'k8s-sd-test: role=endpoints namespaces=default node',
        'k8s-sd-test: role=endpoints namespaces=default node',
      ],
    ]);
  });

  it('counts the disagreement, declines the apiserverConfig row and keeps why a row is not read', () => {
    const a = operatorConfigAgreement(table);
    expect([a.agree, a.total]).toEqual([4, 5]);
    expect(a.disagreements.map((d) => d.file)).toEqual([
      'monitors/TestServiceMonitorWithServiceDiscoveryRole/The golden file the gate disagrees with (Slice.golden)',
    ]);
    expect(table.declined.map((d) => d.name)).toEqual(['TestK8SSDConfigGeneration/0']);
    expect(table.unread).toEqual([{ name: 'TestK8SSDConfigGeneration/1', why: 'testdata/Missing.golden is not in the checkout' }]);
  });

  it("reads of a golden file each monitor's discovery by job and each Alertmanager's, and an api_server apart", () => {
    expect(goldenReading(GOLDEN['Two.golden']!)).toEqual(['k8s-sd-test: api_server role=endpoints namespaces=all']);
    expect(goldenReading('scrape_configs:\n- job_name: scrapeConfig/default/x\n  kubernetes_sd_configs:\n  - role: node\n')).toEqual([]);
  });
});
