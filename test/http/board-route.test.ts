import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { registerBoard } from '../../src/http/board.js';

describe('the board route', () => {
  let app: FastifyInstance;
  let page: string;

  beforeAll(async () => {
    app = await buildApp({ logger: pino({ level: 'silent' }) });
    await registerBoard(app);
    page = (await app.inject('/')).body;
  });
  afterAll(() => app.close());

  const linked = (ext: 'js' | 'css' | 'svg') => {
    const m = new RegExp(`/board/(?:app|board|favicon)\\.[0-9a-f]{12}\\.${ext}`).exec(page);
    if (!m) throw new Error(`page links no .${ext}`);
    return m[0];
  };

  it('serves the page at / with its bundle and stylesheet under content-hashed URLs', async () => {
    const res = await app.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(page).toContain('data-testid="race-view"');
    expect(page).not.toContain('%SCRIPT%');
    expect(page).not.toContain('%STYLE%');
  });

  it('answers a revalidation with 304 when the page has not changed', async () => {
    const first = await app.inject('/');
    const again = await app.inject({ url: '/', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves the bundled script, which includes the SDK, cached for a year', async () => {
    const res = await app.inject(linked('js'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toContain('racewire.v1'); // the SDK's subprotocol, bundled in
    expect(res.body).not.toMatch(/^import /m); // one self-contained file
  });

  it('serves the stylesheet, and an old hash without long caching', async () => {
    const css = await app.inject(linked('css'));
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const stale = await app.inject('/board/board.000000000000.css');
    expect(stale.statusCode).toBe(200);
    expect(stale.headers['cache-control']).toBe('no-cache');
  });

  it('links an icon and answers /favicon.ico with it, so a browser logs no missing favicon', async () => {
    const icon = await app.inject(linked('svg'));
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const ico = await app.inject('/favicon.ico');
    expect(ico.statusCode).toBe(200);
    expect(ico.body).toBe(icon.body);
  });

  it('answers 404 for any other board file', async () => {
    for (const url of [
      '/board/main.ts',
      '/board/app.js',
      '/board/..%2Fsrc%2Fconfig.ts',
      '/board/app.abc.css',
      '/board/favicon.abc.js',
    ]) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(404);
    }
  });
});
