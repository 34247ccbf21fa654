/**
 * Reading Kubernetes' test tables as data: the Go the tables are written in
 * (admission/upstream/go-literals.ts), and TestValidationExpressions' entries
 * built by the test file's helpers (validation-expressions.ts), and
 * gitops-engine's hook tests (argocd-hooks.ts), on tables written here in the
 * upstream files' shape.
 */
import { describe, expect, it } from 'vitest';
import { GoParser, GoUnsupported, tokenize } from '../../admission/upstream/go-literals.ts';
import { celCostStabilityCases, validationAgreement, validationExpressionCases } from '../../admission/upstream/validation-expressions.ts';
import { estimatedCostAgreement, estimatedCostCases } from '../../admission/upstream/estimated-cost.ts';
import { hookTestAgreement } from '../../admission/upstream/argocd-hooks.ts';
import { impersonationAgreement, impersonationCases } from '../../admission/upstream/argocd-impersonation.ts';
import { pathAgreement, pathCases, symlinkAgreement, symlinkCases } from '../../admission/upstream/argocd-symlinks.ts';
import { appSetValidationAgreement, appSetValidationCases } from '../../admission/upstream/argocd-appset-validation.ts';
import { sortAgreement, sortCases } from '../../admission/upstream/argocd-sync-order.ts';
import { projectAgreement } from '../../admission/upstream/argocd-projects.ts';
import { applicationSetTemplateAgreement, applicationSetTemplateCases } from '../../admission/upstream/argocd-applicationset.ts';
import { generatorAgreement, generatorCases } from '../../admission/upstream/argocd-appset-generators.ts';
import { renderGoTemplates } from '../../render/go-template.ts';

const read = (go: string) =>
  new GoParser(tokenize(go), {
    value: (name) => {
      if (name === 'math.MaxInt64') return 9223372036854775807n;
      throw new GoUnsupported(`unknown identifier ${name}`);
    },
    // `.double` is the method: its receiver comes first.
    call: (name, args) => (name === 'double' || name === '.double' ? Number(args[0]) * 2 : undefined),
  }).expr();

describe('Go literals', () => {
  it('reads strings (interpreted, raw, with escapes), numbers exactly, composites and calls', () => {
    expect(read('"a\\tb\\x41\\u00e9"')).toBe('a\tbAé');
    expect(read('`raw\\n`')).toBe('raw\\n');
    expect(read('math.MaxInt64 - 1')).toBe(9223372036854775806n);
    expect(read('1.5e3')).toBe(1500);
    expect(read('map[string]interface{}{"a": []interface{}{1, "x", true, nil}, "b": map[string]interface{}{}}')).toEqual({
      a: [1n, 'x', true, null],
      b: {},
    });
    expect(read('&schema.Structural{Generic: schema.Generic{Type: "object"}}')).toEqual({
      Generic: { Type: 'object', '@type': 'schema.Generic' },
      '@type': 'schema.Structural',
    });
    expect(read('double(21)')).toBe(42);
  });

  it('reads each escape once, left to right: an escaped backslash before a letter is no escape of the letter', () => {
    expect(read('"c\\\\a"')).toBe('c\\a');
    expect(read('"c\\a\\101\\U0001F600"')).toBe('c\x07A\u{1F600}');
    expect(() => read('"\\q"')).toThrow(GoUnsupported);
  });

  it("reads a named list type's literal as a list, and a method called on a call's result", () => {
    expect(read('apiextensions.ValidationRules{{Rule: "a"}, {Rule: "b"}}')).toEqual([{ Rule: 'a' }, { Rule: 'b' }]);
    expect(read('double(2).double()')).toBe(8);
  });

  it('says what it cannot follow, never guesses', () => {
    expect(() => read('unknownHelper')).toThrow(GoUnsupported);
    expect(() => read('a ? b')).toThrow(GoUnsupported);
  });
});

