/**
 * The Kubernetes libraries' own CEL types, as the API server declares them:
 * an IP is a `net.IP`, a CIDR a `net.CIDR`, a quantity a
 * `kubernetes.Quantity`, a version a `kubernetes.Semver`, a URL a
 * `kubernetes.URL`: each a type of its own, equal only to a value of its
 * kind, with its name for `type()` (`type(ip('::1')) == net.IP`). The engine knows a type by a protobuf message in its
 * registry, so each is a message of one field holding the value's canonical
 * text, built here at run time (no .proto file, nothing generated).
 */
import { createRequire } from 'node:module';
import type { DescMessage, Registry } from '@bufbuild/protobuf';

type Protobuf = typeof import('@bufbuild/protobuf');
type Wkt = typeof import('@bufbuild/protobuf/wkt');
/** Loaded with the CEL runtime, on first use: a gate run with no rule to judge never loads them. */
const protobuf = (): { pb: Protobuf; wkt: Wkt } => {
  const require = createRequire(import.meta.url);
  return { pb: require('@bufbuild/protobuf') as Protobuf, wkt: require('@bufbuild/protobuf/wkt') as Wkt };
};

/** The opaque types by CEL name: package and message. */
const TYPES = {
  'net.IP': ['net', 'IP'],
  'net.CIDR': ['net', 'CIDR'],
  'kubernetes.Quantity': ['kubernetes', 'Quantity'],
  'kubernetes.Semver': ['kubernetes', 'Semver'],
  'kubernetes.URL': ['kubernetes', 'URL'],
} as const;
export type OpaqueName = keyof typeof TYPES;

/** protobuf's FieldDescriptorProto: a singular string. */
const STRING_FIELD = { name: 'value', number: 1, type: 9, label: 1, jsonName: 'value' } as const;

function buildRegistry(): Registry {
  const { pb, wkt } = protobuf();
  const packages = [...new Set(Object.values(TYPES).map(([pkg]) => pkg))];
  const files = packages.map((pkg) =>
    pb.create(wkt.FileDescriptorProtoSchema, {
      name: `homelab-gitops/cel/${pkg}.proto`,
      package: pkg,
      syntax: 'proto3',
      messageType: Object.values(TYPES)
        .filter(([p]) => p === pkg)
        .map(([, name]) => ({ name, field: [STRING_FIELD] })),
    }),
  );
  return pb.createFileRegistry(...files.map((file) => pb.createFileRegistry(file, () => undefined)));
}

let registry: Registry | undefined;

/** The registry that declares the opaque types to the engine. */
export function opaqueRegistry(): Registry {
  return (registry ??= buildRegistry());
}

/** The message that stands for an opaque type. */
export function opaqueType(name: OpaqueName): DescMessage {
  return opaqueRegistry().getMessage(name)!;
}

/** A value of an opaque type, carrying its canonical text. */
export function opaque(name: OpaqueName, text: string): unknown {
  return protobuf().pb.create(opaqueType(name), { value: text } as never);
}

interface OpaqueValue {
  desc: { typeName: string };
  message: { value: string };
}

/** The text an opaque value carries, when `v` is one of `name` (any opaque type without a name). */
export function opaqueText(v: unknown, name?: OpaqueName): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Partial<OpaqueValue> & { $typeName?: string; value?: unknown };
  // The engine hands a function either the message itself or its reflection.
  const typeName = o.desc?.typeName ?? o.$typeName;
  const text = o.message?.value ?? o.value;
  if (typeof typeName !== 'string' || !(typeName in TYPES) || typeof text !== 'string') return undefined;
  return name === undefined || name === typeName ? text : undefined;
}
