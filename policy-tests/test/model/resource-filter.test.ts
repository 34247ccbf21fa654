/**
 * argocd-cm's resource filter. The verdicts are every assertion of argo-cd v3.5.1's
 * util/settings/resources_filter_test.go (IsExcludedResource true is 'excluded' or 'not-included' here); the
 * reading is what settings.go's GetResourcesFilter unmarshals.
 */
import { describe, expect, it } from 'vitest';
import {
  customHealth,
  filterVerdict,
  INSTALL_EXCLUSIONS,
  readFilteredResources,
  resourcesFilter,
  type FilteredResource,
  type ResourcesFilter,
} from '../../model/controller/resource-filter.ts';

const of = (apiGroups: string[], kinds: string[] = [], clusters: string[] = []): FilteredResource => ({ apiGroups, kinds, clusters });
const excluded = (filter: ResourcesFilter, group: string, kind: string, cluster: string): boolean => filterVerdict(filter, group, kind, cluster) !== 'managed';

/** The filters of Argo CD's tests, by the test that builds them. */
const NONE: ResourcesFilter = { exclusions: [], inclusions: [] };
const INCLUDED: ResourcesFilter = { exclusions: [], inclusions: [of(['whitelisted-resource'])] };
const NON_MUTEX_KIND_OUT: ResourcesFilter = { inclusions: [of(['whitelisted-resource'])], exclusions: [of(['whitelisted-resource'], ['blacklisted-kind'])] };
const NON_MUTEX_GROUP_OUT: ResourcesFilter = { inclusions: [of(['whitelisted-resource'], ['whitelisted-kind'])], exclusions: [of(['whitelisted-resource'])] };
const NON_MUTEX_OTHER: ResourcesFilter = { inclusions: [of(['foo-bar'], ['whitelisted-kind'])], exclusions: [of(['whitelisted-resource'])] };
const MULTI_CLUSTER: ResourcesFilter = {
  inclusions: [of(['whitelisted-resource'], [], ['cluster-one'])],
  exclusions: [of(['whitelisted-resource'], [], ['cluster-two'])],
};

describe("Argo CD's resource filter (ResourcesFilter.IsExcludedResource)", () => {
  it.each([
    // TestIsExcludedResource
    [NONE, 'events.k8s.io', '', '', true],
    [NONE, 'metrics.k8s.io', '', '', true],
    [NONE, 'rubbish.io', '', '', false],
    // TestResourceInclusions
    [INCLUDED, 'non-whitelisted-resource', '', '', true],
    [INCLUDED, 'whitelisted-resource', '', '', false],
    // TestResourceInclusionsExclusionNonMutex
    [NON_MUTEX_KIND_OUT, 'whitelisted-resource', 'blacklisted-kind', '', true],
    [NON_MUTEX_KIND_OUT, 'whitelisted-resource', '', '', false],
    [NON_MUTEX_KIND_OUT, 'whitelisted-resource', 'non-blacklisted-kind', '', false],
    [NON_MUTEX_GROUP_OUT, 'whitelisted-resource', 'whitelisted-kind', '', true],
    [NON_MUTEX_GROUP_OUT, 'whitelisted-resource', '', '', true],
    [NON_MUTEX_GROUP_OUT, 'whitelisted-resource', 'non-whitelisted-kind', '', true],
    [NON_MUTEX_OTHER, 'not-whitelisted-resource', 'whitelisted-kind', '', true],
    [NON_MUTEX_OTHER, 'not-whitelisted-resource', '', '', true],
    // TestResourceInclusionsExclusionMultiCluster
    [MULTI_CLUSTER, 'whitelisted-resource', '', 'cluster-one', false],
    [MULTI_CLUSTER, 'whitelisted-resource', '', 'cluster-two', true],
    [MULTI_CLUSTER, 'whitelisted-resource', '', 'cluster-three', false],
  ] as [ResourcesFilter, string, string, string, boolean][])('case %#', (...[filter, group, kind, cluster, expected]) => {
    expect(excluded(filter, group, kind, cluster)).toBe(expected);
  });
});

describe("argocd-cm's resource.exclusions and resource.inclusions as Argo CD reads them", () => {
  it('reads a list of entries, unknown keys ignored', () => {
    expect(readFilteredResources('- apiGroups: [apps]\n  kinds: [Deployment]\n  note: ignored\n- clusters: ["*"]\n')).toEqual([
      of(['apps'], ['Deployment']),
      of([], [], ['*']),
    ]);
    expect(readFilteredResources('')).toEqual([]);
  });
  it('refuses what Go cannot unmarshal into []FilteredResource', () => {
    expect(readFilteredResources('apiGroups: [apps]')).toBe('not a list of {apiGroups, kinds, clusters}');
    expect(readFilteredResources('- kinds: Secret')).toBe('entry 0: kinds is not a list of strings');
    expect(readFilteredResources('- [apps]')).toBe('entry 0 is not a mapping');
  });
  it("takes the install's exclusions where argocd-cm is not rendered and the patch does not set them, and the patch's whole where it does", () => {
    expect(resourcesFilter({ data: {} }).filter.exclusions).toEqual(INSTALL_EXCLUSIONS);
    expect(resourcesFilter({ data: { 'resource.exclusions': '- kinds: [Secret]' } }).filter.exclusions).toEqual([of([], ['Secret'])]);
    expect(resourcesFilter({ data: {}, rendered: {} as never }).filter.exclusions).toEqual([]);
  });
});

describe("a kind's own health check in argocd-cm (settings.go resource overrides)", () => {
  it('is read from the split key, the core group by kind alone, and the older resource.customizations map', () => {
    expect(customHealth({ data: { 'resource.customizations.health.apps_Deployment': 'return hs' } }, 'apps', 'Deployment')).toBe(true);
    expect(customHealth({ data: { 'resource.customizations.health.PersistentVolumeClaim': 'return hs' } }, '', 'PersistentVolumeClaim')).toBe(true);
    expect(customHealth({ data: { 'resource.customizations': 'networking.k8s.io/Ingress:\n  health.lua: return hs\n' } }, 'networking.k8s.io', 'Ingress')).toBe(
      true,
    );
    expect(customHealth({ data: { 'resource.customizations.health.argoproj.io_Application': 'return hs' } }, 'apps', 'Deployment')).toBe(false);
    expect(customHealth(undefined, 'apps', 'Deployment')).toBe(false);
  });
});
