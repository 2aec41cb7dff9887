/**
 * The servers behind the workbench in the era matrix, one of each kind, and what each answers: the
 * TypeScript clients' matrix (era-matrix.test.ts) and the Python SDK's cells (era-python.test.ts)
 * run against the same ones. The HTTP server is started once per test file (eraConfig) and
 * stopped by stopEraServers.
 */
import { fixtureServer } from "./runtime.ts";
import { type HttpFixture, startV2Http } from "./http-fixture.ts";

export interface ServerKind {
  entry: Record<string, unknown>;
  /** What echo {text: "hi"} answers. */
  echoed: RegExp;
  wait: { name: string; args: Record<string, unknown> };
  /** The number of cancelled waits, from the server's stats tool. */
  cancelled: { name: string; read: (text: string) => number };
  /** The tool that counts the waits begun, when the server has one; else its wait says it began with progress. */
  begun?: string;
}

const v2Stats = { name: "stats", read: (text: string) => (JSON.parse(text) as { cancelled: number }).cancelled };
const v2 = (entry: Record<string, unknown>): ServerKind => ({
  entry,
  echoed: /^2026-07-28: hi$/,
  wait: { name: "wait", args: { ms: 30_000 } },
  cancelled: v2Stats,
  begun: "waits",
});
const v2Stdio = (era: string) => fixtureServer("v2-server.ts", { args: [...fixtureServer("v2-server.ts").args, "--era", era] });
/** Its URL is filled in by eraConfig, once the HTTP server listens. */
const httpEntry: Record<string, unknown> = { type: "http" };

export const SERVERS: Record<string, ServerKind> = {
  "sdk-1.32": {
    entry: fixtureServer("fixture-server.ts", { env: { FIXTURE_CLIENT_FEATURES: "1" } }),
    echoed: /^fixture: hi$/,
    wait: { name: "sleep", args: { ms: 30_000 } },
    cancelled: { name: "cancellations", read: Number },
  },
  // Both eras: the workbench's probe finds 2026-07-28.
  "v2-dual": v2(v2Stdio("dual")),
  "v2-2026-only": v2(v2Stdio("2026")),
  "v2-http": v2(httpEntry),
};

let http: HttpFixture | undefined;

/** The workbench's configuration: one toolbox "era" with every server above (the HTTP one started on first use). */
export async function eraConfig() {
  // Served by Bun whatever runs the test: under Deno.serve a handler never hears of a cancelled POST.
  http ??= await startV2Http(true);
  httpEntry.url = http.url("/");
  const servers = Object.fromEntries(Object.entries(SERVERS).map(([name, server]) => [name, server.entry]));
  return { toolboxes: { era: { description: "Servers of both eras", mcpServers: servers } } };
}

export async function stopEraServers(): Promise<void> {
  await http?.stop();
  http = undefined;
}
