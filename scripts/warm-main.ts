/**
 * racewire with its modules already loaded: loads the composition root and everything it imports, prints
 * `warm`, then runs src/main.ts (config from the environment, as always) on the first line of stdin. For
 * scripts/restart-budget.ts, whose restart must take as little as a real supervisor's, not the seconds tsx
 * needs to compile the sources on a busy machine.
 */
await import('../src/runtime.js');
process.stdout.write('warm\n');
process.stdin.once('data', () => {
  process.stdin.pause();
  void import('../src/main.js');
});
