/**
 * What is withheld (see offer.ts, which decides it), and the words every place that tells of it
 * uses (open_toolbox's line, use_tool's refusal, check, approve).
 */
import type { Tool } from "../protocol/sdk.ts";
import { KIND_WORDS, type Pin, pinOf, type TextKind } from "./fingerprint.ts";

export interface Withheld {
  name: string;
  /** The parts that changed ("description", "input schema"...); empty for a new tool or an unreadable lock. */
  changed: string[];
  /** Why, in a few words: "description changed", "new tool", or the lock file's problem. */
  reason: string;
}

/** A tool object is listed once and viewed many times: its pin is made once. */
const pins = new WeakMap<Tool, Pin>();

export function currentPin(tool: Tool): Pin {
  let pin = pins.get(tool);
  if (!pin) {
    pin = pinOf(tool);
    pins.set(tool, pin);
  }
  return pin;
}

/** A name as a shell word: bare when it is safe so, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** What an approve command names besides the server: the client it runs as, the configuration file. */
export interface ApproveWith {
  /** The client whose own process lists the tools (a server whose env or args use ${WORKBENCH_CLIENT}): approve starts the server as it. */
  client?: string;
  /** The configuration file, when it is not the one approve reads without --config (see configToName). */
  config?: string;
}

/** The command that shows a server's withheld tools (or one of them) and, after the user's "y", approves them. */
export function approveCommand(toolbox: string, server: string, tool?: string, how: ApproveWith = {}): string {
  const words = [
    "mcp-workbench",
    "approve",
    toolbox,
    server,
    ...(tool === undefined ? [] : [tool]),
    ...(how.client === undefined ? [] : ["--client", how.client]),
    ...(how.config === undefined ? [] : ["--config", how.config]),
  ];
  return words.map(shellWord).join(" ");
}

/** The words of a hint: the command that only shows (--dry-run), and the one that shows, asks and records. */
function reviewHint(toolbox: string, server: string, tool?: string, how?: ApproveWith): string {
  const command = approveCommand(toolbox, server, tool, how);
  return `review ${tool === undefined ? "them" : "it"} with: ${command} --dry-run, and approve on a terminal with: ${command}`;
}

/** use_tool's refusal: what changed, and the command that approves it. */
export function withheldError(toolbox: string, server: string, held: Withheld, how?: ApproveWith): string {
  const why = held.changed.length > 0
    ? `its ${held.changed.join(" and ")} changed since it was pinned`
    : held.reason === "new tool"
    ? "it is new since the server's tools were pinned"
    : held.reason;
  return `Error executing tool: Tool '${held.name}' in server '${server}' (toolbox '${toolbox}') is withheld: ${why}; ` +
    `the user can ${reviewHint(toolbox, server, held.name, how)}`;
}

/**
 * Only a name that was pinned (approved) is quoted to the model: a name never approved is text the
 * server chose, and could carry instructions as well as a description could. Those are counted.
 */
function named(held: Withheld): boolean {
  return held.changed.length > 0;
}

/** The instructions have no name of the server's choosing: they are always named. */
function namedText(held: Withheld): boolean {
  return named(held) || !held.name.includes(":");
}

/** "2 new tools of 'memory'" or "1 tool of 'memory' (the lock file ...)": unapproved names, counted. */
function counted(server: string, items: Withheld[], noun: (item: Withheld) => string): string[] {
  const groups = new Map<string, number>();
  for (const item of items) {
    const fresh = item.reason.startsWith("new ");
    const key = fresh ? `new ${noun(item)}` : `${noun(item)}\u0000${item.reason}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups].map(([key, count]) => {
    const [what, reason] = key.split("\u0000");
    const plural = count === 1 ? what : `${what}s`;
    return `${count} ${plural} of '${server}'${reason === undefined ? "" : ` (${reason})`}`;
  });
}

/** A server as the lines below read it: its name, what it withholds, and what approve must be told. */
type Held<K extends string> = { name: string; approveWith?: ApproveWith } & Record<K, Withheld[]>;

/** open_toolbox's one line: how many, which and why, and the commands that approve them. */
export function withheldLine(toolbox: string, servers: Held<"withheld">[]): string | undefined {
  const held = servers.filter((server) => server.withheld.length > 0);
  const count = held.reduce((sum, server) => sum + server.withheld.length, 0);
  if (count === 0) return undefined;
  const which = held.flatMap((server) => [
    ...server.withheld.filter(named).map((tool) => `'${tool.name}' of '${server.name}' (${tool.reason})`),
    ...counted(server.name, server.withheld.filter((tool) => !named(tool)), () => "tool"),
  ]);
  const hints = held.map((server) => reviewHint(toolbox, server.name, undefined, server.approveWith)).join("; ");
  return `${count} tool${count === 1 ? " is" : "s are"} withheld because ${count === 1 ? "it" : "they"} changed or appeared ` +
    `since the server's tools were pinned: ${which.join(", ")}; the user can ${hints}`;
}

/** The kind of a text's key in words: "prompt", "resource template", "the instructions". */
function kindWords(key: string): string {
  const cut = key.indexOf(":");
  const kind = (cut < 0 ? key : key.slice(0, cut)) as TextKind;
  return KIND_WORDS[kind] ?? kind;
}

/** A text's key (textKey) in words: "prompt 'greet'", "resource 'file:///a'", "the instructions". */
export function textWords(key: string): string {
  const cut = key.indexOf(":");
  if (cut < 0) return `the ${KIND_WORDS[key as TextKind] ?? key}`;
  const kind = key.slice(0, cut) as TextKind;
  return `${KIND_WORDS[kind] ?? kind} '${key.slice(cut + 1)}'`;
}

/** open_toolbox's line for prompts, resources, templates and instructions withheld, and the commands that approve them. */
export function withheldTextsLine(toolbox: string, servers: Held<"withheldTexts">[]): string | undefined {
  const held = servers.filter((server) => server.withheldTexts.length > 0);
  if (held.length === 0) return undefined;
  const which = held.flatMap((server) => [
    ...server.withheldTexts.filter(namedText).map((text) => `${textWords(text.name)} of '${server.name}' (${text.reason})`),
    ...counted(server.name, server.withheldTexts.filter((text) => !namedText(text)), (text) => kindWords(text.name)),
  ]);
  const commands = held.map((server) => approveCommand(toolbox, server.name, undefined, server.approveWith)).join("; ");
  return `Withheld because they changed or appeared since the server was pinned: ${which.join(", ")}; ` +
    `the user can review and approve them with: ${commands}`;
}
