/**
 * Runs once before the test files: the board is served from its build, so build it from the sources; the
 * child nodes run from a build of their own (support/child-build.ts), removed when the run ends.
 */
import { buildBoard } from '../scripts/build-board.js';
import { buildChildren, CHILD_BUILD_ENV, removeChildren } from './support/child-build.js';

export default async function setup(): Promise<() => void> {
  const [, children] = await Promise.all([buildBoard(), buildChildren()]);
  process.env[CHILD_BUILD_ENV] = children;
  return () => removeChildren(children);
}
