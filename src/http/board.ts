/**
 * Serves the live board (clients/web) at `/`. The board's TypeScript (and the client SDK it imports) is
 * bundled once, in memory, with esbuild when the route is registered, so there is no build step and no
 * generated file in the tree. The bundle and stylesheet are served under content-hashed URLs and cached for
 * a year; the page itself is revalidated every time so a new deploy is picked up at once.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { FastifyInstance, FastifyReply } from 'fastify';

const WEB_DIR = fileURLToPath(new URL('../../clients/web/', import.meta.url));

export class BoardBuildError extends Error {
  readonly code = 'RW_BOARD_BUILD_FAILED';
  constructor(message: string) {
    super(`could not bundle the board: ${message}`);
    this.name = this.constructor.name;
  }
}

interface Asset {
  body: string;
  type: string;
  hash: string;
}

const hashOf = (body: string) => createHash('sha256').update(body).digest('hex').slice(0, 12);

/** Bundles clients/web/main.ts (browser, ES2020, minified) into one script, in memory. */
export async function bundleBoard(): Promise<string> {
  try {
    const result = await build({
      entryPoints: [`${WEB_DIR}main.ts`],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
    });
    const out = result.outputFiles[0];
    if (!out) throw new Error('esbuild produced no output');
    return out.text;
  } catch (err) {
    throw new BoardBuildError(err instanceof Error ? err.message : String(err));
  }
}

export async function registerBoard(app: FastifyInstance): Promise<void> {
  const [script, css, html] = await Promise.all([
    bundleBoard(),
    readFile(`${WEB_DIR}board.css`, 'utf8'),
    readFile(`${WEB_DIR}index.html`, 'utf8'),
  ]);
  const js: Asset = { body: script, type: 'text/javascript; charset=utf-8', hash: hashOf(script) };
  const style: Asset = { body: css, type: 'text/css; charset=utf-8', hash: hashOf(css) };
  const page = html
    .replace('%SCRIPT%', `/board/app.${js.hash}.js`)
    .replace('%STYLE%', `/board/board.${style.hash}.css`);
  const pageEtag = `"${hashOf(page)}"`;

  const sendAsset = (asset: Asset, hash: string, reply: FastifyReply) => {
    // An old hash (a page cached before a deploy) still gets the current file, but not cached for long.
    const immutable = hash === asset.hash;
    return reply
      .header('content-type', asset.type)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  };

  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    reply
      .header('cache-control', 'no-cache')
      .header('etag', pageEtag)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    if (req.headers['if-none-match'] === pageEtag) return reply.code(304).send();
    return reply.header('content-type', 'text/html; charset=utf-8').send(page);
  });
  app.get<{ Params: { file: string } }>('/board/:file', { schema: { hide: true } }, async (req, reply) => {
    const m = /^(app|board)\.([0-9a-f]{1,64})\.(js|css)$/.exec(req.params.file);
    const asset =
      m?.[1] === 'app' && m[3] === 'js' ? js : m?.[1] === 'board' && m[3] === 'css' ? style : undefined;
    if (!m || !asset) {
      return reply.code(404).send({ error: { code: 'not_found', message: 'no such board file' } });
    }
    return sendAsset(asset, m[2]!, reply);
  });
}
