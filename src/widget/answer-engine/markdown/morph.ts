// Brings shown nodes in line with freshly rendered ones, touching only what differs,
// so a streamed block that grew by a few words costs the browser a few words of
// style and layout, not the whole block again.

// Node's type constants, as their values: the build writes these in place, not `Node.ELEMENT_NODE`.
export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
const COMMENT_NODE = 8;

/**
 * Makes the nodes `shown` (children of `parent`, in order, ending before
 * `before`) equal to `fresh`, and returns the nodes now in their place. Nodes
 * that match keep their identity and only change what differs; the rest are
 * replaced by the fresh ones. The resulting DOM is the same as inserting
 * `fresh`: same nodes, attributes in the same order, same text.
 */
export function morphNodes(parent: Node, shown: readonly Node[], fresh: readonly Node[], before: Node | null): Node[] {
  const result: Node[] = [];
  let i = 0;
  for (; i < fresh.length; i++) {
    const old = shown[i];
    const node = fresh[i]!;
    // Unchanged (compared natively, the common case): nothing to do.
    if (old?.isEqualNode(node)) result.push(old);
    else if (old && morphable(old, node)) {
      morph(old, node);
      result.push(old);
    } else {
      if (old) parent.replaceChild(node, old);
      else parent.insertBefore(node, before);
      result.push(node);
    }
  }
  for (; i < shown.length; i++) parent.removeChild(shown[i]!);
  return result;
}

/** Same kind of node; elements also with the same attribute names in the same order. */
function morphable(old: Node, node: Node): boolean {
  if (old.nodeType !== node.nodeType) return false;
  if (old.nodeType !== ELEMENT_NODE) return old.nodeType === TEXT_NODE || old.nodeType === COMMENT_NODE;
  const a = old as Element;
  const b = node as Element;
  if (a.localName !== b.localName || a.namespaceURI !== b.namespaceURI || a.attributes.length !== b.attributes.length) return false;
  for (let i = 0; i < a.attributes.length; i++) if (a.attributes[i]!.name !== b.attributes[i]!.name) return false;
  return true;
}

function morph(old: Node, node: Node): void {
  if (old.nodeType !== ELEMENT_NODE) {
    if (old.nodeValue !== node.nodeValue) old.nodeValue = node.nodeValue;
    return;
  }
  const a = old as Element;
  const b = node as Element;
  for (let i = 0; i < b.attributes.length; i++) {
    const { name, value } = b.attributes[i]!;
    if (a.getAttribute(name) !== value) a.setAttribute(name, value);
  }
  morphNodes(a, [...a.childNodes], [...b.childNodes], null);
}
