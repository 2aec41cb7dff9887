/**
 * What `mcp-workbench init` prints once it wrote: per file, what went in and what to set; then how
 * to make the client start the workbench, and which of the client's entries to remove so that no
 * server runs twice.
 */
import type { Platform } from "../platform/types.ts";
import { pasteBlock } from "./clients.ts";
import { homeOf, join } from "../config/user-file.ts";
import type { Imported } from "./init-import.ts";
import type { InputVariable } from "./init-variables.ts";
import type { SecretSpot } from "./init-secrets.ts";
import type { Target } from "./init-targets.ts";

/** One file written: where, and for --merge what was added and left as it was. */
export interface Written {
  target: Target;
  merged?: { added: string[]; kept: { name: string; why: string }[] };
  secret?: SecretSpot;
}

export function report(platform: Platform, imported: Imported | undefined, toolbox: string, written: Written[]): string {
  const self = platform.selfCommand();
  const lines: string[] = [];
  if (!imported) {
    const out = written[0].target.file;
    lines.push(`Wrote '${out}': a starter configuration with one example toolbox '${toolbox}'; edit it for your servers`);
    lines.push(`Check it: ${checkCommand(platform, out)}`, "");
    const block = pasteBlock("claude-desktop", self.command, [...self.args, "--config", out]);
    lines.push("Then paste this into your MCP client's configuration:", block, "");
    return lines.join("\n");
  }
  const from = imported.files.map((f) => `'${f}'`).join(", ");
  for (const { target, merged, secret } of written) {
    const names = (list: string[]) => list.map((name) => imported.scopes[name] ? `${name} (${imported.scopes[name]})` : name).join(", ");
    if (merged) {
      const keptNames = merged.kept.map(({ name, why }) => `${name} (${why})`).join(", ");
      const kept = merged.kept.length > 0 ? `; left as they were: ${keptNames}` : "";
      lines.push(merged.added.length > 0
        ? `Added to toolbox '${toolbox}' of '${target.file}' ${merged.added.length} server(s) from ${from}: ${names(merged.added)}${kept}`
        : `Nothing new for '${target.file}' from ${from}${kept}`);
    } else {
      const list = Object.keys(target.servers);
      lines.push(`Wrote '${target.file}': toolbox '${toolbox}' with ${list.length} server(s) from ${from}: ${names(list)}`);
    }
    if (secret?.field === "env" || secret?.field === "headers") lines.push("It holds env or headers values, so only you can read it " +
      "(mode 0600)");
    else if (secret) lines.push(`It holds a value that looks secret (server '${secret.server}', ${secret.field}), so only you can ` +
      `read it (mode 0600)`);
  }
  lines.push(...imported.notes);
  const taken = writtenOnly(imported, written);
  const unset = unsetVariables(taken, platform.env);
  lines.push(...variableLines(taken, unset));
  for (const { target } of written) {
    lines.push(`Check it${unset.length > 0 ? ` (with ${unset.join(", ")} set)` : ""}: ${checkCommand(platform, target.file)}`);
  }
  lines.push("");
  if (imported.client === "claude-code") return [...lines, ...claudeCodeSteps(platform, imported, written)].join("\n");
  lines.push(...removalLines(imported, written));
  for (const { target } of written) lines.push(...pasteLines(platform, imported, taken, target));
  return [...lines, ""].join("\n");
}

/**
 * Where the client is to start the workbench that serves `target`: in place of the servers it now
 * starts, in the client file they came from (the project's own file for the project's workbench).
 */
