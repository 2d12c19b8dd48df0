/**
 * What grew between two V8 heap snapshots of one process (`bench/soak.ts --heap-snapshots`). Prints, each
 * sorted by growth:
 * - the heap by group (node type and constructor or name: `object Object`, `string`, `closure onEnd`): self
 *   size and count in each snapshot, and how much of the later one was allocated since the earlier and is alive;
 * - the heap by holder: the names of the properties and variables on each object's shortest path from the
 *   GC roots (`fetch.upstreamFetch.sim.world.stories`, `rowCache`), the first `--names` of them, which tells
 *   a bounded cache refilled from a structure that keeps what it is given;
 * - a few retaining paths, in full, of the new objects of the groups that grew most (`--paths`).
 *
 *   node --max-old-space-size=8000 --import tsx bench/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot
 *        [--top 25] [--paths 3] [--names 16]
 *
 * Compare the same time of day a race day apart (hours 6 and 30 of a soak): within a day the caches fill and
 * the simulator builds the day's races, which hides growth that stays. "New" is by V8's object id, stable
 * across the snapshots of one process and growing with each allocation: objects with an id above the earlier
 * snapshot's highest are the later ones (V8's heap objects only: Node's native nodes take ids from another
 * range). Paths search the stack and handle scopes last, which hold whatever the snapshot's own call did.
 * The snapshot is read a line at a time (V8 writes one node, one edge and one string a line), since a
 * snapshot of a 150 MB heap is longer than the longest string Node can hold. About 30 s and 3 GB for two
 * snapshots of a 150 MB heap.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

interface Snapshot {
  nodeFields: number;
  edgeFields: number;
  nodeTypes: string[];
  edgeTypes: string[];
  nodes: Float64Array;
  edges: Uint32Array;
  strings: string[];
  /** Index into `edges` of each node's first edge (edge_count follows node order). */
  firstEdge: Uint32Array;
}

const NODE = { type: 0, name: 1, id: 2, selfSize: 3, edgeCount: 4 } as const;
const EDGE = { type: 0, nameOrIndex: 1, toNode: 2 } as const;

async function read(path: string): Promise<Snapshot> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let header = '';
  let section: 'header' | 'nodes' | 'edges' | 'strings' | 'other' = 'header';
  let nodes = new Float64Array(0);
  let edges = new Uint32Array(0);
  let n = 0;
  let e = 0;
  const strings: string[] = [];
  let meta:
    | { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] }
    | undefined;
  const numbers = (line: string, into: Float64Array | Uint32Array, at: number): number => {
    for (const part of line.split(',')) {
      const t = part.replace(/[[\]\s]/g, '');
      if (t !== '') into[at++] = Number(t);
    }
    return at;
  };
  for await (const line of lines) {
    if (section === 'header') {
      if (!line.startsWith('"nodes":[')) {
        header += line;
        continue;
      }
      const parsed = JSON.parse(`${header.replace(/,$/, '')}}`) as {
        snapshot: { meta: NonNullable<typeof meta>; node_count: number; edge_count: number };
      };
      meta = parsed.snapshot.meta;
      nodes = new Float64Array(parsed.snapshot.node_count * meta.node_fields.length);
      edges = new Uint32Array(parsed.snapshot.edge_count * meta.edge_fields.length);
      section = 'nodes';
      n = numbers(line.slice('"nodes":['.length), nodes, n);
    } else if (line.startsWith('"edges":[')) {
      section = 'edges';
      e = numbers(line.slice('"edges":['.length), edges, e);
    } else if (line.startsWith('"strings":[')) {
      section = 'strings';
      strings.push(JSON.parse(line.slice('"strings":['.length).replace(/,$/, '')) as string);
    } else if (/^"[a-z_]+":\[/.test(line)) {
      section = 'other';
    } else if (section === 'nodes') n = numbers(line, nodes, n);
    else if (section === 'edges') e = numbers(line, edges, e);
    else if (section === 'strings' && line !== ']}')
      strings.push(JSON.parse(line.replace(/(,|\]\})$/, '')) as string);
  }
  if (!meta) throw new Error(`${path}: no snapshot header`);
  const nodeFields = meta.node_fields.length;
  const count = nodes.length / nodeFields;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++)
    firstEdge[i + 1] = firstEdge[i]! + nodes[i * nodeFields + NODE.edgeCount]! * meta.edge_fields.length;
  return {
    nodeFields,
    edgeFields: meta.edge_fields.length,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    nodes,
    edges,
    strings,
    firstEdge,
  };
}

