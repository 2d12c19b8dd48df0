/** A minimal typed emitter that runs in browsers and Node alike. */
export class Emitter<Events extends { [K in keyof Events]: (...args: never[]) => void }> {
  private readonly handlers = new Map<keyof Events, Set<Events[keyof Events]>>();

  on<K extends keyof Events>(name: K, handler: Events[K]): () => void {
    let set = this.handlers.get(name);
    if (!set) {
      set = new Set();
      this.handlers.set(name, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  protected emit<K extends keyof Events>(name: K, ...args: Parameters<Events[K]>): void {
    for (const h of this.handlers.get(name) ?? []) {
      try {
        (h as (...a: Parameters<Events[K]>) => void)(...args);
      } catch {
        // A throwing handler must not break the client's stream processing.
      }
    }
  }
}
