/** Work that spans endpoints is done endpoint by endpoint (one script each, keys.ts): the grouping. */

/** The items of `list` grouped by their endpoint, groups in order of first appearance, items in order. */
export function byEndpoint<T>(list: readonly T[], endpointOf: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of list) {
    const group = out.get(endpointOf(t));
    if (group) group.push(t);
    else out.set(endpointOf(t), [t]);
  }
  return out;
}