const TABLE = `package cel
func TestValidationExpressions(t *testing.T) {
	tests := []struct {
		name   string
		valid  []string
		errors map[string]string
	}{
		{name: "numbers",
			obj:    objs(int64(math.MaxInt64), 1.5),
			schema: schemas(integerType, numberType),
			valid: []string{
				"self.val1 == 9223372036854775807",
				ValsEqualThemselvesAndDataLiteral("self.val2", "self.val2", "1.5"),
			},
			errors: map[string]string{
				"self.val1 + 1 == 0": "integer overflow",
			},
		},
		{name: "sets",
			obj:    objs([]interface{}{"a", "b"}, []interface{}{"b", "a"}),
			schema: schemas(listSetType(&stringType), listSetType(&stringType)),
			valid: []string{"self.val1 == self.val2", "self.val1 + ['c'] == ['b', 'c', 'a']"},
		},
		{name: "undeclared",
			obj:    map[string]interface{}{"a": map[string]interface{}{"b": 1}},
			schema: objectTypePtr(map[string]schema.Structural{"a": objectType(map[string]schema.Structural{"b": integerType})}),
			errors: map[string]string{"has(self.a.z)": "undefined field 'z'"},
		},
		{name: "unread",
			obj: somethingElse(),
		},
	}
	for i := range tests {}
}
`;

describe('TestValidationExpressions, read as data', () => {
  it('builds each rule on its schema and object, and counts the entries it cannot read', () => {
    const table = validationExpressionCases(TABLE);
    expect(table.cases.map((c) => [c.entry, c.rule, c.expect])).toEqual([
      ['numbers', 'self.val1 == 9223372036854775807', 'valid'],
      ['numbers', 'self.val2 == 1.5 && 1.5 == self.val2 && self.val2 == self.val2', 'valid'],
      ['numbers', 'self.val1 + 1 == 0', 'error'],
      ['sets', 'self.val1 == self.val2', 'valid'],
      ['sets', "self.val1 + ['c'] == ['b', 'c', 'a']", 'valid'],
      ['undeclared', 'has(self.a.z)', 'error'],
    ]);
    expect(table.cases[0]!.schema.properties!.val1).toMatchObject({ type: 'integer' });
    expect(table.unread).toEqual([{ entry: 'unread', why: 'unknown function somethingElse' }]);
  });

  it('agrees with each case as the API server decides it: exact integers, set equality and union, undeclared fields refused', () => {
    const agreement = validationAgreement(validationExpressionCases(TABLE));
    // The set union keeps the left's order and adds what it lacks: ['a', 'b', 'c'], equal as a set to ['b', 'c', 'a'].
    expect(agreement.disagreements.map((d) => d.file)).toEqual(['TestValidationExpressions/unread']);
    expect([agreement.agree, agreement.total]).toEqual([6, 7]);
  });
});

describe('TestCelCostStability and TestCelEstimatedCostStability, read as data', () => {
  const GO = `
func TestCelCostStability(t *testing.T) {
	cases := []struct {
		name       string
		schema     *schema.Structural
		obj        map[string]interface{}
		expectCost map[string]int64
	}{
		{name: "sets",
			obj:    objs([]interface{}{"a", "b"}, buildLargeArray(3)),
			schema: schemas(listSetType(&stringType), listSetType(&integerType)),
			expectCost: map[string]int64{
				"self.val1 == ['b', 'a']": 7,
				"self.val2.size() == 3 && self.kind == ''": 4,
			},
		},
	}
}

func TestCelEstimatedCostStability(t *testing.T) {
	cases := []struct {
		name       string
		schema     *schema.Structural
		expectCost map[string]uint64
	}{
		{name: "lists",
			schema: schemas(withMaxItems(listType(&stringType), ptr.To[int64](10))),
			expectCost: map[string]uint64{
				"self.val1.all(x, x != '')": 43,
				"self.val1.all(x, self.val1.all(y, x == y))": 3,
			},
		},
	}
}`;

  it('judges each cost-stability rule at the resource root, where it must hold (kind is there)', () => {
    const table = celCostStabilityCases(GO);
    expect(table.cases.map((c) => [c.entry, c.rule, c.isRoot])).toEqual([
      ['sets', "self.val1 == ['b', 'a']", true],
      ['sets', "self.val2.size() == 3 && self.kind == ''", true],
    ]);
    const agreement = validationAgreement(table);
    // The object has no kind: selecting an absent field is an error, so the second rule does not hold.
    expect(agreement.disagreements.map((d) => d.file)).toEqual(["TestCelCostStability/sets: self.val2.size() == 3 && self.kind == ''"]);
  });

  it('holds the estimate to the API server figure: the same figure agrees, another does not', () => {
    const agreement = estimatedCostAgreement(estimatedCostCases(GO));
    // Ten strings of a whole request each: each of the hundred comparisons walks 3 MiB at 0.1 a character.
    expect(agreement.disagreements.map((d) => d.why)).toEqual(['estimated 31457863, upstream 3']);
    expect([agreement.agree, agreement.total]).toEqual([1, 2]);
  });
});

