/**
 * What the API server makes of a request's method and path before it authorizes it (authorization/request-info.ts),
 * on rows of k8s.io/apiserver's own tests (pkg/endpoints/request/requestinfo_test.go, v0.36), and the conformance
 * reader of that file on an excerpt in its own form: it reads each table, and a changed expectation disagrees.
 */
import { describe, expect, it } from 'vitest';
import { requestInfo } from '../../admission/authorization/request-info.ts';
import { requestInfoAgreement, requestInfoCases } from '../../admission/upstream/apiserver-requestinfo.ts';

const resource = (method: string, url: string) => {
  const info = requestInfo(method, url);
  if (!info.isResourceRequest) throw new Error(`${url} read as no resource request`);
  return [info.verb, info.apiGroup, info.namespace, info.resource, info.subresource, info.name];
};

describe('requestInfo', () => {
  it('reads the verb from the method and the path: a GET without a name is a list or a watch, a DELETE without one a deletecollection', () => {
    expect(resource('GET', '/api/v1/namespaces/other/pods')).toEqual(['list', '', 'other', 'pods', '', '']);
    expect(resource('GET', '/api/v1/namespaces/other/pods/foo/status')).toEqual(['get', '', 'other', 'pods', 'status', 'foo']);
    expect(resource('PUT', '/api/v1/namespaces/other/finalize')).toEqual(['update', '', 'other', 'namespaces', 'finalize', 'other']);
    expect(resource('DELETE', '/api/v1/nodes')).toEqual(['deletecollection', '', '', 'nodes', '', '']);
    expect(resource('GET', '/api/v1/pods?watch=1')).toEqual(['watch', '', '', 'pods', '', '']);
    expect(resource('GET', '/api/v1/watch/namespaces/other/pods')).toEqual(['watch', '', 'other', 'pods', '', '']);
    expect(resource('GET', '/api/v1/proxy/namespaces/other/pods/foo/subpath')).toEqual(['proxy', '', 'other', 'pods', '', 'foo']);
    expect(resource('POST', '/apis/cert-manager.io/v1/namespaces/p/certificates')).toEqual(['create', 'cert-manager.io', 'p', 'certificates', '', '']);
    expect(resource('PATCH', '/apis/apps/v1/namespaces/p/deployments/api/scale')).toEqual(['patch', 'apps', 'p', 'deployments', 'scale', 'api']);
  });

  it('names the object a list or watch pins with a metadata.name field selector, where the selector parses', () => {
    expect(resource('GET', '/apis/g/v/r?fieldSelector=metadata.name=name1')).toEqual(['list', 'g', '', 'r', '', 'name1']);
    expect(resource('GET', '/apis/g/v/r?fieldSelector=metadata.name==n&watch=true')).toEqual(['watch', 'g', '', 'r', '', 'n']);
    expect(resource('GET', '/apis/g/v/r?fieldSelector=metadata.name=name1,foo')[5]).toBe('');
    expect(resource('GET', '/apis/g/v/r?fieldSelector=metadata.name=a%2Fb')[5]).toBe('');
    expect(resource('GET', '/apis/g/v/r?fieldSelector=metadata.name!=x')[5]).toBe('');
  });

  it('reads a path with too few parts, or under another prefix, as no resource request, its verb the method', () => {
    for (const url of ['/', '/api', '/api/v1', '/apis/apps/v1', '/version', '/openapi/v3/api/v1', '/healthz'])
      expect(requestInfo('GET', url)).toEqual({ isResourceRequest: false, verb: 'get', path: url });
  });
});

const EXCERPT = `
func TestGetAPIRequestInfo(t *testing.T) {
	namespaceAll := metav1.NamespaceAll
	successCases := []struct {
	}{
		{MethodGet, "/api/v1/namespaces", "list", "api", "", "v1", "", "namespaces", "", "", []string{"namespaces"}},
		{MethodDelete, "/apis/extensions/v1/namespaces/other/pods", "deletecollection", "api", "extensions", "v1", "other", "pods", "", "", []string{"pods"}},
		{MethodGet, "/api/v1/pods", "list", "api", "", "v1", namespaceAll, "pods", "", "", []string{"pods"}},
	}

	errorCases := map[string]string{
		"no resource path":            "/",
		"missing api group":           "/apis/version/resource",
	}
}

func TestGetNonAPIRequestInfo(t *testing.T) {
	tests := map[string]struct {
	}{
		"simple groupless":  {"/api/version/resource", true},
		"one step":                     {"/api", false},
	}
}

func TestSelectorParsing(t *testing.T) {
	tests := []struct {
	}{
		{
			name:                  "metadata.name selector",
			method:                MethodGet,
			url:                   "/apis/group/version/resource?fieldSelector=metadata.name=name1",
			expectedName:          "name1",
			expectedVerb:          "list",
			expectedFieldSelector: "metadata.name=name1",
		},
	}
}
`;

describe('the request info conformance reader', () => {
  it('reads every table of the test file, and holds the port to each row', () => {
    const table = requestInfoCases(EXCERPT);
    expect(table.unread).toEqual([]);
    const a = requestInfoAgreement(table);
    expect([a.agree, a.total]).toEqual([8, 8]);
  });

  it('counts a changed expectation as a disagreement', () => {
    const a = requestInfoAgreement(
      requestInfoCases(EXCERPT.replace('"deletecollection"', '"delete"').replace('expectedName:          "name1"', 'expectedName:          ""')),
    );
    expect(a.disagreements.map((d) => d.file)).toEqual([
      'TestGetAPIRequestInfo/DELETE /apis/extensions/v1/namespaces/other/pods',
      'TestSelectorParsing/metadata.name selector',
    ]);
  });
});
