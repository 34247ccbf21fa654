/**
 * Every node of a parsed YAML document, in document order, to the callbacks that want maps or scalars. The yaml
 * package's own `visit` builds and freezes a path array at every node, which a caller that wants no path pays for
 * anyway: on the benchmark's 10,000 objects, the two walks every manifest gets (duplicate keys, YAML 1.1 scalars)
 * spent 1.7 CPU-s there. This walk keeps a stack of its own, so no document is too deep for it; aliases are not
 * followed, as `visit` follows none.
 */
import { isDocument, isMap, isPair, isScalar, isSeq, type Document, type Node, type Pair, type Scalar, type YAMLMap } from 'yaml';

export interface NodeCallbacks {
  map?: (map: YAMLMap) => void;
  scalar?: (scalar: Scalar) => void;
}

/** Calls `map` for every mapping and `scalar` for every scalar (keys too) of `doc`, in document order. */
export function eachNode(doc: Document | Node, { map, scalar }: NodeCallbacks): void {
  const stack: unknown[] = [isDocument(doc) ? doc.contents : doc];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isScalar(node)) scalar?.(node);
    else if (isMap(node)) {
      map?.(node);
      pushReversed(stack, node.items);
    } else if (isSeq(node)) pushReversed(stack, node.items);
    else if (isPair(node)) {
      const pair = node as Pair;
      stack.push(pair.value, pair.key);
    }
  }
}

function pushReversed(stack: unknown[], items: readonly unknown[]): void {
  for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
}