function pasteLines(platform: Platform, imported: Imported, taken: Imported, target: Target): string[] {
  const self = platform.selfCommand();
  const names = Object.keys(target.servers);
  const into = imported.origins[names[0]] ?? imported.files[0];
  const ours = imported.ours.find(({ file }) => file === into);
  // A project's own file names it: an entry without --config reads another file, never this one.
  const already = ours && (target.register?.folder ? ours.config === target.file : serves(ours, target.file));
  if (already) return [`'${ours.file}' already starts the workbench as '${ours.name}': keep that entry`];
  // VS Code still asks for its inputs when it starts the workbench, and hands them on as the variables the file reads.
  const used = imported.client === "vscode" ? taken.inputs.filter(({ servers }) => servers.some((name) => names.includes(name))) : [];
  const env = Object.fromEntries(used.map(({ id, name }) => [name, `\${input:${id}}`]));
  const others = [...new Set(names.map((name) => imported.origins[name]).filter((file) => file !== undefined && file !== into))];
  const also = others.length > 0 ? ` (and take them out of ${others.map((f) => `'${f}'`).join(", ")})` : "";
  const instead = ours ? ` and of its entry '${ours.name}', which serves ${ours.config ? `'${ours.config}'` : "another file"}` : "";
  const args = [...self.args, "--config", target.file];
  const block = pasteBlock(imported.client, self.command, args, env, target.register, used.map(inputDefinition));
  return [`Then paste this into '${into}' in place of the servers it now starts${instead}${also}:`, block];
}

/**
 * What was imported as far as it was written: with --merge only the servers added (those the file
 * had stay as they were, with the variables they read), and the inputs those read.
 */
function writtenOnly(imported: Imported, written: Written[]): Imported {
  const names = new Set(written.flatMap(({ target, merged }) => merged ? merged.added : Object.keys(target.servers)));
  const servers = Object.fromEntries(Object.entries(imported.servers).filter(([name]) => names.has(name)));
  const inputs = imported.inputs.map((input) => ({ ...input, servers: input.servers.filter((name) => names.has(name)) }))
    .filter((input) => input.servers.length > 0);
  return { ...imported, servers, inputs };
}

/**
 * The imported servers the workbench now starts: all that were written, or with --merge those added
 * and those the file already had the same; not one whose name the file gives to another server,
 * nor one the client had disabled (it runs in neither, so it cannot run twice).
 */
function servedNames(imported: Imported, written: Written[]): Set<string> {
  const names = written.flatMap(({ target, merged }) =>
    merged
      ? [...merged.added, ...merged.kept.filter(({ why }) => why.startsWith("already in")).map(({ name }) => name)]
      : Object.keys(target.servers)
  );
  return new Set(names.filter((name) => imported.servers[name]?.disabled !== true));
}

/** For each client file, the imported entries to delete from it: the workbench starts them now. */
function removalLines(imported: Imported, written: Written[]): string[] {
  const served = servedNames(imported, written);
  return imported.files.flatMap((file) => {
    const names = Object.keys(imported.servers).filter((name) => served.has(name) && (imported.origins[name] === file));
    return names.length === 0 ? [] : [`Remove from '${file}' (the workbench starts them now, so they would run twice): ` +
      `${names.map((n) => `'${n}'`).join(", ")}`];
  });
}

/** Claude Code: register each workbench in its scope, then remove the imported entries with `claude mcp remove`. */
function claudeCodeSteps(platform: Platform, imported: Imported, written: Written[]): string[] {
  const self = platform.selfCommand();
  const lines: string[] = [];
  const served = servedNames(imported, written);
  const names = Object.keys(imported.servers).filter((name) => served.has(name));
  const removals = names.map((name) => `claude mcp remove --scope ${imported.scopes[name] ?? "user"} ${name}`);
  if (removals.length > 0) {
    const folder = written.find(({ target }) => target.register?.folder)?.target.register?.folder;
    const runIn = folder ? ` (run in '${folder}')` : "";
    lines.push(`Remove the imported servers from Claude Code, so that they do not run twice${runIn}:`, ...removals);
    // A project-scope server is in .mcp.json, which others may share: Claude Code can turn it off for one user instead.
    const shared = names.filter((name) => imported.scopes[name] === "project").map((name) => `"${name}"`);
    const mcpJson = imported.files.find((file) => /[\\/]\.mcp\.json$/.test(file));
    if (shared.length > 0 && folder) {
      lines.push(`(The project-scope ones edit the shared '${mcpJson}': to leave it as it is for others, list ${shared.join(", ")} in ` +
        `"disabledMcpjsonServers" of projects["${folder}"] in '${join(homeOf(platform.env) ?? "~", ".claude.json")}' instead)`);
    }
    lines.push("");
  }
  for (const { target } of written) {
    const register = target.register!;
    const already = imported.ours.find(({ scope }) => (scope === "user") === (register.scope === "user"));
    const where = register.folder ? ` in '${register.folder}'` : "";
    if (already && serves(already, target.file)) lines.push(`Claude Code already starts the workbench${where} as '${already.name}' ` +
      `(${already.scope} scope): keep it`);
    else {
      // An entry of ours that serves another file gives way: the name is taken otherwise.
      const replace = already ? [`claude mcp remove --scope ${already.scope} ${already.name}`] : [];
      const block = pasteBlock("claude-code", self.command, [...self.args, "--config", target.file], {}, register);
      lines.push(`Then run this${where}:`, ...replace, block);
    }
  }
  return [...lines, ""];
}

