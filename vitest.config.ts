import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdk = (file: string) => fileURLToPath(new URL(`./clients/js/src/${file}`, import.meta.url));

export default defineConfig({
  // The SDK's sources, as tsconfig.json's `paths` map them for tsc, tsx and esbuild.
  resolve: {
    alias: [
      { find: /^@racewire\/client$/, replacement: sdk('index.ts') },
      { find: /^@racewire\/client\/protocol$/, replacement: sdk('protocol.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'clients/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
