/**
 * The CEL engine, loaded on first use (most gate runs have no custom resource
 * with a rule, and loading it costs start-up), with the Kubernetes libraries
 * in its environment; and a walk of a parsed expression for the functions it
 * calls, the identifiers it names and the constant patterns it holds.
 */
import { createRequire } from 'node:module';
import type { CelEnv, CelFunc, CelType } from '@bufbuild/cel';
import { FUNCTION_NAMESPACES } from './environment.ts';
import { knownFunctions, kubernetesFunctions } from './kubernetes-library.ts';
import { opaqueRegistry } from './opaque-types.ts';
import { goTimestampText } from './timestamps.ts';

/** `string(timestamp)` as cel-go prints a parsed date-time (timestamps.ts); any other timestamp as the engine prints it. */
function timestampFunctions(cel: Cel, timestamp: CelType): CelFunc[] {
  const plain = cel.plan(cel.celEnv({}), cel.parse('string(t)'));
  return [cel.celFunc('string', [timestamp], cel.CelScalar.STRING, (t) => goTimestampText(t) ?? (plain({ t } as never) as string))];
}

export type Cel = typeof import('@bufbuild/cel');
interface Runtime {
  cel: Cel;
  env: CelEnv;
  known: ReadonlySet<string>;
}
let runtime: Runtime | undefined;

/** The CEL runtime, loaded on first use: most gate runs have no custom resource with a rule, and loading it costs start-up. */
export function celRuntime(): Runtime {
  if (!runtime) {
    const require = createRequire(import.meta.url);
    const cel = require('@bufbuild/cel') as Cel;
    const { strings } = require('@bufbuild/cel/ext') as { strings: CelFunc[] };
    const { DurationSchema, TimestampSchema } = require('@bufbuild/protobuf/wkt') as Record<
      'DurationSchema' | 'TimestampSchema',
      Parameters<Cel['objectType']>[0]
    >;
    const funcs = [...kubernetesFunctions(cel, strings, cel.objectType(DurationSchema)), ...timestampFunctions(cel, cel.objectType(TimestampSchema))];
    // The registry declares the libraries' own types (net.IP, net.CIDR) to the engine: their names resolve in a rule.
    runtime = { cel, env: cel.celEnv({ funcs, registry: opaqueRegistry() }), known: knownFunctions(funcs) };
  }
  return runtime;
}
export const isCelError = (v: unknown): boolean => celRuntime().cel.isCelError(v);
/** Calls and identifiers of a parsed expression (protobuf-es messages), walked generically. */
interface CallNode {
  function?: string;
  name?: string;
  target?: { exprKind?: { case?: string; value?: { name?: string } } };
  args?: { exprKind?: { case?: string; value?: { constantKind?: { case?: string; value?: unknown } } } }[];
}
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);

export function scan(node: unknown, calls: Set<string>, idents: Set<string>, patterns: Set<string>): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) scan(n, calls, idents, patterns);
    return;
  }
  const kind = (node as { exprKind?: { case?: string; value?: CallNode } }).exprKind;
  if (kind?.case === 'callExpr' && kind.value?.function) {
    const target = kind.value.target?.exprKind;
    const space = target?.case === 'identExpr' && FUNCTION_NAMESPACES.has(target.value?.name ?? '') ? `${target.value!.name}.` : '';
    calls.add(`${space}${kind.value.function}`);
    const first = kind.value.args?.[0]?.exprKind;
    if (REGEX_FUNCTIONS.has(kind.value.function) && first?.case === 'constExpr' && first.value?.constantKind?.case === 'stringValue')
      patterns.add(String(first.value.constantKind.value));
  }
  if (kind?.case === 'identExpr' && kind.value?.name) idents.add(kind.value.name);
  for (const v of Object.values(node)) if (typeof v === 'object') scan(v, calls, idents, patterns);
}