describe("gitops-engine's hook tests, read as data (argocd-hooks.ts)", () => {
  const HOOK_TESTS = `package hook

func TestGarbageAndHook(t *testing.T) {
	t.Parallel()
	obj := example("Sync,Garbage")
	assert.True(t, IsHook(obj))
	assert.False(t, Skip(obj))
	assert.Equal(t, []common.HookType{common.HookTypeSync}, Types(obj))
}

func TestPoliciesOfAPod(t *testing.T) {
	assert.Equal(t, []common.HookDeletePolicy{common.HookDeletePolicyBeforeHookCreation}, DeletePolicies(testingutils.NewPod()))
	// what the model does not do: a garbage hook with a phase
	assert.Equal(t, []common.HookType{common.HookTypePreSync}, Types(example("Garbage")))
}

func TestLoop(t *testing.T) {
	for _, hook := range []string{"PreSync"} {
		assert.True(t, IsHook(example(hook)))
	}
}
`;
  const HELM_TESTS = `package helm

func TestTypes(t *testing.T) {
	assert.Empty(t, Types(testingutils.Annotate(testingutils.NewPod(), "helm.sh/hook", "crd-install")))
	assert.Equal(t, []Type{PreUpgrade}, Types(testingutils.Annotate(testingutils.NewPod(), "helm.sh/hook", "pre-upgrade")))
	assert.Equal(t, common.HookTypePostSync, PostInstall.HookType())
	assert.Nil(t, DeletePolicies(testingutils.NewPod()))
}
`;

  it('judges each assertion through the model, says where it disagrees, and counts a loop apart', () => {
    const { agreement, notFollowed } = hookTestAgreement([
      { name: 'hook_test.go', go: HOOK_TESTS },
      { name: 'helm/type_test.go', go: HELM_TESTS },
    ]);
    expect([agreement.agree, agreement.total]).toEqual([8, 9]);
    expect(agreement.disagreements.map((d) => d.why)).toEqual(['TestPoliciesOfAPod: Types: the test expects ["PreSync"], the model answers []']);
    expect(notFollowed).toEqual(['hook_test.go TestLoop: for']);
  });
});

