/**
 * The servers behind the workbench in the era matrix, one of each kind, and what each answers: the
 * TypeScript clients' matrix (era-matrix.test.ts) and the Python SDK's cells (era-python.test.ts)
 * run against the same ones.
 */
import { fixtureServer } from "./runtime.ts";

export interface ServerKind {
  entry: Record<string, unknown>;
  /** What echo {text: "hi"} answers. */
  echoed: RegExp;
  wait: { name: string; args: Record<string, unknown> };
  /** The number of cancelled waits, from the server's stats tool. */
  cancelled: { name: string; read: (text: string) => number };
}

const v2Stats = { name: "stats", read: (text: string) => (JSON.parse(text) as { cancelled: number }).cancelled };
export const SERVERS: Record<string, ServerKind> = {
  "sdk-1.32": {
    entry: fixtureServer("fixture-server.ts", { env: { FIXTURE_CLIENT_FEATURES: "1" } }),
    echoed: /^fixture: hi$/,
    wait: { name: "sleep", args: { ms: 30_000 } },
    cancelled: { name: "cancellations", read: Number },
  },
  "v2-dual": {
    entry: fixtureServer("v2-server.ts", { args: [...fixtureServer("v2-server.ts").args, "--era", "dual"] }),
    echoed: /^2026-07-28: hi$|^2025-11-25: hi$/,
    wait: { name: "wait", args: { ms: 30_000 } },
    cancelled: v2Stats,
  },
};

/** The workbench's configuration: one toolbox "era" with every server above. */
export function eraConfig() {
  const servers = Object.fromEntries(Object.entries(SERVERS).map(([name, server]) => [name, server.entry]));
  return { toolboxes: { era: { description: "Servers of both eras", mcpServers: servers } } };
}
