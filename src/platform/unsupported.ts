/** Resolved only outside Bun and Deno: say so instead of failing obscurely. */
import type { Platform } from "./types.ts";

export const platform: Platform = new Proxy({} as Platform, {
  get() {
    throw new Error("Unsupported runtime: MCP Workbench runs on Bun or Deno");
  },
});
