/**
 * Built-in kinds that are cluster-scoped (`kubectl api-resources --namespaced=false`).
 * Identity of a resource (group/kind/namespace/name) ignores the namespace for these.
 * CRD scope comes from the CRD schema itself.
 */
export const CLUSTER_SCOPED_BUILTIN_KINDS: ReadonlySet<string> = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ComponentStatus',
  'ClusterRole',
  'ClusterRoleBinding',
  'StorageClass',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'CustomResourceDefinition',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'PriorityClass',
  'RuntimeClass',
  'IngressClass',
  'CertificateSigningRequest',
  'FlowSchema',
  'PriorityLevelConfiguration',
  'TokenReview',
  'SelfSubjectReview',
  'SelfSubjectAccessReview',
  'SelfSubjectRulesReview',
  'SubjectAccessReview',
]);
