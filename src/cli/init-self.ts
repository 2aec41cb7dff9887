/**
 * The workbench's own entry in a client's file, for `mcp-workbench init`: once its block is pasted
 * in, running init again must not import the workbench into itself, whatever the entry is called.
 */
import type { Platform } from "../platform/types.ts";
import { resolveConfigPath } from "../config/index.ts";

/** What an entry is compared with: the command that runs this workbench and the files it would serve. */
export interface SelfContext {
  platform: Platform;
  /** The file init writes, and the per-user file: a `--config` naming one of them is ours. */
  files: string[];
  /** The folder a relative `--config` is taken from. */
  cwd: string;
}

/**
 * Why `entry` is this workbench (and the file its --config names), or undefined when it is another server. An entry is ours when its
 * command is an executable named mcp-workbench (any folder, `.exe` or not); when it is the command
 * and first arguments this workbench runs as (`bun src/main.ts` from source); when it runs the
 * mcp-workbench package through npx, bunx or pnpm dlx; or when its `--config` names the file init
 * writes, the per-user file, or any file that holds "toolboxes" (a workbench configuration).
 */
export async function workbenchEntry(
  entry: Record<string, unknown>,
  context: SelfContext,
): Promise<{ why: string; config?: string } | undefined> {
  const args = Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === "string") : [];
  const given = configArgument(args);
  const config = given ? resolveConfigPath({ flag: given, env: {}, cwd: context.cwd }) : undefined;
  const why = await reason(entry, args, config, context);
  return why === undefined ? undefined : { why, ...(config !== undefined && { config }) };
}

/** The rule that makes the entry ours, in words, or undefined; `config` is its --config, resolved. */
async function reason(
  entry: Record<string, unknown>,
  args: string[],
  config: string | undefined,
  context: SelfContext,
): Promise<string | undefined> {
  const command = typeof entry.command === "string" ? entry.command : undefined;
  if (command === undefined) return undefined;
  if (/(?:^|[\\/])mcp-workbench(?:\.exe)?$/i.test(command)) return `its command is '${command}'`;
  const self = context.platform.selfCommand();
  if (command === self.command && self.args.every((arg, index) => args[index] === arg)) {
    return `its command is the one this workbench runs as ('${[self.command, ...self.args].join(" ")}')`;
  }
  if (/(?:^|[\\/])(?:npx|bunx|pnpx|pnpm)(?:\.cmd|\.exe)?$/i.test(command)) {
    const ours = args.find((arg) => /^mcp-workbench(?:@[^/]*)?$/.test(arg));
    if (ours !== undefined) return `it runs the package '${ours}'`;
  }
  if (config === undefined) return undefined;
  if (context.files.includes(config)) return `its --config names '${config}'`;
  const text = await context.platform.readTextFile(config).catch(() => undefined);
  if (text !== undefined && holdsToolboxes(text)) return `its --config names a workbench configuration ('${config}')`;
  return undefined;
}

/** The value of `--config PATH` or `--config=PATH`, if the arguments have one. */
function configArgument(args: string[]): string | undefined {
  for (const [index, arg] of args.entries()) {
    if (arg === "--config") return args[index + 1];
    if (arg.startsWith("--config=")) return arg.slice("--config=".length);
  }
  return undefined;
}

function holdsToolboxes(text: string): boolean {
  try {
    const data = JSON.parse(text.replace(/^\uFEFF/, ""));
    return typeof data === "object" && data !== null && !Array.isArray(data) && Object.hasOwn(data, "toolboxes");
  } catch {
    return false;
  }
}