/** A node's group: its type and, where the name says what it is (objects, closures, ...), its name. */
function group(s: Snapshot, i: number): string {
  const type = s.nodeTypes[s.nodes[i * s.nodeFields + NODE.type]!]!;
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'number')
    return type;
  const name = s.strings[s.nodes[i * s.nodeFields + NODE.name]!]!;
  return `${type} ${name.length > 60 ? `${name.slice(0, 60)}...` : name}`;
}

interface Group {
  count: number;
  bytes: number;
}
function groups(s: Snapshot, keep: (i: number) => boolean = () => true): Map<string, Group> {
  const out = new Map<string, Group>();
  for (let i = 0; i < s.nodes.length / s.nodeFields; i++) {
    if (!keep(i)) continue;
    const key = group(s, i);
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i * s.nodeFields + NODE.selfSize]!;
    out.set(key, g);
  }
  return out;
}

/**
 * For each node, a retainer on a shortest path from the root (node 0), by breadth-first search over strong
 * edges; the stack and handle scopes (what the snapshot's own call happened to hold) are searched last, so a
 * path names the Map, closure or module variable that keeps an object rather than a frame.
 */
function shortestRetainers(s: Snapshot): { from: Int32Array; edge: Int32Array } {
  const count = s.nodes.length / s.nodeFields;
  const from = new Int32Array(count).fill(-1);
  const edge = new Int32Array(count).fill(-1);
  const weak = s.edgeTypes.indexOf('weak');
  const synthetic = s.nodeTypes.indexOf('synthetic');
  const isLast = (i: number) =>
    s.nodes[i * s.nodeFields + NODE.type] === synthetic &&
    ['(Stack roots)', '(Handle scope)'].includes(s.strings[s.nodes[i * s.nodeFields + NODE.name]!]!);
  const queue = new Int32Array(count);
  const last: number[] = [];
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  from[0] = 0;
  while (head < tail || last.length > 0) {
    if (head === tail) queue[tail++] = last.pop()!;
    const i = queue[head++]!;
    for (let k = s.firstEdge[i]!; k < s.firstEdge[i + 1]!; k += s.edgeFields) {
      if (s.edges[k + EDGE.type] === weak) continue;
      const to = s.edges[k + EDGE.toNode]! / s.nodeFields;
      if (from[to] !== -1) continue;
      from[to] = i;
      edge[to] = k;
      if (isLast(to)) last.push(to);
      else queue[tail++] = to;
    }
  }
  return { from, edge };
}

/**
 * Who holds a node, in a few words: the names of the properties and variables on its path from the root,
 * without Map tables, elements and V8's internals, the first `--names` of them (`world.stories`, `rowCache`,
 * `races.process.states`).
 */
const SKIPPED = new Set([
  'table',
  'elements',
  'properties',
  'context',
  'map',
  '__proto__',
  'prototype',
  'code',
]);
function holder(s: Snapshot, r: ReturnType<typeof shortestRetainers>, i: number): string {
  const names: string[] = [];
  for (let at = i; at > 0 && r.from[at] !== -1; at = r.from[at]!) {
    const k = r.edge[at]!;
    const type = s.edgeTypes[s.edges[k + EDGE.type]!]!;
    if (type !== 'property' && type !== 'context') continue;
    const name = s.strings[s.edges[k + EDGE.nameOrIndex]!]!;
    if (!SKIPPED.has(name) && !/^\d+$/.test(name) && !/^[0-9a-f-]{36}$/.test(name)) names.push(name);
  }
  if (names.length === 0) return '(the root or unreachable)';
  return names.reverse().slice(0, NAMES).join('.');
}

function edgeName(s: Snapshot, k: number): string {
  const type = s.edgeTypes[s.edges[k + EDGE.type]!]!;
  const v = s.edges[k + EDGE.nameOrIndex]!;
  return type === 'element' || type === 'hidden' ? `[${v}]` : `.${s.strings[v]}`;
}

function path(s: Snapshot, r: ReturnType<typeof shortestRetainers>, i: number): string {
  const steps: string[] = [];
  for (let at = i; at !== 0 && steps.length < 14; at = r.from[at]!) {
    if (r.from[at] === -1) return `${group(s, i)} (unreachable from the root)`;
    steps.push(`${edgeName(s, r.edge[at]!)} -> ${group(s, at)}`);
    if (r.from[at] === 0) break;
  }
  return steps.reverse().join('\n      ');
}

const [beforePath, afterPath] = process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
if (!beforePath || !afterPath)
  throw new Error('usage: heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top N] [--paths N]');
