/**
 * The tests' child nodes (cluster nodes, the nemesis's, start-up failures, crash children, racewire-tail) run
 * from JavaScript compiled once per test run, not through tsx: tsx compiles every module again in each child,
 * about 2.3 s of CPU per start on this machine against 1 s from JavaScript, and the suite starts dozens of
 * children. The global set-up compiles (`buildChildren`) and names the directory in RACEWIRE_CHILD_BUILD;
 * `nodeArgs` runs an entry from it, or through tsx where there is none (`npm run nemesis`, or a child script
 * not listed in CHILD_SCRIPTS).
 *
 * Each file is compiled on its own (not bundled), at the same path under the build directory, so that
 * `import.meta.url` still finds the Lua scripts and the simulator's data beside it, and the board in `dist/`.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHILD_BUILD_ENV = 'RACEWIRE_CHILD_BUILD';

/** The test files the tests run as processes, beside everything under SOURCE_DIRS. */
const CHILD_SCRIPTS = [
  'test/cluster/nemesis/node.ts',
  'test/cluster/unsafe-trust.ts',
  'test/delivery/webhooks/crash-child.ts',
  'test/store/append-child.ts',
];
/** The service and the SDK it imports, compiled whole (not their tests), and racewire-tail (its folder's top). */
const SOURCE_DIRS = ['src', 'clients/js/src'];
const FLAT_DIRS = ['clients/cli'];
/** Files read beside the modules at run time. */
const ASSET_DIRS = ['src/simulator/data', 'src/store/redis/lua', 'src/delivery/webhooks/redis/lua'];

const sources = (dir: string, recursive: boolean): string[] =>
  readdirSync(join(ROOT, dir), { recursive, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join(dir, f));

/**
 * Leaves every import as written (each file is compiled on its own), except the SDK's package name, which
 * tsconfig.json's `paths` map to the SDK's sources: it becomes a relative import of their compiled copy, so
 * children run the SDK as it is in the checkout, as tsx did.
 */
const importsAsWritten: Plugin = {
  name: 'imports-as-written',
  setup(b) {
    b.onResolve({ filter: /^@racewire\/client(\/[a-z-]+)?$/ }, (args) => {
      const sdkFile = join(ROOT, 'clients/js/src', `${args.path.split('/')[2] ?? 'index'}.js`);
      const rel = relative(dirname(args.importer), sdkFile);
      return { path: rel.startsWith('.') ? rel : `./${rel}`, external: true };
    });
    b.onResolve({ filter: /.*/ }, (args) => (args.kind === 'entry-point' ? undefined : { external: true }));
  },
};

/** Compiles the children's sources into a fresh directory under node_modules/.cache (so packages resolve). */
export async function buildChildren(): Promise<string> {
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, 'racewire-children-'));
  await build({
    entryPoints: [
      ...SOURCE_DIRS.flatMap((dir) => sources(dir, true)),
      ...FLAT_DIRS.flatMap((dir) => sources(dir, false)),
      ...CHILD_SCRIPTS,
    ].map((f) => join(ROOT, f)),
    outdir: out,
    outbase: ROOT,
    bundle: true,
    plugins: [importsAsWritten],
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  for (const dir of ASSET_DIRS) cpSync(join(ROOT, dir), join(out, dir), { recursive: true });
  // src/http/board.ts serves `../../dist/board/` from where it sits: the board the global set-up built.
  symlinkSync(join(ROOT, 'dist'), join(out, 'dist'));
  return out;
}

export function removeChildren(out: string): void {
  rmSync(out, { recursive: true, force: true });
}

/** The node arguments that run `entry` (a .ts file, relative to the repository or absolute). */
export function nodeArgs(entry: string): string[] {
  const out = process.env[CHILD_BUILD_ENV];
  const rel = isAbsolute(entry) ? relative(ROOT, entry) : entry;
  const built = out ? join(out, rel.replace(/\.ts$/, '.js')) : undefined;
  return built && existsSync(built) ? [built] : ['--import', 'tsx', entry];
}
