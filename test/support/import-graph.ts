/**
 * The import graph of the project's own sources, read with the TypeScript compiler (every `import`, `export ...
 * from` and dynamic `import()`, type-only ones included: a type import is still a dependency a reader follows),
 * resolved the way tsc resolves them (tsconfig.json's `paths` included), and its strongly connected components.
 * Only scanning and resolving, no type checking, so it takes well under a second.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const SOURCE = /\.tsx?$/;
const NOT_SOURCE = /\.(test|wire\.test|e2e\.test)\.ts$|\.d\.ts$/;

function sourceFiles(root: string, dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist' && entry.name !== 'data') {
        files.push(...sourceFiles(root, path));
      }
    } else if (SOURCE.test(entry.name) && !NOT_SOURCE.test(entry.name)) {
      files.push(path);
    }
  }
  return files;
}

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root).options;
}

/** Each source file under `dirs` (relative to `root`, `/`-separated) with the project files it imports. */
export function importGraph(root: string, dirs: readonly string[]): ImportGraph {
  const options = compilerOptions(root);
  const files = dirs.flatMap((dir) => sourceFiles(root, dir)).map((file) => file.split('\\').join('/'));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const absolute = resolve(root, file);
    const { importedFiles } = ts.preProcessFile(readFileSync(absolute, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, absolute, options, ts.sys).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const target = relative(root, resolved.resolvedFileName).split('\\').join('/');
      if (known.has(target) && target !== file) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The graph's cycles: every strongly connected component of more than one file (Tarjan), each sorted. */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
