/**
 * What a failed nemesis run leaves behind to read: each node's output and each subscriber's segments (epoch,
 * first and last seq), in a temporary folder of its own. A failure of the log-head check (seed 261368 of stop
 * 32, seed 651925524 of stop 33) did not come again on a replay of its seed, so the run that fails is the only
 * one that can tell why.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { segmentsOf } from './checks.js';

interface Evidence {
  nodes: readonly { name: string; output: readonly string[] }[];
  subscribers: readonly {
    node: { name: string };
    raceId: string;
    messages: Parameters<typeof segmentsOf>[0];
  }[];
}

/** Writes the evidence and returns the folder it is in. */
export function keepEvidence({ nodes, subscribers }: Evidence): string {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-nemesis-'));
  for (const node of nodes) writeFileSync(join(dir, `${node.name}.log`), node.output.join(''));
  const segments = subscribers.map((s) => ({
    node: s.node.name,
    race: s.raceId,
    segments: segmentsOf(s.messages).map((g) => ({
      epoch: g.epoch,
      from: g.from,
      last: g.seqs.at(-1) ?? g.from,
    })),
  }));
  writeFileSync(join(dir, 'subscribers.json'), `${JSON.stringify(segments, null, 1)}\n`);
  return dir;
}
