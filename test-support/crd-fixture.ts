/** A CustomResourceDefinition for tests: one served version whose schema holds `spec`, with these properties. */
export function crdYaml(o: { group: string; kind: string; plural: string; specProperties: string }): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${o.plural}.${o.group}
spec:
  group: ${o.group}
  scope: Namespaced
  names: { kind: ${o.kind}, plural: ${o.plural}, singular: ${o.kind.toLowerCase()}, listKind: ${o.kind}List }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
${o.specProperties}
`;
}