describe("Argo CD's impersonation tests, read as data", () => {
  const run = (name: string, entries: string, extra: string, call = 'f.cluster') => `
	t.Run("${name}", func(t *testing.T) {
		t.Parallel()
		destinationServiceAccounts := []v1alpha1.ApplicationDestinationServiceAccount{
${entries}
		}
${extra}
		f := setup(destinationServiceAccounts, destinationNamespace, destinationServerURL, applicationNamespace)
		sa, err := settings.DeriveServiceAccountToImpersonate(f.project, f.application, ${call})
		assert.Equal(t, expectedSA, sa)
	})`;
  const entry = (server: string, namespace: string, account: string) =>
    `			{\n				Server:                "${server}",\n				Namespace:             "${namespace}",\n				DefaultServiceAccount: "${account}",\n			},`;
  const vars = (ns: string, server: string, appNs: string, expected: string) =>
    `		destinationNamespace := "${ns}"\n		destinationServerURL := "${server}"\n		applicationNamespace := "${appNs}"\n		expectedSA := "${expected}"`;
  const GO = `
func TestDeriveServiceAccountMatchingNamespaces(t *testing.T) {
	setup := func(destinationServiceAccounts []v1alpha1.ApplicationDestinationServiceAccount, destinationNamespace, destinationServerURL, applicationNamespace string) *fixture {
		cluster := &v1alpha1.Cluster{
			Server: "https://kubernetes.svc.local",
			Name:   "test-cluster",
		}
		return &fixture{cluster: cluster}
	}
${run('first match', `${entry('https://kubernetes.svc.local', 'test*', 'test-sa')}\n${entry('https://kubernetes.svc.local', 'testns', 'test-sa-2')}`, vars('testns', 'https://kubernetes.svc.local', 'argocd-ns', 'system:serviceaccount:testns:test-sa'))}
${run('empty destination namespace', entry('https://kubernetes.svc.local', '*', 'test-sa'), vars('', 'https://kubernetes.svc.local', 'argocd-ns', 'system:serviceaccount:argocd-ns:test-sa'))}
${run('invalid glob', entry('https://kubernetes.svc.local', 'e[[a*', 'test-sa'), `${vars('testns', 'https://kubernetes.svc.local', 'argocd-ns', '')}\n		require.ErrorContains(t, err, "invalid glob pattern for destination namespace")`)}
${run('another cluster', entry('https://kubernetes.svc.local', '*', 'test-sa'), vars('testns', 'https://xyz.svc.local', 'argocd-ns', ''), '&v1alpha1.Cluster{Server: destinationServerURL}')}
${run('a wrong expectation', entry('*', '*', 'myns:test-sa'), vars('testns', 'https://kubernetes.svc.local', 'argocd-ns', 'system:serviceaccount:testns:test-sa'))}
${run('a cluster made otherwise', entry('*', '*', 'test-sa'), vars('testns', 'https://kubernetes.svc.local', 'argocd-ns', ''), 'otherCluster()')}
}
`;

  it('judges each case through the model, says where it disagrees, and counts a case it cannot follow apart', () => {
    const { cases, unread } = impersonationCases(GO);
    expect(unread).toEqual([
      { test: 'TestDeriveServiceAccountMatchingNamespaces/a cluster made otherwise', why: 'derives for a cluster this reader does not follow: otherCluster()' },
    ]);
    const agreement = impersonationAgreement(cases);
    expect([agreement.agree, agreement.total]).toEqual([4, 5]);
    expect(agreement.disagreements.map((d) => d.why)).toEqual([
      'expects "system:serviceaccount:testns:test-sa", the model derives "system:serviceaccount:myns:test-sa"',
    ]);
  });
});

