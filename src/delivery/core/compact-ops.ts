/**
 * Merging a run of patches into one for conflated subscriptions. The operations are concatenated (which
 * is already a patch from the first base to the last document), then a later `replace` or `remove` of a
 * path absorbs an earlier `replace`/`add` of the same path when nothing in between touched that path, its
 * ancestors or its descendants, or changed the structure of a list on the way (an `add` or `remove` whose
 * parent is on the way). Law (property-tested): for every document `doc` that `ops` apply to,
 *   apply(doc, compactOps(ops)) == apply(doc, ops)
 */
import type { Operation } from 'fast-json-patch';

const isPrefix = (a: string, b: string) => b === a || b.startsWith(`${a}/`);
const related = (a: string, b: string) => isPrefix(a, b) || isPrefix(b, a);
const parentOf = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf('/')));

/** Whether `earlier` may change what `path` designates or holds. */
function touches(earlier: Operation, path: string): boolean {
  if (earlier.op === 'move' || earlier.op === 'copy' || earlier.op === 'test') return true;
  if (related(earlier.path, path)) return true;
  return (earlier.op === 'add' || earlier.op === 'remove') && isPrefix(parentOf(earlier.path), path);
}

export function compactOps(ops: readonly Operation[]): Operation[] {
  const out: (Operation | undefined)[] = [];
  for (const op of ops) {
    let absorbed = false;
    if (op.op === 'replace' || op.op === 'remove') {
      for (let i = out.length - 1; i >= 0; i--) {
        const e = out[i];
        if (!e) continue;
        if (e.path === op.path && (e.op === 'replace' || e.op === 'add')) {
          if (op.op === 'replace') {
            out[i] = { ...e, value: op.value } as Operation;
            absorbed = true;
          } else if (e.op === 'replace') out[i] = undefined; // the remove below supersedes it
          break;
        }
        if (touches(e, op.path)) break;
      }
    }
    if (!absorbed) out.push(op);
  }
  return out.filter((o): o is Operation => o !== undefined);
}
