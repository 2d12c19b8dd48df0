/**
 * Runner records as JSON bytes, the static members serialised once per race: a runner record is ~90 members
 * from runner-record.ts (last starts, win history, picks: ~15 KB) with ~16 that move (odds, flucs, flags), and
 * serialising the whole payload at every tote tick was the simulator's biggest cost (docs/benchmarks.md, the
 * soak's CPU). The bytes are those of `JSON.stringify({ ...base, ...live })`, members in the same order: the
 * base's in its order, a live value in its base member's place, live members the base lacks at the end.
 */

/** A record's members as runs: bytes of consecutive static members, or the name of a live one. */
type Run = Buffer | { live: string };

const OPEN = Buffer.from('{');
const CLOSE = Buffer.from('}');
const COMMA = Buffer.from(',');

/** Runs per base record and per set of live member names (the same few sets, race after race). */
const runsOf = new WeakMap<Record<string, unknown>, Map<string, Run[]>>();

function runs(base: Record<string, unknown>, liveKeys: readonly string[]): Run[] {
  const signature = liveKeys.join(',');
  let bySignature = runsOf.get(base);
  if (!bySignature) {
    bySignature = new Map();
    runsOf.set(base, bySignature);
  }
  const known = bySignature.get(signature);
  if (known) return known;
  const live = new Set(liveKeys);
  const out: Run[] = [];
  let statics: string[] = [];
  const flush = () => {
    if (statics.length > 0) out.push(Buffer.from(statics.join(',')));
    statics = [];
  };
  for (const key of Object.keys(base)) {
    if (live.has(key)) {
      flush();
      out.push({ live: key });
      continue;
    }
    const json = JSON.stringify(base[key]);
    if (json !== undefined) statics.push(`${JSON.stringify(key)}:${json}`);
  }
  flush();
  for (const key of liveKeys) if (!Object.hasOwn(base, key)) out.push({ live: key });
  bySignature.set(signature, out);
  return out;
}

/** Appends the bytes of `JSON.stringify({ ...base, ...live })` to `parts`. */
export function pushRunnerJson(
  parts: Buffer[],
  base: Record<string, unknown>,
  live: Record<string, unknown>,
): void {
  parts.push(OPEN);
  let first = true;
  for (const run of runs(base, Object.keys(live))) {
    let bytes: Buffer;
    if (Buffer.isBuffer(run)) bytes = run;
    else {
      const json = JSON.stringify(live[run.live]);
      if (json === undefined) continue;
      bytes = Buffer.from(`${JSON.stringify(run.live)}:${json}`);
    }
    if (!first) parts.push(COMMA);
    parts.push(bytes);
    first = false;
  }
  parts.push(CLOSE);
}
