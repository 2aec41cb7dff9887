/**
 * The workbench's own secrets in its environment: the variables the configuration reads as secrets
 * (a `serve` client's token and secrets, a remote server's URL, header values, OAuth and token
 * exchange client secrets, every `${client:NAME}`: the local user's secret is the variable NAME,
 * and the key of the member vault, WORKBENCH_SECRETS_KEY). A
 * server with `"inheritEnv": true` gets the rest of the environment, never these (its own `env`
 * may still name one: then it was given it on purpose).
 */
import type { WorkbenchConfig } from "./types.ts";
import { secretNamesOf } from "./member-secrets.ts";

/** The variable that holds the key of the member vault (auth/vault-seal.ts reads it). */
export const SECRETS_KEY_VARIABLE = "WORKBENCH_SECRETS_KEY";

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
      // Client secrets as whole texts (a string spread would be its characters, each matching nothing).
      const clientSecrets = [server.oauth?.clientSecret, server.auth?.tokenExchange.clientSecret].filter((text) => text !== undefined);
      texts.push(server.url, ...Object.values(server.headers), ...clientSecrets);
    }
  }
  // The key members' secrets are sealed with: whoever holds it opens every one of them.
  return new Set([...texts.flatMap((text) => [...text.matchAll(REFERENCE)].map((match) => match[1])), SECRETS_KEY_VARIABLE]);
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