describe("Argo CD's symlink tests, read as data (argocd-symlinks.ts)", () => {
  // The shape of util/app/path/path_test.go at v3.5.1, with a case the model would get wrong if it resolved links.
  const GO = `
func TestGoodSymlinks(t *testing.T) {
	err := CheckOutOfBoundsSymlinks("./testdata/goodlink")
	require.NoError(t, err)
}
func TestBadSymlinks3(t *testing.T) {
	err := CheckOutOfBoundsSymlinks("./testdata/badlink3")
	var oobError *OutOfBoundsSymlinkError
	require.ErrorAs(t, err, &oobError)
	assert.Equal(t, "badlink", oobError.File)
}
func TestBadSymlinksExcluded(t *testing.T) {
	err := CheckOutOfBoundsSymlinks("./testdata/badlink", "badlink")
	assert.NoError(t, err)
}
func TestAbsSymlink(t *testing.T) {
	const testDir = "./testdata/abslink"
	require.NoError(t, fileutil.CreateSymlink(t, "/somethingbad", "abslink"))
	err = CheckOutOfBoundsSymlinks(testDir)
	assert.Equal(t, "abslink", oobError.File)
}
func TestSomethingElse(t *testing.T) {
	err := CheckOutOfBoundsSymlinks(dir())
	require.NoError(t, err)
}
`;
  const folders: Record<string, { path: string; target: string }[]> = {
    'testdata/goodlink': [
      { path: 'goodlink', target: './file.txt' },
      { path: 'subdir/goodlink', target: '../subdir/file.txt' },
    ],
    'testdata/badlink3': [{ path: 'badlink', target: '../badlink3/test.txt' }],
    'testdata/badlink': [{ path: 'badlink', target: '../../bla' }],
    'testdata/abslink': [],
  };

  it("reads Path's tests with their expected errors, and judges each on what the folder holds", () => {
    const PATHS = `
func TestPathAbsolute(t *testing.T) {
	_, err := Path("./testdata", "/etc/passwd")
	require.EqualError(t, err, "/etc/passwd: app path is absolute")
}
func TestPathDotSlash(t *testing.T) {
	_, err := Path("./testdata", "./")
	require.NoError(t, err)
}
func TestPathNotDir(t *testing.T) {
	_, err := Path("./testdata", "file.txt")
	require.EqualError(t, err, "file.txt: app path is not a directory")
}
`;
    const cases = pathCases(PATHS);
    expect(cases).toEqual([
      { test: 'TestPathAbsolute', root: 'testdata', path: '/etc/passwd', error: '/etc/passwd: app path is absolute' },
      { test: 'TestPathDotSlash', root: 'testdata', path: './' },
      { test: 'TestPathNotDir', root: 'testdata', path: 'file.txt', error: 'file.txt: app path is not a directory' },
    ]);
    expect(pathAgreement(cases, (_root, path) => ({ folder: path !== 'file.txt', file: path === 'file.txt' })).agree).toBe(3);
    // Where the folder held a folder by that name, the gate would say nothing: a disagreement, said.
    expect(pathAgreement(cases, () => ({ folder: true, file: false })).disagreements.map((d) => d.why)).toEqual([
      'the gate says nothing, Argo CD file.txt: app path is not a directory',
    ]);
  });

  it('reads each call with its folder, skip paths, made links and expectation, and judges each through the model', () => {
    const { cases, unread } = symlinkCases(GO);
    expect(cases.map((c) => [c.test, c.folder, c.skip, c.made, c.refused])).toEqual([
      ['TestGoodSymlinks', 'testdata/goodlink', [], [], undefined],
      ['TestBadSymlinks3', 'testdata/badlink3', [], [], 'badlink'],
      ['TestBadSymlinksExcluded', 'testdata/badlink', ['badlink'], [], undefined],
      ['TestAbsSymlink', 'testdata/abslink', [], [{ path: 'abslink', target: '/somethingbad' }], 'abslink'],
    ]);
    expect(unread).toEqual([{ test: 'TestSomethingElse', why: 'a folder or skip path that is not a literal: CheckOutOfBoundsSymlinks(dir())' }]);
    const agreement = symlinkAgreement(cases, (folder) => folders[folder] ?? []);
    expect([agreement.agree, agreement.total]).toEqual([4, 4]);
    // A folder that holds what the test does not expect is a disagreement, said.
    const wrong = symlinkAgreement(cases, (folder) => (folder === 'testdata/goodlink' ? [{ path: 'x', target: '../../y' }] : (folders[folder] ?? [])));
    expect(wrong.disagreements.map((d) => d.why)).toEqual(['the gate refuses x, Argo CD none']);
  });
});

