/** Starting the benchmark server child and talking to it. */
import { type ChildProcess, fork } from 'node:child_process';
import { setPriority } from 'node:os';

export interface ServerChild {
  url: string;
  epoch: string;
  ask<T>(msg: object, reply: string): Promise<T>;
  stop(): void;
}

export async function startServerChild(env: Record<string, string>): Promise<ServerChild> {
  const child: ChildProcess = fork(new URL('./stream-server.ts', import.meta.url).pathname, [], {
    env: { ...process.env, ...env },
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // The parent may have lowered its own priority (a load generator); the server runs at normal priority.
  if (child.pid) setPriority(child.pid, 0);
  const up = await new Promise<{ url: string; epoch: string }>((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (m: { cmd: string; url: string; epoch: string }) => {
      if (m.cmd === 'up') resolve(m);
    });
  });
  return {
    ...up,
    ask: <T>(msg: object, reply: string) =>
      new Promise<T>((resolve) => {
        const on = (m: { cmd: string }) => {
          if (m.cmd !== reply) return;
          child.off('message', on);
          resolve(m as T);
        };
        child.on('message', on);
        child.send(msg);
      }),
    stop: () => {
      // A profiled child exits by itself so that it writes its profile.
      if (process.env.BENCH_CPU_PROF) child.send({ cmd: 'exit' });
      else child.kill('SIGKILL');
    },
  };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
