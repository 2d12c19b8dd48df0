/**
 * Standalone simulator: `npm run simulator`.
 * Env: SIMULATOR_PORT (8081), SIMULATOR_SEED (1), SIMULATOR_SPEED (1 = real time).
 * `npm run simulator -- --replay FILE` serves a recording instead (src/replay/cli.ts). An entry point beside
 * main.ts, not in src/simulator/, because it composes the simulator and the replay (which builds on it).
 */
import pino from 'pino';
import { createScaledClock } from './clock.js';
import { serveReplayFromArgs } from './replay/cli.js';
import { createSimulator } from './simulator/index.js';

const logger = pino({ name: 'simulator' });
if (process.argv.includes('--replay')) await serveReplayFromArgs(process.argv.slice(2), logger);
const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    logger.fatal({ name, raw }, 'invalid environment variable');
    process.exit(1);
  }
  return n;
};

const port = num('SIMULATOR_PORT', 8081);
const seed = num('SIMULATOR_SEED', 1);
const speed = num('SIMULATOR_SPEED', 1) || 1;
const clock = createScaledClock({ origin: Date.now(), speed });
const sim = await createSimulator({ seed, clock, logger });
const url = await sim.listen({ port, host: process.env.SIMULATOR_HOST ?? '127.0.0.1' });
logger.info({ url, seed, speed, races: sim.world.races.length }, 'racing API simulator listening');

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
