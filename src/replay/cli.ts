/**
 * `npm run simulator -- --replay FILE [--replay FILE2 | DIR] [--speed N] [--from ISO] [--port P] [--host H]`:
 * serves recordings as the racing API until SIGINT/SIGTERM. Defaults: speed 1 (the recorded pace), from the
 * first record, port SIMULATOR_PORT or 8081.
 */
import { parseArgs } from 'node:util';
import { createScaledClock } from '../clock.js';
import type { Logger } from '../logger.js';
import { startReplay } from './index.js';

export async function serveReplayFromArgs(argv: string[], logger: Logger): Promise<never> {
  const { values } = parseArgs({
    args: argv,
    options: {
      replay: { type: 'string', multiple: true },
      speed: { type: 'string', default: '1' },
      from: { type: 'string' },
      port: { type: 'string', default: process.env.SIMULATOR_PORT || '8081' },
      host: { type: 'string', default: process.env.SIMULATOR_HOST || '127.0.0.1' },
    },
  });
  const speed = Number(values.speed);
  const from = values.from === undefined ? undefined : Date.parse(values.from);
  const port = Number(values.port);
  const problems = [
    !values.replay?.length && '--replay needs a recording file or directory',
    !(speed > 0) && `--speed must be a positive number, got ${values.speed}`,
    from !== undefined && Number.isNaN(from) && `--from must be an ISO 8601 instant, got ${values.from}`,
    !(Number.isInteger(port) && port >= 0 && port <= 65535) &&
      `--port must be a port number, got ${values.port}`,
  ].filter(Boolean);
  if (problems.length) {
    logger.fatal({ problems }, 'invalid replay arguments');
    process.exit(2);
  }
  const replay = await startReplay({
    paths: values.replay as string[],
    from,
    clockFrom: (origin) => createScaledClock({ origin, speed }),
    logger,
    port,
    host: values.host,
  });
  logger.info({ url: replay.url, speed }, 'replay listening');
  const stop = async () => {
    await replay.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<never>(() => {});
}
