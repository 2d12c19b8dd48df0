/**
 * The Bet record of /events, in the structures the real bets have (issue 22's measurement of a real Final
 * payload), not only the ones the official description promises:
 * - a single (Fixed Win, Top 3) names its runner on the leg's race and has `selections: null`;
 * - a Multi has one leg per race, in the bet's order, each naming its runner there, selections null;
 * - a Pool Quadrella has one leg with `race_number` 0 and `race_name` "", whose selections are the legs
 *   (position n holds the runners of the quaddie's n-th race);
 * - a Same Race Multi or Fixed Quinella lists its runners as selections by position;
 * - `description` names each runner by its number, not by the barrier the description promises;
 * - `entrant_id` is the uuid string, as the real bets send it, or (1 bet in 8) its 16 bytes as the
 *   description types it, so a consumer meets both.
 */
import type { SimBet, SimLeg } from './bets.js';
import type { RaceStatic, RunnerStatic } from './model.js';
import { isoNano } from './payloads.js';

const uuidBytes = (id: string) =>
  (id.replace(/-/g, '').match(/../g) ?? []).map((h) => Number.parseInt(h, 16));

export function betRecord(race: RaceStatic, bet: SimBet) {
  const meeting = race.meeting;
  const raceOf = (n: number) => meeting.races.find((r) => r.raceNumber === n) as RaceStatic;
  const runnerOf = (r: RaceStatic, id: string) => r.runners.find((x) => x.entrantId === id) as RunnerStatic;
  const idOf = (id: string) => (bet.idBytes ? uuidBytes(id) : id);
  const entrant = (r: RunnerStatic) => ({
    entrant_id: idOf(r.entrantId),
    entrant_name: r.name,
    entrant_number: r.number,
    entrant_barrier: r.barrier,
  });
  const legRace = (r: RaceStatic) => ({
    meeting_name: meeting.name,
    race_name: r.name,
    race_number: r.raceNumber,
    product_type_name: bet.product,
  });
  const single = (r: RaceStatic, runner: RunnerStatic) => ({
    race: {
      ...legRace(r),
      entrant_id: idOf(runner.entrantId),
      entrant_name: runner.name,
      entrant_number: runner.number,
      barrier_number: runner.barrier,
    },
    selections: null,
  });
  const named = (r: RunnerStatic) => `${r.name} (${r.number})`;
  const legRunners = (l: SimLeg) => {
    const r = raceOf(l.raceNumber);
    return { race: r, runners: l.entrantIds.map((id) => runnerOf(r, id)) };
  };

  let description: string[];
  let legs: unknown[];
  if (bet.product === 'Multi') {
    const each = bet.legs.map(legRunners);
    description = each.map((l) => named(l.runners[0] as RunnerStatic));
    legs = each.map((l) => single(l.race, l.runners[0] as RunnerStatic));
  } else if (bet.product === 'Pool Quadrella') {
    const each = bet.legs.map(legRunners);
    description = each.map((l) => l.runners.map((r) => r.number).join(','));
    legs = [
      {
        race: { meeting_name: meeting.name, race_name: '', race_number: 0, product_type_name: bet.product },
        selections: each.map((l, i) => ({ position: i + 1, entrants: l.runners.map(entrant) })),
      },
    ];
  } else {
    const runners = bet.entrantIds.map((id) => runnerOf(race, id));
    description = runners.map(named);
    legs =
      runners.length === 1
        ? [single(race, runners[0] as RunnerStatic)]
        : [
            {
              race: legRace(race),
              selections: runners.map((r, i) => ({ position: i + 1, entrants: [entrant(r)] })),
            },
          ];
  }
  return {
    title: bet.product,
    description,
    stake: bet.stake,
    legs,
    place_time: isoNano(bet.at),
    place_odds: bet.odds,
  };
}
