/**
 * The workbench's own secrets in its environment: the variables the configuration reads as secrets
 * (a `serve` client's token and secrets, a remote server's URL, header values and OAuth client
 * secret, and every `${client:NAME}`: the local user's secret is the variable NAME). A
 * server with `"inheritEnv": true` gets the rest of the environment, never these (its own `env`
 * may still name one: then it was given it on purpose).
 */
import type { WorkbenchConfig } from "./types.ts";
import { secretNamesOf } from "./member-secrets.ts";

const REFERENCE = /\$\{(?:client:)?([A-Za-z_][A-Za-z0-9_]*)/g;

/** The names of the variables the (not yet expanded) configuration reads as secrets. */
export function secretVariables(config: WorkbenchConfig): Set<string> {
  const clients = Object.values(config.serve?.clients ?? {});
  const texts: string[] = clients.flatMap((client) => [client.token ?? [], Object.values(client.secrets ?? {})].flat());
  for (const toolbox of Object.values(config.toolboxes)) {
    for (const server of Object.values(toolbox.mcpServers)) {
      if (server.transport === "stdio") {
        texts.push(...secretNamesOf(server).map((name) => `\${client:${name}}`));
        continue;
      }
      texts.push(server.url, ...Object.values(server.headers), ...server.oauth?.clientSecret ?? []);
    }
  }
  return new Set(texts.flatMap((text) => [...text.matchAll(REFERENCE)].map((match) => match[1])));
}

/** Each server that inherits our environment is told which variables it does not get. */
export function withSecretsWithheld(config: WorkbenchConfig, names: Set<string>): WorkbenchConfig {
  if (names.size === 0) return config;
  const withheldEnv = [...names].sort();
  const toolboxes = Object.entries(config.toolboxes).map(([name, toolbox]) => {
    const servers = Object.entries(toolbox.mcpServers).map(([server, definition]) =>
      [server, definition.transport === "stdio" && definition.inheritEnv ? { ...definition, withheldEnv } : definition] as const
    );
    return [name, { ...toolbox, mcpServers: Object.fromEntries(servers) }] as const;
  });
  return { ...config, toolboxes: Object.fromEntries(toolboxes) };
}
