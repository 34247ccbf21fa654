/** A CRD schema node as a rule sees it: its type, format, children, and its x-kubernetes-validations rules. */
export interface JsonSchemaNode {
  type?: string | string[];
  format?: string;
  default?: unknown;
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: boolean | JsonSchemaNode;
  items?: JsonSchemaNode;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-validations'?: ValidationRule[];
  [key: string]: unknown;
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
  optionalOldSelf?: boolean;
}
