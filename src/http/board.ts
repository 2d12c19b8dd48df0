/**
 * Serves the live board (clients/web) at `/` from `dist/board/`, which `npm run build` (scripts/build-board.ts)
 * fills: there is no bundler at run time. The script, stylesheet and icon are served under content-hashed
 * URLs and cached for a year; the page itself is revalidated every time so a new deploy is picked up at once.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorBody } from './errors.js';

/** Where the build puts the board, from src/http (tsx) and dist/http (node) alike. */
export const BOARD_DIR = fileURLToPath(new URL('../../dist/board/', import.meta.url));

export class BoardMissingError extends Error {
  readonly code = 'RW_BOARD_MISSING';
  constructor(dir: string) {
    super(`the board is not built (no ${dir}index.html): run npm run build`);
    this.name = this.constructor.name;
  }
}

interface Asset {
  body: string;
  type: string;
  hash: string;
}

const hashOf = (body: string) => createHash('sha256').update(body).digest('hex').slice(0, 12);

/** File name stem -> [built file, extension in the URL, content type]. */
const ASSETS = {
  app: ['app.js', 'js', 'text/javascript; charset=utf-8'],
  board: ['board.css', 'css', 'text/css; charset=utf-8'],
  favicon: ['favicon.svg', 'svg', 'image/svg+xml'],
} as const;
type AssetName = keyof typeof ASSETS;

async function readAssets(dir: string) {
  const html = await readFile(`${dir}index.html`, 'utf8').catch(() => {
    throw new BoardMissingError(dir);
  });
  const assets = {} as Record<AssetName, Asset>;
  for (const [name, [file, , type]] of Object.entries(ASSETS) as [AssetName, (typeof ASSETS)[AssetName]][]) {
    const body = await readFile(`${dir}${file}`, 'utf8');
    assets[name] = { body, type, hash: hashOf(body) };
  }
  return { html, assets };
}

export async function registerBoard(app: FastifyInstance, dir = BOARD_DIR): Promise<void> {
  const { html, assets } = await readAssets(dir);
  const url = (name: AssetName) => `/board/${name}.${assets[name].hash}.${ASSETS[name][1]}`;
  const page = html
    .replace('%SCRIPT%', url('app'))
    .replace('%STYLE%', url('board'))
    .replace('%ICON%', url('favicon'));

  const sendAsset = (asset: Asset, hash: string, reply: FastifyReply) => {
    // An old hash (a page cached before a deploy) still gets the current file, but not cached for long.
    const immutable = hash === asset.hash;
    return reply
      .header('content-type', asset.type)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  };

  // Revalidated on every load; the app's ETag (@fastify/etag) makes that a 304 while the page is unchanged.
  app.get('/', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('content-type', 'text/html; charset=utf-8')
      .send(page),
  );
  // Browsers ask for /favicon.ico whatever the page links; the SVG answers it.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_req, reply) =>
    sendAsset(assets.favicon, '', reply),
  );
  app.get<{ Params: { file: string } }>('/board/:file', { schema: { hide: true } }, async (req, reply) => {
    const m = /^(app|board|favicon)\.([0-9a-f]{1,64})\.(js|css|svg)$/.exec(req.params.file);
    const name = m?.[1] as AssetName | undefined;
    if (!m || !name || ASSETS[name][1] !== m[3]) {
      return reply.code(404).send(errorBody('not_found', 'no such board file'));
    }
    return sendAsset(assets[name], m[2]!, reply);
  });
}
