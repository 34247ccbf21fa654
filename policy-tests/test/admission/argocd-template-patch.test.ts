/** Argo CD's templatePatch cases read as data (admission/upstream/argocd-template-patch.ts), on a table in patch_test.go's shape. */
import { describe, expect, it } from 'vitest';
import { templatePatchAgreement, templatePatchCases } from '../../admission/upstream/argocd-template-patch.ts';
import { jsonName } from '../../admission/upstream/go-literals.ts';

const app = (extra: string) => `&appv1.Application{
				TypeMeta: metav1.TypeMeta{Kind: "Application", APIVersion: "argoproj.io/v1alpha1"},
				ObjectMeta: metav1.ObjectMeta{Name: "guestbook", Namespace: "namespace", Finalizers: []string{appv1.ResourcesFinalizerName}},
				Spec: appv1.ApplicationSpec{
					Project: "default",
					Source: &appv1.ApplicationSource{RepoURL: "https://github.com/argoproj/argocd-example-apps.git", TargetRevision: "HEAD", Path: "guestbook"},
					Destination: appv1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "guestbook"},
					${extra}
				},
			}`;

const GO = `
func Test_ApplyTemplatePatch(t *testing.T) {
	testCases := []struct {
		name          string
		appTemplate   *appv1.Application
		templatePatch string
		expectedApp   *appv1.Application
	}{
		{
			name: "automated prune",
			appTemplate: ${app('')},
			templatePatch: \`{"spec": {"syncPolicy": {"automated": {"prune": true}}}}\`,
			expectedApp: ${app('SyncPolicy: &appv1.SyncPolicy{Automated: &appv1.SyncPolicyAutomated{Prune: new(true)}},')},
		},
		{
			name: "wrong on purpose",
			appTemplate: ${app('')},
			templatePatch: \`
spec:
  project: my-project\`,
			expectedApp: ${app('').replace('Project: "default"', 'Project: "my-project"')},
		},
	}
	for _, tc := range testCases {}
}

func TestError(t *testing.T) {
	t.Parallel()
	app := &appv1.Application{}

	result, err := applyTemplatePatch(app, "hello world")
	require.Error(t, err)
}
`;

describe("Argo CD's templatePatch cases, read as data", () => {
  it('spells Go field names as their JSON tags do', () => {
    expect(['RepoURL', 'APIVersion', 'URL', 'ValueFiles', 'Name'].map(jsonName)).toEqual(['repoURL', 'apiVersion', 'url', 'valueFiles', 'name']);
  });

  it('reads each row as manifests, and TestError as a patch Argo CD fails', () => {
    const { cases, unread } = templatePatchCases(GO);
    expect(unread).toEqual([]);
    expect(cases.map((c) => c.test)).toEqual(['Test_ApplyTemplatePatch/automated prune', 'Test_ApplyTemplatePatch/wrong on purpose', 'TestError']);
    expect(cases[0]!.app.spec).toMatchObject({ source: { repoURL: 'https://github.com/argoproj/argocd-example-apps.git' } });
    expect(cases[0]!.expected?.spec).toMatchObject({ syncPolicy: { automated: { prune: true } } });
  });

  it('applies each patch through the model and holds it to the row, the project staying the template’s', () => {
    const { cases } = templatePatchCases(GO);
    const a = templatePatchAgreement(cases);
    expect([a.agree, a.total]).toEqual([2, 3]);
    expect(a.disagreements.map((d) => d.file)).toEqual(['Test_ApplyTemplatePatch/wrong on purpose']);
  });
});
