/**
 * The reason a wake-up signal is aborted with: a waiter woken to look again, which catches the abort and never
 * reads its reason. Given, it saves the DOMException (and its stack) that `abort()` builds without one: about
 * 1 % of the soak's CPU, from the rate limiter's pokes, the poller's nudges and the wake loops' kicks.
 */
export const WOKEN = Symbol('woken');
