// Preloaded into the cluster suites' node processes (`--import`, set by cluster-harness.ts's spawnNode): moves
// this process's Date by RACEWIRE_TEST_CLOCK_OFFSET_MS, the offset the suite's simulator runs on
// (cluster-clock.ts), so that every node and the simulator see the same fixed time of day whenever the suite
// runs. Plain JavaScript: it loads before tsx and in the suites' built children alike.
const offset = Number(process.env.RACEWIRE_TEST_CLOCK_OFFSET_MS ?? 0);
if (!Number.isFinite(offset)) throw new Error('RACEWIRE_TEST_CLOCK_OFFSET_MS must be a number of ms');
if (offset !== 0) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  RealDate.now = () => realNow() + offset;
  globalThis.Date = new Proxy(RealDate, {
    // `new Date()` is now; `new Date(x)` is x, unshifted.
    construct: (target, args, newTarget) =>
      Reflect.construct(target, args.length === 0 ? [RealDate.now()] : args, newTarget),
    // `Date()` called as a function returns now as a string.
    apply: () => new RealDate(RealDate.now()).toString(),
  });
}
