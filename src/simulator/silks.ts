/**
 * Racing silks: drawn per runner from the seed, described in words as `silk_colours` is, and served by the
 * simulator itself as small SVG images, so a browser showing a simulated payload gets no failed image.
 * The image URL carries the whole silk (pattern and colours), so serving one needs no lookup; a race's
 * sprite sheet (`silk_url`) is looked up by race id.
 */
import type { FastifyInstance } from 'fastify';
import type { RaceStatic, Silk } from './model.js';
import type { Rng } from './rng.js';

const COLOURS: Record<string, string> = {
  black: '111111',
  white: 'f4f4f4',
  red: 'd22630',
  cerise: 'de3163',
  pink: 'f4a6c0',
  orange: 'f28c28',
  gold: 'd4a017',
  yellow: 'f5d90a',
  green: '1f7a3a',
  emerald: '2e8b57',
  royal: '1d3fbb',
  navy: '1b2a4a',
  'light blue': '7fb8e6',
  purple: '6a2c91',
  maroon: '7a1f2b',
  grey: '8c8c8c',
  brown: '7b4a2d',
};
const NAMES = Object.keys(COLOURS);
const PATTERNS = ['plain', 'hoops', 'stripes', 'sash', 'quarters', 'checks', 'spots', 'chevrons'];
const CAPS = ['cap', 'quartered cap', 'striped cap', 'spotted cap', 'cap with pompom'];
const HEX = /^[0-9a-f]{6}$/;
const SILK_SIZES = [64, 128] as const;

export function drawSilk(rng: Rng): Silk {
  const body = rng.pick(NAMES);
  let trim = rng.pick(NAMES);
  if (trim === body) trim = NAMES[(NAMES.indexOf(body) + 5) % NAMES.length] as string;
  return { pattern: rng.pick(PATTERNS), body, trim, cap: rng.pick(CAPS) };
}

const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `silk_colours` in the real payload's style: "Cerise & gold hoops, cerise sleeves & quartered cap". */
export function describeSilk(s: Silk): string {
  if (s.pattern === 'plain') return `${title(s.body)}, ${s.trim} sleeves & ${s.cap}`;
  return `${title(s.body)} & ${s.trim} ${s.pattern}, ${s.body} sleeves & ${s.trim} ${s.cap}`;
}

export function silkUrl(base: string, s: Silk, size: number): string {
  return `${base}/silks/${s.pattern}-${COLOURS[s.body]}-${COLOURS[s.trim]}_${size}x${size}.svg`;
}

export const spriteUrl = (base: string, raceId: string, size: number) =>
  `${base}/silks/sprites/${raceId}_SPRITE_${size}x${size}.svg`;

/** The pattern drawn over the body colour, in a 64-unit box clipped to the jersey. */
function patternShapes(pattern: string, trim: string): string {
  const fill = `fill="#${trim}"`;
  switch (pattern) {
    case 'hoops':
      return [16, 30, 44].map((y) => `<rect x="0" y="${y}" width="64" height="7" ${fill}/>`).join('');
    case 'stripes':
      return [14, 26, 38, 50].map((x) => `<rect x="${x}" y="0" width="5" height="64" ${fill}/>`).join('');
    case 'sash':
      return `<polygon points="14,10 24,10 52,60 42,60" ${fill}/>`;
    case 'quarters':
      return `<rect x="32" y="0" width="32" height="34" ${fill}/><rect x="0" y="34" width="32" height="30" ${fill}/>`;
    case 'checks':
      return Array.from({ length: 16 }, (_, i) => {
        const x = (i % 4) * 16 + (Math.floor(i / 4) % 2) * 8;
        return `<rect x="${x}" y="${Math.floor(i / 4) * 16}" width="8" height="8" ${fill}/>`;
      }).join('');
    case 'spots':
      return [20, 32, 44]
        .flatMap((x) => [24, 40].map((y) => `<circle cx="${x}" cy="${y}" r="3.5" ${fill}/>`))
        .join('');
    case 'chevrons':
      return [22, 38]
        .map(
          (y) =>
            `<polyline points="14,${y} 32,${y + 10} 50,${y}" stroke="#${trim}" stroke-width="5" fill="none"/>`,
        )
        .join('');
    default:
      return '';
  }
}

const JERSEY = 'M18 12 L26 8 Q32 12 38 8 L46 12 L58 24 L50 30 L46 26 L46 60 L18 60 L18 26 L14 30 L6 24 Z';

/** One jersey in a 64-unit box, offset by `dx`. */
function jersey(pattern: string, body: string, trim: string, id: string, dx = 0): string {
  return (
    `<g transform="translate(${dx} 0)"><clipPath id="j${id}"><path d="${JERSEY}"/></clipPath>` +
    `<path d="${JERSEY}" fill="#${body}" stroke="#333" stroke-width="1"/>` +
    `<g clip-path="url(#j${id})">${patternShapes(pattern, trim)}</g>` +
    `<path d="M6 24 L18 12 L18 26 L14 30 Z M58 24 L46 12 L46 26 L50 30 Z" fill="#${trim}" opacity="0.85"/>` +
    `<ellipse cx="32" cy="6" rx="8" ry="5" fill="#${trim}" stroke="#333" stroke-width="0.8"/></g>`
  );
}

function silkSvg(pattern: string, body: string, trim: string, size: number): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 64 64">` +
    `${jersey(pattern, body, trim, '0')}</svg>`
  );
}

function spriteSvg(race: RaceStatic, size: number): string {
  const n = race.runners.length;
  const parts = race.runners.map((r, i) =>
    jersey(r.silk.pattern, COLOURS[r.silk.body] as string, COLOURS[r.silk.trim] as string, String(i), i * 64),
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size * n}" height="${size}" viewBox="0 0 ${64 * n} 64">` +
    `${parts.join('')}</svg>`
  );
}

const SILK_FILE = /^([a-z]+)-([0-9a-f]{6})-([0-9a-f]{6})_(\d+)x\d+\.svg$/;
const SPRITE_FILE = /^([0-9a-f-]{36})_SPRITE_(\d+)x\d+\.svg$/;

/** GET /silks/{file} and /silks/sprites/{file}: not rate limited, like the real CDN. */
export function registerSilkRoutes(app: FastifyInstance, findRace: (id: string) => RaceStatic | undefined) {
  const svg = (reply: import('fastify').FastifyReply, body: string) =>
    reply.header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=86400').send(body);
  const notFound = (reply: import('fastify').FastifyReply, file: string) =>
    reply.code(404).send({ error: 'not_found', message: `no silk ${file}` });
  app.get('/silks/:file', async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const m = SILK_FILE.exec(file);
    const size = Number(m?.[4]);
    if (
      !m ||
      !PATTERNS.includes(m[1] as string) ||
      !HEX.test(m[2] as string) ||
      !SILK_SIZES.includes(size as 64)
    )
      return notFound(reply, file);
    return svg(reply, silkSvg(m[1] as string, m[2] as string, m[3] as string, size));
  });
  app.get('/silks/sprites/:file', async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const m = SPRITE_FILE.exec(file);
    const race = m ? findRace(m[1] as string) : undefined;
    const size = Number(m?.[2]);
    if (!race || !SILK_SIZES.includes(size as 64)) return notFound(reply, file);
    return svg(reply, spriteSvg(race, size));
  });
}
