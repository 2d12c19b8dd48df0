/**
 * Shares write time between connections. Connections with something queued are pumped on the next
 * event-loop turn: those with little queued (answers, live patches) all at once, those with a lot (snapshots,
 * replay pages) in turn up to a byte budget, the rest on the following turn. So one turn never copies a
 * storm's worth of snapshots into sockets while another client's ping waits.
 */
import { type Session, SMALL_BYTES } from './session.js';

/** Bytes written per event-loop turn to connections with a lot queued. */
export const TURN_BUDGET_BYTES = 1024 * 1024;
/** Most written to one connection per turn (at least one message). */
const SLICE_BYTES = 256 * 1024;

export class FlushScheduler {
  private small: Session[] = [];
  private large: Session[] = [];
  private pending = false;

  schedule = (session: Session): void => {
    (session.queued() <= SMALL_BYTES ? this.small : this.large).push(session);
    if (!this.pending) {
      this.pending = true;
      setImmediate(this.run);
    }
  };

  private readonly run = (): void => {
    this.pending = false;
    const small = this.small;
    const large = this.large;
    this.small = [];
    this.large = [];
    // Classified when scheduled; a session that queued a lot since then waits its turn with the large ones.
    for (const s of small) {
      if (s.queued() <= SMALL_BYTES) s.pump(SMALL_BYTES);
      else large.push(s);
    }
    let budget = TURN_BUDGET_BYTES;
    let i = 0;
    for (; i < large.length && budget > 0; i++) budget -= large[i]!.pump(Math.min(budget, SLICE_BYTES));
    if (i < large.length) {
      // Those not served this turn go first next turn.
      this.large = large.slice(i).concat(this.large);
      if (!this.pending) {
        this.pending = true;
        setImmediate(this.run);
      }
    }
  };
}
