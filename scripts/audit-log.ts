/**
 * Audits a stopped racewire's SQLite log for what a consumer could not take back: an event repeated in its
 * stream (a status, results, dividends, the jump, a scratching), a status going back, a reinstatement, or a
 * timestamp going back. Used after restarting the default set-up (docs/benchmarks.md).
 *   npx tsx scripts/audit-log.ts [DATA_DIR]     (default ./data)
 * Prints the counts by event type and each finding; exit code 1 when there is any.
 */
import type { LogEntry } from '../src/events/envelope.js';
import { openSqliteEventLog } from '../src/store/index.js';
import { STATUS_RANK } from '../src/watch/track/trust.js';

// biome-ignore lint/suspicious/noExplicitAny: event data of every type
type Loose = Record<string, any>;

/** What makes an event a repeat when it comes twice in one stream; undefined for events that may recur. */
function repeatKey(type: string, d: Loose): string | undefined {
  switch (type) {
    case 'race.status_changed':
      return `status ${d.to}`;
    case 'race.jumped':
      return 'jumped';
    case 'race.results':
      return `results ${d.kind} ${JSON.stringify(d.results)}`;
    case 'race.dividends':
      return `dividends ${JSON.stringify(d.dividends)}`;
    case 'runner.scratched':
    case 'runner.removed':
      return `${type} ${d.runner?.entrantId}`;
    default:
      return undefined;
  }
}

function audit(stream: string, entries: LogEntry[], types: Map<string, number>): string[] {
  const findings: string[] = [];
  const seen = new Map<string, number>();
  let last = Number.NEGATIVE_INFINITY;
  for (const entry of entries) {
    const at = Date.parse(entry.timestamp);
    if (at < last) findings.push(`${stream} seq ${entry.seq}: timestamp back to ${entry.timestamp}`);
    last = at;
    if (entry.kind !== 'event') continue;
    const { type, data } = entry.event as { type: string; data: Loose };
    types.set(type, (types.get(type) ?? 0) + 1);
    const from = STATUS_RANK[data.from];
    const to = STATUS_RANK[data.to];
    if (type === 'race.status_changed' && from !== undefined && to !== undefined && to < from) {
      findings.push(`${stream} seq ${entry.seq}: status back from ${data.from} to ${data.to}`);
    }
    if (type === 'runner.reinstated')
      findings.push(`${stream} seq ${entry.seq}: ${data.runner?.name} reinstated`);
    const key = repeatKey(type, data);
    if (key === undefined) continue;
    const first = seen.get(key);
    if (first !== undefined)
      findings.push(`${stream} seq ${entry.seq}: repeats seq ${first} (${key.slice(0, 60)})`);
    else seen.set(key, entry.seq);
  }
  return findings;
}

const log = openSqliteEventLog(process.argv[2] ?? './data', Number.MAX_SAFE_INTEGER);
const types = new Map<string, number>();
const findings: string[] = [];
let entries = 0;
for (const stream of await log.streams()) {
  const read = await log.read(stream, 0);
  if (!read.ok) continue; // settled or forgotten: nothing left to audit
  entries += read.entries.length;
  findings.push(...audit(stream, read.entries, types));
}
await log.close();
console.log(`${entries} entries; events by type: ${JSON.stringify(Object.fromEntries(types))}`);
for (const line of findings) console.log(line);
console.log(`${findings.length} findings`);
process.exit(findings.length > 0 ? 1 : 0);
