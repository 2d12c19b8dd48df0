/**
 * `odds.plunge` / `odds.drift` from the runners' timestamped flucs (`flucs_with_timestamp.last_six`, keyed
 * by timestamp in the document): when a payload brings a runner a new fluc, its price is compared with the
 * flucs of the window before it. Only upstream's own prices and times are used, so every event's from, to
 * and window can be read off the flucs it carries; a scratched runner's stale prices are ignored.
 */
import type { DetectedRaceEvent, FlucPoint, RaceContext } from '@racewire/client/protocol';
import type { DocRunner, RaceDocument } from '../track/normalise.js';
import { byRunnerNumber, finite, isRecord, runnerRef, runnersOf } from './detect-context.js';
import type { MarketThresholds } from './market-thresholds.js';

type Fluc = FlucPoint & { at: number };

/** A runner's flucs with a usable time and price, oldest first. */
export function flucsOf(r: DocRunner | undefined): Fluc[] {
  const lastSix = isRecord(r?.flucs_with_timestamp) ? r.flucs_with_timestamp.last_six : undefined;
  const items = Array.isArray(lastSix) ? lastSix : isRecord(lastSix) ? Object.values(lastSix) : [];
  const out: Fluc[] = [];
  for (const f of items) {
    if (!isRecord(f) || typeof f.timestamp !== 'string') continue;
    const price = finite(f.fluc);
    const at = Date.parse(f.timestamp);
    if (price !== null && price > 0 && Number.isFinite(at)) out.push({ timestamp: f.timestamp, price, at });
  }
  return out.sort((a, b) => a.at - b.at);
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * The move to `latest` over the window before it: the price in force at the window's start and every fluc
 * in the window are the references; a plunge (a firming tick) is measured from the longest of them, a drift
 * (a drifting tick) from the shortest. Undefined when neither reaches its threshold.
 */
export function priceMove(
  history: readonly Fluc[],
  latest: Fluc,
  th: Pick<MarketThresholds, 'plungePct' | 'driftPct' | 'priceWindowMinutes'>,
): { type: 'odds.plunge' | 'odds.drift'; from: Fluc; changePct: number; flucs: Fluc[] } | undefined {
  const start = latest.at - th.priceWindowMinutes * 60_000;
  const before = history.filter((f) => f.at < latest.at);
  const inForce = before.filter((f) => f.at <= start).at(-1);
  const refs = [...(inForce ? [inForce] : []), ...before.filter((f) => f.at > start)];
  if (refs.length === 0) return undefined;
  const longest = refs.reduce((a, b) => (b.price > a.price ? b : a));
  const shortest = refs.reduce((a, b) => (b.price < a.price ? b : a));
  const flucs = [...refs, latest];
  // The newest fluc itself must move that way: 18 -> 11 -> 13 is a drift tick, not a second plunge.
  const previous = before.at(-1) as Fluc;
  const firm = round1(((latest.price - longest.price) / longest.price) * 100);
  if (latest.price < previous.price && -firm >= th.plungePct)
    return { type: 'odds.plunge', from: longest, changePct: firm, flucs };
  const drift = round1(((latest.price - shortest.price) / shortest.price) * 100);
  if (latest.price > previous.price && drift >= th.driftPct)
    return { type: 'odds.drift', from: shortest, changePct: drift, flucs };
  return undefined;
}

const point = (f: Fluc): FlucPoint => ({ timestamp: f.timestamp, price: f.price });

export function detectPriceMoves(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
  th: MarketThresholds,
): DetectedRaceEvent[] {
  const before = runnersOf(prev);
  const after = runnersOf(next);
  const out: DetectedRaceEvent[] = [];
  for (const key of byRunnerNumber(after)) {
    const b = after.get(key)!;
    const a = before.get(key);
    if (!a || b.is_scratched === true) continue;
    const earlier = flucsOf(a);
    const seen = new Set(earlier.map((f) => f.timestamp));
    const flucs = flucsOf(b);
    const now = new Set(flucs.map((f) => f.timestamp));
    // Only a fluc this payload brought is news; the history is both documents' flucs (a fluc that slid
    // out of last_six still counts for the window). Each new fluc is judged in turn against the flucs before
    // it, so the events follow from upstream's flucs alone, not from how often racewire polled: a payload
    // that brings a plunge and then a small tick back reports the plunge, as two polls would have.
    const history = [...earlier.filter((f) => !now.has(f.timestamp)), ...flucs].sort((x, y) => x.at - y.at);
    for (const latest of flucs.filter((f) => !seen.has(f.timestamp))) {
      const move = priceMove(history, latest, th);
      if (!move) continue;
      const windowFrom = Math.max(move.from.at, latest.at - th.priceWindowMinutes * 60_000);
      out.push({
        type: move.type,
        data: {
          race,
          runner: runnerRef(b),
          market: 'fixed_win',
          from: move.from.price,
          to: latest.price,
          changePct: move.changePct,
          window: {
            minutes: th.priceWindowMinutes,
            from: new Date(windowFrom).toISOString(),
            to: new Date(latest.at).toISOString(),
          },
          flucs: move.flucs.map(point),
        },
      });
    }
  }
  return out;
}
