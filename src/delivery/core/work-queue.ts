/**
 * Subscription work (subscribe, unsubscribe, resync), run in arrival order a few milliseconds per event-loop
 * turn: a thousand clients subscribing at once then spread over several turns, and in between the server
 * reads sockets and answers other clients (a ping's pong is not queued here).
 */

/** Wall time one turn may spend on queued subscription work. */
const TURN_BUDGET_MS = 4;

export class WorkQueue {
  private items: Array<() => void> = [];
  private head = 0;
  private pending = false;

  constructor(private readonly onError: (err: unknown) => void) {}

  push(work: () => void): void {
    this.items.push(work);
    if (!this.pending) {
      this.pending = true;
      setImmediate(this.run);
    }
  }

  private readonly run = (): void => {
    this.pending = false;
    const until = performance.now() + TURN_BUDGET_MS;
    while (this.head < this.items.length) {
      const work = this.items[this.head++]!;
      try {
        work();
      } catch (err) {
        this.onError(err);
      }
      if (performance.now() >= until) break;
    }
    if (this.head < this.items.length) {
      this.pending = true;
      setImmediate(this.run);
    } else {
      this.items = [];
      this.head = 0;
    }
  };
}