/** Whether the client's entry of the workbench serves `file`: its --config names it (none: the file serving finds). */
function serves(entry: Imported["ours"][number], file: string): boolean {
  return entry.config === undefined || entry.config === file;
}

function checkCommand(platform: Platform, file: string): string {
  const self = platform.selfCommand();
  return [self.command, ...self.args, "check", "--config", file].map((word) => quoteForDisplay(word, platform.windows)).join(" ");
}

/** The block's "inputs" entry for an input: as a file defined it, else one that asks for it (the editor could not resolve it either). */
function inputDefinition({ id, name, definition }: InputVariable): Record<string, unknown> {
  return definition ?? { type: "promptString", id, description: name };
}

/** What the user must set: each VS Code input, then each variable read without a default that is not set here. */
function variableLines(imported: Imported, unset: string[]): string[] {
  const servers = (list: string[]) => `${list.length === 1 ? "server" : "servers"} ${list.map((name) => `'${name}'`).join(", ")}`;
  const lines = imported.inputs.map(({ id, name, description, servers: users }) =>
    `Set ${name} where the workbench starts: it stands for VS Code's input '${id}'${description ? ` (${description})` : ""}, read by ` +
      `${servers(users)}` +
    (imported.client === "vscode" ? `; the block below passes it from VS Code and defines it in its own "inputs"` : "")
  );
  const inputs = new Set(imported.inputs.map(({ name }) => name));
  const readers = referencesWithoutDefault(imported.servers);
  for (const name of unset) {
    const users = readers.get(name) ?? [];
    if (!inputs.has(name)) lines.push(`Set ${name} where the workbench starts: it is not set here, and ${servers(users)} ` +
      `${users.length === 1 ? "reads" : "read"} it`);
  }
  return lines;
}

/** The variables read without a default and not set in this environment (inputs included), in order of use. */
function unsetVariables(imported: Imported, env: Record<string, string | undefined>): string[] {
  return [...referencesWithoutDefault(imported.servers).keys()].filter((name) => !Object.hasOwn(env, name) || env[name] === undefined);
}

/** Each `${NAME}` (without a default) in the servers, with the servers that read it. */
function referencesWithoutDefault(servers: Imported["servers"]): Map<string, string[]> {
  const readers = new Map<string, string[]>();
  for (const [server, entry] of Object.entries(servers)) {
    for (const [, name] of JSON.stringify(entry).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      const list = readers.get(name) ?? [];
      if (!list.includes(server)) list.push(server);
      readers.set(name, list);
    }
  }
  return readers;
}

/** A word as a shell takes it: in POSIX single quotes; on Windows in cmd.exe's double quotes (a single quote is no quote there). */
function quoteForDisplay(word: string, windows: boolean): string {
  if (windows) return /^[\w@+=:,./\\-]+$/.test(word) ? word : `"${word}"`;
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word}'`;
}
