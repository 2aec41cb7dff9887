/**
 * A call's arguments as they may be shown to the user or written to the audit log: values of keys
 * that look secret (password, token, apiKey...) masked, the server's configured secrets (env
 * values, header values, see address/redact.ts) masked wherever they appear. Nothing is cut: an
 * approval question shows all of it (or is not asked, see confirm.ts).
 */
import { isRemote, type ServerConfig, type WorkbenchConfig } from "../config/index.ts";
import { MASK, Redactor } from "../address/redact.ts";

/** Key names whose values are secrets whatever they hold. */
const SECRET_KEY =
  /password|passwd|passphrase|^pwd$|^pass$|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|authorization|^auth$|cookie/i;

export function looksSecret(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** The secrets the user configured for this server: what a message or a log line must not hold. */
export function serverRedactor(config: ServerConfig): Redactor {
  return isRemote(config) ? Redactor.forServer(config) : Redactor.forEnv(config.env);
}

const configRedactors = new WeakMap<WorkbenchConfig, Redactor>();

/**
 * Every secret the configuration holds: each server's (as serverRedactor) and the `serve`
 * clients' tokens and secrets, with `also` (the called server's, which may have tokens got at run time).
 * Made once per configuration.
 */
export function configRedactor(config: WorkbenchConfig, also?: Redactor): Redactor {
  let all = configRedactors.get(config);
  if (!all) {
    const servers = Object.values(config.toolboxes).flatMap((toolbox) => Object.values(toolbox.mcpServers).map(serverRedactor));
    // Each member's secrets too (`${client:NAME}`): one member's passed in a call is masked like a token.
    const clients = Object.values(config.serve?.clients ?? {});
    const tokens = clients.flatMap((client) => [client.token ?? [], Object.values(client.secrets ?? {})].flat());
    all = Redactor.combine([...servers, new Redactor(tokens)]);
    configRedactors.set(config, all);
  }
  return also ? Redactor.combine([all, also]) : all;
}

export interface ShowOptions {
  redact: (text: string) => string;
}

/**
 * A copy of `value`, whole, with secrets masked: the server's configured secrets wherever they
 * appear (keys too), and under a key named like a secret every string, number or boolean (in an
 * array under it, each one). An object under such a key is shown, its own keys judged alike: a
 * `credentials` object cannot hide a `command` in it.
 */
export function shownValue(value: unknown, options: ShowOptions, secret = false): unknown {
  if (typeof value === "string") return secret && value !== "" ? MASK : options.redact(value);
  if (typeof value !== "object" || value === null) return secret && value !== null && value !== undefined ? MASK : value;
  if (Array.isArray(value)) return value.map((item) => shownValue(item, options, secret));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [options.redact(key), shownValue(item, options, looksSecret(key))]),
  );
}
