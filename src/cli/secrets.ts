/**
 * `mcp-workbench secrets list|forget [--client NAME | --all] [SECRET...]`: the secrets clients
 * provided to `serve --http` for their `${client:NAME}` (auth/member-vault.ts), where serving keeps
 * them: the configuration's `serve.store` when it names one, else the private file. Names, dates
 * and the server that asked are kept in clear, so neither needs WORKBENCH_SECRETS_KEY, and a client's
 * secrets can be forgotten even once the key is lost. Values are never printed.
 */
import type { Platform } from "../platform/types.ts";
import { MemberVault, type VaultEntry, vaultFile } from "../auth/member-vault.ts";
import { SECRETS_KEY_VARIABLE } from "../config/secret-variables.ts";
import { SECRET_NAME } from "../config/member-secrets.ts";
import { messageOf } from "../protocol/errors.ts";
import { openNamedStore } from "../store/open-store.ts";
import type { SubcommandArgs } from "./args.ts";
import { EXIT_FAILED, EXIT_USAGE, loadForCommand, printable, sayError, writeStdout } from "./common.ts";

export async function runSecrets(platform: Platform, args: SubcommandArgs): Promise<number> {
  const say = (text: string) => sayError(platform, text);
  const [action, ...names] = args.positionals;
  const client = typeof args.options["--client"] === "string" ? args.options["--client"] : undefined;
  const refused = usageError(action, names, client, args.options["--all"] === true);
  if (refused !== undefined) {
    say(`${refused} (see --help)`);
    return EXIT_USAGE;
  }
  const loaded = await loadForCommand(platform, args.configPath);
  if (!loaded) return EXIT_USAGE;
  let store;
  try {
    store = await openNamedStore(undefined, loaded.config.serve, platform.connectRedis, say);
  } catch (error) {
    say(`Cannot open the store of serve.store in '${loaded.path}': ${messageOf(error)}`);
    return EXIT_FAILED;
  }
  try {
    const { env, os } = platform;
    const vault = await MemberVault.open({ env, files: platform, file: vaultFile(env, os), store, log: say, access: "names" });
    const lines = action === "list" ? await list(vault, client) : await forget(vault, client, names);
    await writeStdout(platform, `${printable(lines.join("\n"))}\n`);
    return 0;
  } catch (error) {
    say(messageOf(error));
    return EXIT_FAILED;
  } finally {
    await store?.close();
  }
}

/** What is wrong with the command line, beyond what the parser checks; undefined when nothing. */
function usageError(action: string, names: string[], client: string | undefined, all: boolean): string | undefined {
  if (action !== "list" && action !== "forget") return `Unknown action '${action}': secrets list|forget`;
  if (client !== undefined && all) return "Give --client NAME or --all, not both";
  if (action === "list" && names.length > 0) return `Unexpected argument '${names[0]}': secrets list takes no SECRET`;
  if (action === "forget" && client === undefined && !all) {
    return "Forget whose secrets? Give --client NAME (one client's) or --all (every client's)";
  }
  const bad = names.find((name) => !SECRET_NAME.test(name));
  if (bad !== undefined) return `Secret name '${bad}' is not one: letters, digits and '_', not first a digit`;
  return undefined;
}

async function list(vault: MemberVault, client: string | undefined): Promise<string[]> {
  const entries = await vault.list(client);
  if (entries.length === 0) return [`No secrets provided${client === undefined ? "" : ` by client '${client}'`}${whereNote(vault)}`];
  const width = (pick: (entry: VaultEntry) => string) => Math.max(...entries.map((entry) => pick(entry).length));
  const [clients, secrets] = [width((entry) => entry.client), width((entry) => entry.name)];
  return entries.map((entry) => {
    const asked = entry.server === undefined ? "" : `  asked by ${entry.server}`;
    return `${entry.client.padEnd(clients)}  ${entry.name.padEnd(secrets)}  saved ${dateOf(entry.savedAt)}${asked}`;
  });
}

async function forget(vault: MemberVault, client: string | undefined, names: string[]): Promise<string[]> {
  const whose = client === undefined ? "" : ` of client '${client}'`;
  const removed = names.length === 0
    ? await vault.forget(client)
    : (await Promise.all(names.map((name) => vault.forget(client, name)))).flat();
  const lines = removed.map((entry) => `Forgot secret '${entry.name}' of client '${entry.client}'`);
  for (const name of names.filter((name) => !removed.some((entry) => entry.name === name))) {
    lines.push(`No secret '${name}'${whose} to forget`);
  }
  if (names.length === 0 && removed.length === 0) lines.push(`No secrets${whose} to forget${whereNote(vault)}`);
  return lines;
}

/** Where it looked, and where else they may be: in the memory of a workbench serving without a key, out of a command's sight. */
function whereNote(vault: MemberVault): string {
  return ` in '${vault.where}' (a workbench serving without ${SECRETS_KEY_VARIABLE} keeps them in its memory only, out of sight here)`;
}

/** A date for people: to the minute, in UTC (a record's date is input: shown as it is when it is no ISO date). */
function dateOf(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
}
