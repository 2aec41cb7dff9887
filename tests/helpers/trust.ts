/** The trust tests' server (tests/fixtures/trust-server.ts) in a configuration, and its own record of the calls that reached it. */
import { existsSync, readFileSync } from "node:fs";
import { fixtureServer } from "./runtime.ts";

/** A secret in the server's env, and one in an argument named like a secret: neither may show anywhere. */
export const ENV_SECRET = "sk-live-0123456789abcdef";
export const ARGUMENT_SECRET = "hunter2-correct-horse";

/** A configuration with toolbox "dev" holding server "store" (the trust fixture) with `confirm`. */
export function trustConfig(dir: string, confirm: unknown, top: Record<string, unknown> = {}) {
  const store = fixtureServer("trust-server.ts", {
    env: { TRUST_CALL_LOG: `${dir}/calls.log`, API_SECRET: ENV_SECRET },
    ...(confirm !== undefined && { confirm }),
  });
  return { ...top, toolboxes: { dev: { description: "Trust tests", mcpServers: { store } } } };
}

/** The tools/call requests that reached the server, in order, as it recorded them. */
export function callsReached(dir: string): { tool: string; arguments: Record<string, unknown> }[] {
  const path = `${dir}/calls.log`;
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/** The audit log's lines, parsed. */
export function auditLines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
}
