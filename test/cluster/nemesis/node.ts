/**
 * A nemesis node: racewire as `npm start` runs it (src/serve.ts), with the lease trust the nemesis asks for in
 * NEMESIS_UNSAFE_TRUST_MS (read here, by the test harness, never by src/: see ../unsafe-trust.ts). 0 or unset:
 * the production lease.
 */
import { serve } from '../../../src/serve.js';
import { unsafeTrust } from '../unsafe-trust.js';

const extraMs = Number(process.env.NEMESIS_UNSAFE_TRUST_MS ?? '0');
if (!Number.isSafeInteger(extraMs) || extraMs < 0) {
  process.stderr.write(
    `nemesis node: NEMESIS_UNSAFE_TRUST_MS must be a whole number of ms, not ${extraMs}\n`,
  );
  process.exit(2);
}
void serve({ leaseTrust: unsafeTrust(extraMs) });
