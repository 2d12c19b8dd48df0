/**
 * Builds the live board (clients/web) into `dist/board/`: one minified browser bundle of its TypeScript
 * (and the SDK it imports), beside the page, the stylesheet and the icon. Run by `npm run build` (and before
 * `npm start` and the tests), so the service serves files and needs no bundler at run time.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const WEB_DIR = fileURLToPath(new URL('../clients/web/', import.meta.url));
export const BOARD_OUT_DIR = fileURLToPath(new URL('../dist/board/', import.meta.url));

/** The files `src/http/board.ts` serves, as they sit in clients/web (the script is bundled to app.js). */
const STATIC_FILES = ['index.html', 'board.css', 'favicon.svg'];

export async function buildBoard(outDir = BOARD_OUT_DIR): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [`${WEB_DIR}main.ts`],
    outfile: `${outDir}app.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  await Promise.all(STATIC_FILES.map((file) => copyFile(`${WEB_DIR}${file}`, `${outDir}${file}`)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildBoard();
}
