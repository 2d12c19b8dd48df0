/**
 * Seeded randomness. Every random choice of the simulated world comes from an Rng derived from
 * (seed, a stable key), so a race's story does not depend on the order in which races are built.
 */

/** FNV-1a over the parts' text: a stable 32-bit key for (seed, race, purpose). */
export function hashKey(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  const text = parts.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number;
  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number;
  /** Standard normal (Box-Muller). */
  normal(): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: T[]): T[];
  /** A version-4-shaped uuid drawn from this stream. */
  uuid(): string;
}

/** mulberry32: small, fast and good enough for a simulation. A class, so making one allocates no closures. */
class Mulberry32 implements Rng {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  range(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }
  normal(): number {
    return Math.sqrt(-2 * Math.log(1 - this.next())) * Math.cos(2 * Math.PI * this.next());
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j] as T, items[i] as T];
    }
    return items;
  }
  uuid(): string {
    const hex = (n: number) => {
      let s = '';
      for (let i = 0; i < n; i++) s += Math.floor(this.next() * 16).toString(16);
      return s;
    };
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(this.next() * 4)]}${hex(3)}-${hex(12)}`;
  }
}

export function createRng(seed: number): Rng {
  return new Mulberry32(seed);
}

/** An Rng keyed by the world seed and a stable purpose, e.g. rngFor(seed, 'race', 17). */
export function rngFor(seed: number, ...key: (string | number)[]): Rng {
  return createRng(hashKey(seed, ...key));
}
