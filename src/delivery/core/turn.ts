/**
 * Event-loop turns, numbered: the number moves on once per turn in which someone asked for it (one
 * `setImmediate` per turn, however many ask). A connection writes its first batch of a turn at once and
 * queues any later one, so batches of the same turn leave together.
 */
let turn = 0;
let armed = false;

const advance = () => {
  turn++;
  armed = false;
};

export function currentTurn(): number {
  if (!armed) {
    armed = true;
    setImmediate(advance);
  }
  return turn;
}
