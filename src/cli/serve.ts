/**
 * `mcp-workbench serve [--http [HOST:]PORT]`: without --http, stdio serving as with no subcommand;
 * with it, HTTP serving (src/upstream/http/), whose modules load only then.
 */
import type { Platform } from "../platform/types.ts";
import { NAME } from "../protocol/version.ts";
import { serve, servers } from "../serve.ts";
import { FlowGate } from "../transport/flow-gate.ts";
import type { SubcommandArgs } from "./args.ts";
import { EXIT_USAGE, loadForCommand } from "./common.ts";

export async function runServe(platform: Platform, args: SubcommandArgs): Promise<number> {
  const http = args.options["--http"];
  const address = typeof http === "string" ? httpAddress(http) : undefined;
  if (typeof http === "string" && !address) {
    platform.writeStderr(`${NAME}: Option '--http' needs [HOST:]PORT with PORT from 0 to 65535: got ${JSON.stringify(http)}\n`);
    return EXIT_USAGE;
  }
  const toolboxes = args.options["--toolboxes"];
  if (address && toolboxes !== undefined) {
    platform.writeStderr(
      `${NAME}: Option '--toolboxes' is for stdio: over HTTP an agent asks for its toolboxes in the path, /mcp/dev,docs\n`,
    );
    return EXIT_USAGE;
  }
  const store = args.options["--store"];
  if (!address && store !== undefined) {
    platform.writeStderr(`${NAME}: Option '--store' is for serving over HTTP (--http): a stdio session is one process's alone\n`);
    return EXIT_USAGE;
  }
  const loaded = await loadForCommand(platform, args.configPath);
  if (!loaded) return EXIT_USAGE;
  if (!address) return await serve(platform, loaded, typeof toolboxes === "string" ? toolboxes : undefined);
  // Nothing holds a server back over HTTP: each response has its own stream.
  const parts = servers(platform, loaded, new FlowGate(), new FlowGate());
  const { serveHttp } = await import("../upstream/http/serve-http.ts");
  return await serveHttp(platform, loaded, address, parts, typeof store === "string" ? store : undefined);
}

/** `PORT`, `HOST:PORT` or `[IPv6]:PORT`; undefined when it is none of them. */
export function httpAddress(text: string): { hostname: string; port: number } | undefined {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port > 65_535) return undefined;
  const host = match[1] ?? "127.0.0.1";
  return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port };
}
