import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.js';

const sdk = (file: string) => fileURLToPath(new URL(`./clients/js/src/${file}`, import.meta.url));

export default defineConfig({
  // The SDK's sources, as tsconfig.json's `paths` map them for tsc, tsx and esbuild.
  resolve: {
    alias: [
      { find: /^@racewire\/client$/, replacement: sdk('index.ts') },
      { find: /^@racewire\/client\/([a-z-]+)$/, replacement: sdk('$1.ts') },
    ],
  },
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The unit suites and the e2e suites (`*.e2e.test.ts`, `test/e2e/`: child processes, a browser,
    // redis-servers of their own, real wall-clock polling) in one list: each e2e suite keeps to itself (ports
    // from the OS, its own redis-server or key prefix, temporary directories), so they run beside the unit suites.
    // One project, not two: with `isolate: false` Vitest runs each project's files to the end before the next
    // project's, which would put every e2e suite's waiting after the unit suites instead of beside them.
    include: ['test/**/*.test.ts', 'clients/**/*.test.ts'],
    pool: 'forks',
    // Two forks, one a core: Vitest's default (one fork fewer than the cores) ran everything one file at a time.
    // The long e2e suites mostly wait on the wall clock (a nemesis minute, a full rate window, nodes failing
    // over), so a unit suite uses the cores while one waits. Three and four forks were faster when the machine
    // was idle but, at load 24, failed minute-long files that two forks pass.
    poolOptions: { forks: { maxForks: 2 } },
    // A fork runs file after file without a new process and module graph for each: the graph's import was
    // 119 s of the suite's fork time (docs/testing.md, "Where the suite's time goes"). Files therefore share
    // module state; tests keep none of their own at module level (counters reset, stubs and handlers removed).
    isolate: false,
    // The longest files start first (test/support/longest-first.ts), so no minute-long suite starts last.
    sequence: { sequencer: LongestFirst },
  },
});
