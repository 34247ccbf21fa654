/**
 * argocd-cm's resource overrides as Argo CD loads them (util/settings GetResourceOverrides at v3.5.1): a key it
 * cannot read stops every Application's comparison, so each one here is a key Argo CD's own code refuses.
 */
import { describe, expect, it } from 'vitest';
import { healthOverrideFor, overrideProblems, resourceOverrides } from '../../model/compare/resource-overrides.ts';

describe('overrideProblems', () => {
  it("takes every key Argo CD's docs write, in both styles", () => {
    expect(
      overrideProblems({
        'resource.customizations.health.argoproj.io_Application': 'hs = {}\nreturn hs\n',
        'resource.customizations.ignoreDifferences.all': 'jsonPointers: [/spec/replicas]\njqPathExpressions: [.metadata.labels]\n',
        'resource.customizations.ignoreDifferences.Service': 'managedFieldsManagers: [kube-controller-manager]\n',
        'resource.customizations.useOpenLibs.apps_Deployment': 'true',
        'resource.customizations.knownTypeFields.argoproj.io_Rollout': '- field: spec.template.spec\n  type: core/v1/PodSpec\n',
        'resource.customizations.actions.apps_Deployment': 'discovery.lua: return {}\n',
        'resource.customizations':
          'apps/Deployment:\n  health.lua: return hs\n  ignoreDifferences: |\n    jsonPointers: [/spec/replicas]\nService:\n  knownTypeFields: [{field: spec, type: core/v1/ServiceSpec}]\n',
        'resource.compareoptions': 'ignoreAggregatedRoles: true\nignoreResourceStatusField: crd\n',
        'resource.exclusions': 'not an override key',
        'resource.customizations.short': 'passed over: fewer than four parts',
      }),
    ).toEqual([]);
  });

  it('names each key Argo CD cannot load, as its settings code refuses it', () => {
    expect(
      overrideProblems({
        'resource.customizations.ignoreDiferences.apps_Deployment': 'jsonPointers: [/spec/replicas]\n',
        'resource.customizations.ignoreDifferences.apps_v1_Deployment': 'jsonPointers: [/spec/replicas]\n',
        'resource.customizations.ignoreDifferences.batch_Job': 'jsonPointers: [/spec\n',
        'resource.customizations.ignoreDifferences.Secret': 'jsonPointers: /data\n',
        'resource.customizations.useOpenLibs.apps_Deployment': 'yes',
        'resource.customizations': 'apps/Deployment:\n  ignoreDifferences:\n    jsonPointers: [/spec/replicas]\n',
        // YAML 1.1, as Go reads it: off is false, which is no string.
        'resource.compareoptions': 'ignoreResourceStatusField: off\n',
      }).map((p) => `${p.key}: ${p.problem}`),
    ).toEqual([
      'resource.compareoptions: ignoreResourceStatusField is boolean false, not a string',
      'resource.customizations: apps/Deployment.ignoreDifferences is a map, not a string',
      'resource.customizations.ignoreDiferences.apps_Deployment: resource customization type ignoreDiferences not supported',
      'resource.customizations.ignoreDifferences.Secret: jsonPointers is string "/data", not a list',
      'resource.customizations.ignoreDifferences.apps_v1_Deployment: names "apps_v1_Deployment", where Argo CD reads <group>_<kind> or <kind>',
      expect.stringMatching(/^resource\.customizations\.ignoreDifferences\.batch_Job: is no YAML \(/),
      'resource.customizations.useOpenLibs.apps_Deployment: is "yes", which Go\'s ParseBool does not read',
    ]);
  });

  it("reads a field's name in any case, as Go's encoding/json does, and leaves unknown fields out", () => {
    expect(overrideProblems({ 'resource.customizations.ignoreDifferences.all': 'JSONPointers: 5\n' })).toEqual([
      { key: 'resource.customizations.ignoreDifferences.all', problem: 'JSONPointers is number 5, not a list' },
    ]);
    expect(overrideProblems({ 'resource.customizations.ignoreDifferences.all': 'somethingElse: 5\n' })).toEqual([]);
    // The whole value of the wrong shape, and a nested text that does not decode.
    expect(
      overrideProblems({
        'resource.customizations': '- apps/Deployment\n',
        'resource.customizations.ignoreDifferences.all': '[/spec/replicas]\n',
      }),
    ).toEqual([
      { key: 'resource.customizations', problem: 'is a list, not a map' },
      { key: 'resource.customizations.ignoreDifferences.all', problem: 'is a list, not a map' },
    ]);
    expect(overrideProblems({ 'resource.customizations': 'Service:\n  ignoreDifferences: "jsonPointers: /spec"\n' })).toEqual([
      { key: 'resource.customizations', problem: 'Service.ignoreDifferences: jsonPointers is string "/spec", not a list' },
    ]);
  });
});

describe('resourceOverrides', () => {
  it('loads the older map, then each split key over its kind, as GetResourceOverrides does', () => {
    const loaded = resourceOverrides({
      'resource.customizations':
        'cert-manager.io/Certificate:\n  health.lua: return {status = "Healthy"}\n  health.lua.useOpenLibs: true\n  IgnoreDifferences: |\n    JSONPointers: [/spec/duration]\n',
      'resource.customizations.health.cert-manager.io_Certificate': 'return {status = "Progressing"}',
      'resource.customizations.health.all': 'return nil',
      'resource.customizations.useOpenLibs.all': 'true',
      // YAML 1.1, as Go reads it: `off` is false, so Argo CD ignores no object's /status (once it can load it at all).
      'resource.compareoptions': 'ignoreResourceStatusField: off\n',
    });
    expect(Object.fromEntries(loaded)).toEqual({
      'cert-manager.io/Certificate': {
        healthLua: 'return {status = "Progressing"}',
        useOpenLibs: true,
        // encoding/json takes a field's name in any case.
        ignoreDifferences: { jsonPointers: ['/spec/duration'] },
        keys: { health: 'resource.customizations.health.cert-manager.io_Certificate', ignoreDifferences: 'resource.customizations' },
      },
      '*/*': { healthLua: 'return nil', useOpenLibs: true, keys: { health: 'resource.customizations.health.all' } },
    });
  });

  it("adds /status to every kind's pointers by default, after the ones written", () => {
    const loaded = resourceOverrides({ 'resource.customizations.ignoreDifferences.all': 'jsonPointers: [/spec/replicas]\n' });
    expect(loaded.get('*/*')?.ignoreDifferences).toEqual({ jsonPointers: ['/spec/replicas', '/status'] });
  });

  it("finds an object's health script as GetHealthScript does: its own kind's, else a glob's", () => {
    const loaded = resourceOverrides({
      'resource.customizations.health.apps_Deployment': 'return {status = "Healthy"}',
      'resource.customizations.health.cert-manager.io_*': 'return {status = "Degraded"}',
    });
    expect(healthOverrideFor(loaded, 'apps', 'Deployment')?.healthLua).toBe('return {status = "Healthy"}');
    expect(healthOverrideFor(loaded, 'cert-manager.io', 'Issuer')?.healthLua).toBe('return {status = "Degraded"}');
    expect(healthOverrideFor(loaded, '', 'Service')).toBeUndefined();
  });
});
