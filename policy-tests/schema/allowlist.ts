/**
 * Kinds the gate accepts without a schema. Every entry must say why; an entry
 * is a debt, not a convenience. Matched on `apiVersion/kind`.
 */
export interface NoSchemaAllowance {
  apiVersion: string;
  kind: string;
  reason: string;
}

export const NO_SCHEMA_ALLOWLIST: readonly NoSchemaAllowance[] = [];
