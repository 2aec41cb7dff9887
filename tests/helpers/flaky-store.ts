/** A store that can be made to fail, as one whose server went away: every call rejects while `down`. */
import type { Store } from "../../src/store/store.ts";

export function flakyStore(store: Store): { store: Store; setDown(down: boolean): void } {
  let down = false;
  const wrapped = {} as Record<string, unknown>;
  for (const method of ["get", "set", "add", "take", "delete", "touch", "increment", "setField", "fields", "deleteField", "publish", "subscribe", "close"] as const) {
    const real = (store[method] as (...args: unknown[]) => Promise<unknown>).bind(store);
    wrapped[method] = (...args: unknown[]) => down && method !== "close" ? Promise.reject(new Error("Connection refused")) : real(...args);
  }
  Object.defineProperty(wrapped, "name", { value: store.name });
  Object.defineProperty(wrapped, "shared", { value: store.shared });
  return { store: wrapped as unknown as Store, setDown: (value) => void (down = value) };
}
