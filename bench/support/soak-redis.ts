/**
 * The soak's own redis-server (`--store redis`): a throwaway instance on a port of its own, without
 * persistence (`--save '' --appendonly no`), so a week of streams never touches the shared Redis, and its
 * figures (memory used, keys, keys with a TTL) describe racewire's keys alone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { type RedisBytes, redisBytes } from './redis-bytes.js';

export interface SoakRedis {
  url: string;
  /**
   * Memory Redis holds (INFO memory `used_memory`), keys, keys with a TTL (INFO keyspace `expires`), and the
   * CPU seconds the server has used (INFO cpu, user + system): the Redis soak's cost beyond its own process.
   */
  figures(): Promise<{ usedBytes: number; keys: number; expiring: number; cpuS: number }>;
  /** Its memory by key family (`redis-bytes.ts`): SCAN and MEMORY USAGE of every key. */
  families(): Promise<RedisBytes>;
  stop(): Promise<void>;
  /** Disconnects and leaves the server running (`--keep-redis yes`): answers its pid, to stop it by. */
  leave(): number | undefined;
}

const field = (info: string, name: string): number =>
  Number(info.match(new RegExp(`${name}[=:](\\d+)`))?.[1] ?? 0);

export async function startSoakRedis(port: number): Promise<SoakRedis> {
  const server: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  // The server goes with the soak however the soak ends: at its exit (process.exit included), and when it is
  // stopped by a signal, which would otherwise end it without an exit event and leave the server running.
  const killServer = () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
  };
  const onSignal = (signal: NodeJS.Signals) => {
    killServer();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const release = () => {
    process.off('exit', killServer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('exit', killServer);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {}); // refused while it starts: the loop below retries
  // Ready once it answers PING (a few tries while it starts).
  for (let attempt = 0; ; attempt++) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (err) {
      client.disconnect();
      if (attempt >= 50 || server.exitCode !== null) {
        killServer();
        release();
        throw new Error(`redis-server on ${port} did not start: ${err}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async figures() {
      const [memory, keyspace, keys, cpu] = await Promise.all([
        client.info('memory'),
        client.info('keyspace'),
        client.dbsize(),
        client.info('cpu'),
      ]);
      const seconds = (name: string) => Number(cpu.match(new RegExp(`${name}:([\\d.]+)`))?.[1] ?? 0);
      return {
        usedBytes: field(memory, 'used_memory'),
        keys,
        expiring: field(keyspace, 'expires'),
        cpuS: Math.round((seconds('used_cpu_user') + seconds('used_cpu_sys')) * 10) / 10,
      };
    },
    families: () => redisBytes(client),
    leave() {
      release();
      client.disconnect();
      server.unref();
      return server.pid;
    },
    async stop() {
      release();
      client.disconnect();
      killServer();
      await exited;
    },
  };
}
