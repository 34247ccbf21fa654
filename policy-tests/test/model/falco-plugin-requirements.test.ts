/** A rules file's required_plugin_versions as Falco reads and checks them, and Falco's own plugin requirement tests, read. */
import { describe, expect, it } from 'vitest';
import { pluginRequirements, unmetRequirement } from '../../model/falco/plugin-requirements.ts';
import { parseTuning } from '../../model/falco/tuning.ts';
import { falcoPluginAgreement, falcoPluginCases } from '../../admission/upstream/falco-plugin-cases.ts';
import { loadedPluginVersions } from '../../checks/falco/plugins.ts';

const read = (yaml: string) => pluginRequirements(parseTuning('rules.yaml', 'rules.yaml', yaml).items);
const unmet = (yaml: string, loaded: { name: string; version: string }[]) => read(yaml).requirements.map((r) => unmetRequirement(r, loaded));

describe("Falco's plugin requirements", () => {
  it('refuses what the reader and the collector refuse', () => {
    const problems = (yaml: string) => read(yaml).problems.map((p) => `${p.path.join('.')}: ${p.message}`);
    expect(problems('- required_plugin_versions: container\n')).toEqual(['required_plugin_versions: Value of required_plugin_versions must be a sequence']);
    expect(problems('- required_plugin_versions: [container]\n')).toEqual(['required_plugin_versions.0: Plugin version must be a mapping']);
    expect(problems('- required_plugin_versions:\n  - name: container\n')).toEqual(["required_plugin_versions.0: Item has no mapping for key 'version'"]);
    expect(problems('- required_plugin_versions:\n  - name: container\n    version: "0.8"\n')).toEqual([
      "required_plugin_versions.0: Invalid required version '0.8' for plugin 'container'",
    ]);
    expect(problems('- required_plugin_versions:\n  - name: a\n    version: 0.1.0\n    alternatives:\n      - name: a\n        version: 0.2.0\n')).toEqual([
      "required_plugin_versions.0: Defined multiple alternative version requirements for plugin 'a'",
    ]);
    expect(problems('- required_plugin_versions:\n  - name: a\n    version: 0.1.0\n    alternatives: b\n')).toEqual([
      'required_plugin_versions.0.alternatives: Value of plugin version alternatives must be a sequence',
    ]);
  });

  it('meets a requirement by the first alternative a loaded plugin names, at a compatible version', () => {
    const rules = '- required_plugin_versions:\n  - name: container\n    version: 0.4.0\n    alternatives:\n      - name: other\n        version: 1.0.0\n';
    expect(unmet(rules, [{ name: 'container', version: '0.7.1' }])).toEqual([undefined]);
    expect(unmet(rules, [{ name: 'other', version: '1.2.0' }])).toEqual([undefined]);
    expect(unmet(rules, [{ name: 'container', version: '0.3.9' }])).toEqual([
      "Plugin 'container' version '0.3.9' is not compatible with required plugin version '0.4.0'",
    ]);
    expect(unmet(rules, [{ name: 'container', version: '1.0.0' }])).toEqual([expect.stringMatching(/not compatible/)]);
    expect(unmet(rules, [])).toEqual(['Plugin requirement not satisfied, must load one of: container (>= 0.4.0), other (>= 1.0.0)']);
  });

  it('reads the plugins the values load: the container plugin at its tag, or nothing it can judge', () => {
    expect(
      loadedPluginVersions({ collectors: { containerEngine: { enabled: true, pluginRef: 'ghcr.io/falcosecurity/plugins/plugin/container:0.7.1' } } }),
    ).toEqual([{ name: 'container', version: '0.7.1' }]);
    expect(loadedPluginVersions({ collectors: { containerEngine: { enabled: false } } })).toEqual([]);
    expect(loadedPluginVersions({ collectors: { containerEngine: { pluginRef: 'ghcr.io/falcosecurity/plugins/plugin/container' } } })).toBeUndefined();
    expect(loadedPluginVersions({ falco: { load_plugins: ['k8saudit'] } })).toBeUndefined();
  });

  it("reads Falco's own test file: each call's loaded plugins, rules and verdict", () => {
    const CPP = `TEST(PluginRequirements, ok) {
	ASSERT_TRUE(check_requirements(error, {{"k8saudit", "0.1.0"}}, ""));
	ASSERT_FALSE(check_requirements(error, {}, R"(
- required_plugin_versions:
  - name: k8saudit
    version: 0.1.0
)"));
}`;
    const cases = falcoPluginCases(CPP);
    expect(cases.cases.map((c) => [c.test, c.loaded, c.met])).toEqual([
      ['ok #1', [{ name: 'k8saudit', version: '0.1.0' }], true],
      ['ok #2', [], false],
    ]);
    const a = falcoPluginAgreement(cases);
    expect([a.agree, a.total]).toEqual([2, 2]);
  });
});