describe("gitops-engine's sync order tests, read as data (argocd-sync-order.ts)", () => {
  // The shape of sync_tasks_test.go: a sorted package variable, and a test that sorts named tasks.
  const GO = `
var sortedTasks = syncTasks{
	{
		phase:     common.SyncPhasePreSync,
		targetObj: &unstructured.Unstructured{},
	},
	{
		targetObj: &unstructured.Unstructured{
			Object: map[string]any{
				"GroupVersion": corev1.SchemeGroupVersion.String(),
				"kind":         "ConfigMap",
			},
		},
	},
	{
		phase:     common.SyncPhasePostSync,
		targetObj: &unstructured.Unstructured{},
	},
}

func TestSyncTasksSort_CRDAndCR(t *testing.T) {
	cr := &syncTask{
		phase: common.SyncPhasePreSync,
		targetObj: &unstructured.Unstructured{Object: map[string]any{"kind": "Workflow", "apiVersion": "argoproj.io/v1"}},
	}
	crd := &syncTask{
		targetObj: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": map[string]any{"group": "argoproj.io", "names": map[string]any{"kind": "Workflow"}}}},
	}
	unsorted := syncTasks{cr, crd}
	unsorted.Sort()
	assert.Equal(t, syncTasks{crd, cr}, unsorted)
}

func TestSyncTasksSort_Wrong(t *testing.T) {
	late := &syncTask{phase: common.SyncPhasePostSync, targetObj: &unstructured.Unstructured{}}
	early := &syncTask{phase: common.SyncPhasePreSync, targetObj: &unstructured.Unstructured{}}
	unsorted := syncTasks{early, late}
	assert.Equal(t, syncTasks{late, early}, unsorted)
}
`;
  it("reads each expected order and holds it to the model's, both ways", () => {
    const { cases, unread } = sortCases(GO);
    expect(unread).toEqual([]);
    expect(cases.map((c) => [c.test, c.tasks.map((t) => `${t.phase}/${t.kind || '-'}`)])).toEqual([
      ['TestSortSyncTask', ['PreSync/-', 'Sync/ConfigMap', 'PostSync/-']],
      ['TestSyncTasksSort_CRDAndCR', ['Sync/CustomResourceDefinition', 'PreSync/Workflow']],
      ['TestSyncTasksSort_Wrong', ['PostSync/-', 'PreSync/-']],
    ]);
    const agreement = sortAgreement(cases);
    expect([agreement.agree, agreement.total]).toEqual([2, 3]);
    expect(agreement.disagreements.map((d) => `${d.file}: ${d.why}`)).toEqual(['TestSyncTasksSort_Wrong: the model puts 1 before 0']);
  });
});

describe("Argo CD's ApplicationSet validation tests, read as data (argocd-appset-validation.ts)", () => {
  // The shape of TestValidateGeneratedApplications at v3.5.1: a table ranged over in place, one row wrong on purpose.
  const app = (project: string, destination: string) =>
    `{ObjectMeta: metav1.ObjectMeta{Name: "app"}, Spec: v1alpha1.ApplicationSpec{Project: "${project}", Source: &v1alpha1.ApplicationSource{RepoURL: "https://url", Path: "/"}, Destination: v1alpha1.ApplicationDestination{Namespace: "namespace", ${destination}}}}`;
  const GO = `
func TestValidateGeneratedApplications(t *testing.T) {
	for _, cc := range []struct {
		name             string
		apps             []v1alpha1.Application
		validationErrors map[string]error
	}{
		{name: "valid", apps: []v1alpha1.Application{${app('default', 'Name: "my-cluster"')}}, validationErrors: map[string]error{}},
		{name: "both", apps: []v1alpha1.Application{${app('default', 'Server: "my-server", Name: "my-cluster"')}}, validationErrors: map[string]error{"app": errors.New("application destination spec is invalid: application destination can't have both name and server defined: my-cluster my-server")}},
		{name: "project", apps: []v1alpha1.Application{${app('DOES-NOT-EXIST', 'Name: "my-cluster"')}}, validationErrors: map[string]error{"app": errors.New("application references project DOES-NOT-EXIST which does not exist")}},
		{name: "wrong on purpose", apps: []v1alpha1.Application{${app('default', 'Name: "my-cluster"')}}, validationErrors: map[string]error{"app": errors.New("no")}},
		{name: "unread", apps: []v1alpha1.Application{otherApp()}, validationErrors: map[string]error{}},
	} {
		t.Run(cc.name, func(t *testing.T) {})
	}
}
`;
  it('reads each row, judges it through the model, and counts a row it cannot read apart', () => {
    const { cases, unread } = appSetValidationCases(GO);
    expect(cases.map((c) => c.test)).toEqual([
      'TestValidateGeneratedApplications/valid',
      'TestValidateGeneratedApplications/both',
      'TestValidateGeneratedApplications/project',
      'TestValidateGeneratedApplications/wrong on purpose',
    ]);
    expect(unread.map((u) => u.test)).toEqual(['TestValidateGeneratedApplications/unread']);
    const agreement = appSetValidationAgreement(cases);
    expect([agreement.agree, agreement.total]).toEqual([3, 4]);
    expect(agreement.disagreements.map((d) => d.file)).toEqual(['TestValidateGeneratedApplications/wrong on purpose']);
  });
});

