/**
 * The layers hold (docs/architecture.md#layers-and-folders): no import circle among the sources of src/ and
 * clients/, no import from a layer to one below it in the docs' table, every source file in exactly one layer,
 * and the apps (board, tail, bots) on the SDK alone. The table is read from the docs, so the docs and this test
 * cannot drift apart. Type-only imports count: a reader follows them like any other.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ImportGraph, importCycles, importGraph } from './support/import-graph.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Layer {
  name: string;
  /** Files, and folders ending with `/`. */
  paths: string[];
}

/** The rows of the table after the `layers` marker, top row lowest. */
function layersFromDocs(markdown: string): Layer[] {
  const start = markdown.indexOf('<!-- layers:');
  if (start < 0) throw new Error('docs/architecture.md has no <!-- layers: --> table');
  const layers: Layer[] = [];
  for (const line of markdown.slice(start).split('\n').slice(3)) {
    if (!line.startsWith('|')) break;
    const [, name, files] = line.split('|').map((cell) => cell.trim());
    layers.push({ name: name!, paths: [...files!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) });
  }
  return layers;
}

/** Each file's layer, by its longest matching path; files no row names are listed as unassigned. */
function assign(layers: readonly Layer[], files: Iterable<string>) {
  const layerOf = new Map<string, number>();
  const unassigned: string[] = [];
  for (const file of files) {
    let best: { rank: number; length: number } | undefined;
    layers.forEach(({ paths }, rank) => {
      for (const path of paths) {
        const match = path.endsWith('/') ? file.startsWith(path) : file === path;
        if (match && (!best || path.length > best.length)) best = { rank, length: path.length };
      }
    });
    if (best) layerOf.set(file, best.rank);
    else unassigned.push(file);
  }
  return { layerOf, unassigned };
}

/** Every import that breaks the order, as `from (layer) -> to (layer)`. */
function upwardImports(graph: ImportGraph, layers: readonly Layer[], layerOf: ReadonlyMap<string, number>) {
  const sdk = layers.findIndex((l) => l.name === 'sdk');
  const apps = layers.findIndex((l) => l.name === 'apps');
  const bad: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf.get(file)!;
    for (const target of targets) {
      const to = layerOf.get(target)!;
      const allowed = from === apps ? to === apps || to === sdk : to <= from;
      if (!allowed) bad.push(`${file} (${layers[from]!.name}) -> ${target} (${layers[to]!.name})`);
    }
  }
  return bad.sort();
}

const layers = layersFromDocs(readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8'));
const graph = importGraph(ROOT, ['src', 'clients']);
const { layerOf, unassigned } = assign(layers, graph.keys());

describe('architecture', () => {
  it('reads the layers from docs/architecture.md', () => {
    expect(layers.map((l) => l.name)).toEqual([
      'sdk',
      'core',
      'storage',
      'upstream',
      'watch',
      'config',
      'cluster',
      'embedded',
      'http',
      'delivery',
      'backend',
      'composition',
      'apps',
    ]);
    // The graph is the real one: the entry point reaches the composition root, which reaches the SDK's types.
    expect(graph.get('src/serve.ts')).toContain('src/runtime.ts');
    expect(graph.get('clients/web/api.ts')).toContain('clients/js/src/index.ts');
  });

  it('puts every source file of src/ and clients/ in a layer', () => {
    expect(unassigned).toEqual([]);
  });

  it('has no import circle', () => {
    expect(importCycles(graph).map((files) => files.join(' -> '))).toEqual([]);
  });

  it('imports only from the same layer or a lower one (apps: the SDK only)', () => {
    expect(upwardImports(graph, layers, layerOf)).toEqual([]);
  });

  it('finds a circle and an upward import when there is one', () => {
    const circle = new Map([
      ['src/a.ts', ['src/b.ts']],
      ['src/b.ts', ['src/c.ts']],
      ['src/c.ts', ['src/a.ts']],
      ['src/d.ts', ['src/a.ts']],
    ]);
    expect(importCycles(circle)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
    const upward = new Map([
      ['src/store/x.ts', ['src/watch/y.ts']],
      ['clients/web/z.ts', ['src/clock.ts', 'clients/js/src/index.ts']],
      ['src/watch/y.ts', []],
      ['src/clock.ts', []],
      ['clients/js/src/index.ts', []],
    ]);
    const placed = assign(layers, upward.keys());
    expect(upwardImports(upward, layers, placed.layerOf)).toEqual([
      'clients/web/z.ts (apps) -> src/clock.ts (core)',
      'src/store/x.ts (storage) -> src/watch/y.ts (watch)',
    ]);
  });
});