const option = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const TOP = option('top', 25);
const PATHS = option('paths', 3);
const NAMES = option('names', 16);

const before = await read(beforePath);
// Native and synthetic nodes (the embedder's: Node's handles, the root) take ids from another, far higher range.
const foreign = (s: Snapshot, i: number) =>
  ['native', 'synthetic'].includes(s.nodeTypes[s.nodes[i * s.nodeFields]!]!);
let maxId = 0;
for (let i = 0; i < before.nodes.length / before.nodeFields; i++)
  if (!foreign(before, i)) maxId = Math.max(maxId, before.nodes[i * before.nodeFields + NODE.id]!);
const then = groups(before);
const after = await read(afterPath);
const now = groups(after);
const isNew = (i: number) => !foreign(after, i) && after.nodes[i * after.nodeFields + NODE.id]! > maxId;
const added = groups(after, isNew);

const mb = (n: number) => (n / 1e6).toFixed(2);
const total = (m: Map<string, Group>) => [...m.values()].reduce((sum, g) => sum + g.bytes, 0);
console.log(
  `heap: ${mb(total(then))} MB -> ${mb(total(now))} MB; alive and allocated since: ${mb(total(added))} MB`,
);
console.log(
  '\nby growth of the whole group (self MB then -> now, count then -> now; new and alive: count, MB)',
);
/** Every key of either map with its group then and now, the most grown first. */
function byGrowth(a: Map<string, Group>, b: Map<string, Group>) {
  const none = { count: 0, bytes: 0 };
  return [...new Set([...a.keys(), ...b.keys()])]
    .map((key) => ({ key, a: a.get(key) ?? none, b: b.get(key) ?? none }))
    .sort((x, y) => y.b.bytes - y.a.bytes - (x.b.bytes - x.a.bytes));
}
const ranked = byGrowth(then, now).slice(0, TOP);
for (const { key, a, b } of ranked) {
  const n = added.get(key) ?? { count: 0, bytes: 0 };
  console.log(
    `  ${(b.bytes - a.bytes >= 0 ? '+' : '') + mb(b.bytes - a.bytes)}  ${mb(a.bytes)} -> ${mb(b.bytes)}  ${a.count} -> ${b.count}  new ${n.count} / ${mb(n.bytes)}  ${key}`,
  );
}

function byHolder(
  s: Snapshot,
  r: ReturnType<typeof shortestRetainers>,
  keep: (i: number) => boolean = () => true,
) {
  const out = new Map<string, Group>();
  for (let i = 0; i < s.nodes.length / s.nodeFields; i++) {
    if (!keep(i)) continue;
    const key = holder(s, r, i);
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i * s.nodeFields + NODE.selfSize]!;
    out.set(key, g);
  }
  return out;
}
const r = shortestRetainers(after);
const heldThen = byHolder(before, shortestRetainers(before));
const heldNow = byHolder(after, r);
console.log(
  '\nby growth of what each holder keeps (the named path from the root: self MB then -> now, objects then -> now)',
);
const grown = byGrowth(heldThen, heldNow);
for (const { key, a, b } of [...grown.slice(0, TOP), ...grown.slice(-5)])
  console.log(
    `  ${(b.bytes - a.bytes >= 0 ? '+' : '') + mb(b.bytes - a.bytes)}  ${mb(a.bytes)} -> ${mb(b.bytes)}  ${a.count} -> ${b.count}  ${key}`,
  );
console.log('\nnew and alive by holder: MB, objects');
for (const [key, g] of [...byHolder(after, r, isNew).entries()]
  .sort((x, y) => y[1].bytes - x[1].bytes)
  .slice(0, TOP))
  console.log(`  ${mb(g.bytes)}  ${g.count}  ${key}`);

if (PATHS > 0) {
  console.log(
    '\nretaining paths of new objects (from the root), for the groups most allocated since and alive:',
  );
  const topAdded = [...added.entries()].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, Math.min(TOP, 10));
  for (const [key, g] of topAdded) {
    console.log(`  ${key}: ${g.count} new, ${mb(g.bytes)} MB`);
    const samples: number[] = [];
    const count = after.nodes.length / after.nodeFields;
    // Samples spread over the group rather than its first objects, which all share an allocation site.
    const stride = Math.max(1, Math.floor(g.count / PATHS));
    for (let i = 0, seen = 0; i < count && samples.length < PATHS; i++)
      if (isNew(i) && group(after, i) === key && seen++ % stride === 0) samples.push(i);
    for (const i of samples) console.log(`    ${path(after, r, i)}`);
  }
}