describe("Argo CD's AppProject tests, read as data", () => {
  const TYPES = `
func TestAppProject_IsSourcePermitted(t *testing.T) {
	testData := []struct {
		projSources []string
		appSource   string
		isPermitted bool
	}{{
		projSources: []string{"https://github.com/argoproj/*"}, appSource: "https://github.com/argoproj/argoproj.git", isPermitted: true,
	}, {
		projSources: []string{"https://github.com/argoproj/test1.git"}, appSource: "https://github.com/argoproj/test2.git", isPermitted: true,
	}}
}

func TestAppProject_IsDestinationPermitted(t *testing.T) {
	testData := []struct {
		name        string
		projDest    []ApplicationDestination
		appDest     ApplicationDestination
		isPermitted bool
	}{
		{
			name: "negated namespace with multiple values",
			projDest: []ApplicationDestination{
				{Name: "host-cluster", Server: "https://kubernetes.default.svc", Namespace: "!{kube-system,argocd}"},
				{Name: "other", Server: "https://eks.example", Namespace: "*"},
			},
			appDest:     ApplicationDestination{Server: "https://eks.example", Namespace: "kube-system"},
			isPermitted: true,
		},
	}
}

func TestAppProject_IsGroupKindPermitted(t *testing.T) {
	proj := AppProject{
		Spec: AppProjectSpec{
			NamespaceResourceWhitelist: []metav1.GroupKind{},
			ClusterResourceWhitelist: []ClusterResourceRestrictionItem{{Group: "", Kind: "Namespace", Name: "team1-*"}},
		},
	}
	assert.False(t, proj.IsGroupKindNamePermitted(schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}, "", true))
	assert.True(t, proj.IsGroupKindNamePermitted(schema.GroupKind{Group: "", Kind: "Namespace"}, "team1-a", false))
	assert.True(t, proj.IsGroupKindNamePermitted(schema.GroupKind{Group: "", Kind: kind}, "x", false))
}
`;

  it('judges each row and assertion through the model, says where it disagrees, and counts one it cannot follow apart', () => {
    const { agreement, notFollowed } = projectAgreement(TYPES, '');
    expect([agreement.agree, agreement.total]).toEqual([4, 5]);
    expect(agreement.disagreements.map((d) => d.file)).toEqual(['TestAppProject_IsSourcePermitted']);
    expect(notFollowed).toEqual(['TestAppProject_IsGroupKindPermitted: 1 assertions in another shape']);
  });
});

