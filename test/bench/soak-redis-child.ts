/**
 * Child process for the soak-redis test: starts the soak's own redis-server on the port given, prints its
 * url and waits to be stopped. Run with `node --import tsx test/bench/soak-redis-child.ts <port>` (through
 * tsx, not the test build: bench/ is not compiled for children).
 */
import { startSoakRedis } from '../../bench/support/soak-redis.js';

const port = Number(process.argv[2]);
if (!Number.isInteger(port)) throw new Error('usage: soak-redis-child.ts <port>');
const redis = await startSoakRedis(port);
process.stdout.write(`${redis.url}\n`);
// Held open until a signal ends the process.
setInterval(() => {}, 1 << 30);
