/** Runs once before the test files: the board is served from its build, so build it from the sources. */
import { buildBoard } from '../scripts/build-board.js';

export default async function setup(): Promise<void> {
  await buildBoard();
}