describe("Argo CD's ApplicationSet tests, read as data", () => {
  const UTILS = `
func TestRenderTemplateParams(t *testing.T) {
	tests := []struct {
		name        string
		fieldVal    string
		params      map[string]any
		expectedVal string
	}{
		{
			name:        "simple substitution",
			fieldVal:    "{{one}}",
			expectedVal: "two",
			params: map[string]any{
				"one": "two",
			},
		},
		{
			name:        "a case the gate must not agree with",
			fieldVal:    "{{one}}",
			expectedVal: "three",
			params: map[string]any{"one": "two"},
		},
	}
}

func TestRenderTemplateParamsGoTemplate(t *testing.T) {
	tests := []struct {
		name            string
		fieldVal        string
		params          map[string]any
		expectedVal     string
		errorMessage    string
		templateOptions []string
	}{
		{
			name:        "depth",
			fieldVal:    "{{ .image.version }}",
			expectedVal: "latest",
			params: map[string]any{"replicas": 3, "image": map[string]any{"version": "latest"}},
		},
		{
			name:            "lookup missing value with missingkey=error",
			fieldVal:        "--> {{.doesnotexist}} <--",
			params:          map[string]any{"unused": "x"},
			templateOptions: []string{"missingkey=error"},
			errorMessage:    "map has no entry",
		},
		{
			name:        "lookup missing value with missingkey=default",
			fieldVal:    "--> {{.doesnotexist}} <--",
			expectedVal: "--> <no value> <--",
			params:      map[string]any{"unused": "x"},
		},
		{
			name:     "toYaml Error",
			fieldVal: "{{ toYaml . }}",
			params:   map[string]any{"foo": func(_ *string) {}},
		},
	}
}`;

  it('judges each row through the gate, counts a row it declines by design apart, and one it cannot follow apart', async () => {
    const { cases, unread } = applicationSetTemplateCases(UTILS);
    expect(unread.map((u) => u.test)).toEqual(['TestRenderTemplateParamsGoTemplate/toYaml Error']);
    const a = await applicationSetTemplateAgreement(cases, (jobs) => renderGoTemplates(jobs));
    expect([a.agree, a.total]).toEqual([3, 4]);
    expect(a.disagreements.map((d) => d.file)).toEqual(['TestRenderTemplateParams/a case the gate must not agree with']);
    expect(a.declinedByDesign.map((d) => d.test)).toEqual(['TestRenderTemplateParamsGoTemplate/lookup missing value with missingkey=default']);
  });

  it("reads the git generator's tables (the repo-server mock's answer as given) and the list generator's elements", async () => {
    const git = `
func TestGitGenerateParamsFromDirectories(t *testing.T) {
	cases := []struct {
		name          string
		directories   []v1alpha1.GitDirectoryGeneratorItem
		repoApps      []string
		repoError     error
		expected      []map[string]any
		expectedError error
	}{
		{
			name:        "It filters application according to the paths with Exclude",
			directories: []v1alpha1.GitDirectoryGeneratorItem{{Path: "p1/*", Exclude: true}, {Path: "*"}, {Path: "*/*"}},
			repoApps:    []string{"app1", "p1/app2", "p2/app3"},
			expected: []map[string]any{
				{"path": "app1", "path.basename": "app1", "path[0]": "app1", "path.basenameNormalized": "app1"},
				{"path": "p2/app3", "path.basename": "app3", "path[0]": "p2", "path[1]": "app3", "path.basenameNormalized": "app3"},
			},
		},
		{
			name:          "handles error from repo server",
			directories:   []v1alpha1.GitDirectoryGeneratorItem{{Path: "*"}},
			repoError:     errors.New("error"),
			expectedError: errors.New("error generating params from git: error"),
		},
	}
}

func TestGitGenerateParamsFromFiles(t *testing.T) {
	cases := []struct {
		name             string
		files            []v1alpha1.GitFileGeneratorItem
		repoFileContents map[string][]byte
		repoPathsError   error
		expected         []map[string]any
		expectedError    error
	}{
		{
			name:             "test invalid JSON file returns error",
			files:            []v1alpha1.GitFileGeneratorItem{{Path: "**/config.json"}},
			repoFileContents: map[string][]byte{"c/config.json": []byte(\`invalid json file\`)},
			expectedError:    errors.New("unable to parse file"),
		},
	}
}`;
    const list = `
func TestGenerateListParams(t *testing.T) {
	testCases := []struct {
		elements []apiextensionsv1.JSON
		expected []map[string]any
	}{
		{
			elements: []apiextensionsv1.JSON{{Raw: []byte(\`{"cluster": "cluster","values":{"foo":"bar"}}\`)}},
			expected: []map[string]any{{"cluster": "cluster", "values.foo": "bar"}},
		},
	}
}`;
    const { cases, unread } = generatorCases(git, list);
    expect(unread.map((u) => `${u.test}: ${u.why}`)).toEqual([
      "TestGitGenerateParamsFromDirectories/handles error from repo server: the repo-server mock's own error",
    ]);
    const a = await generatorAgreement(cases, (jobs) => renderGoTemplates(jobs));
    expect([a.agree, a.total], a.disagreements.map((d) => d.why).join('\n')).toEqual([3, 3]);
  });
});
