/**
 * Which of a server's tools a toolbox offers, by their pins: a tool whose fingerprint changed, or
 * that is new on a server already pinned, is withheld, with why; and the words every place that
 * tells of withheld tools uses (open_toolbox's line, use_tool's refusal, check, approve).
 */
import type { Tool } from "../protocol/sdk.ts";
import { changedParts, type Pin, pinOf } from "./fingerprint.ts";
import type { LockSnapshot } from "./pin-store.ts";

export interface Withheld {
  name: string;
  /** The parts that changed ("description", "input schema"...); empty for a new tool or an unreadable lock. */
  changed: string[];
  /** Why, in a few words: "description changed", "new tool", or the lock file's problem. */
  reason: string;
}

export interface TrustedView {
  offered: Tool[];
  withheld: Withheld[];
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

/** A server not pinned yet offers every tool: its first sight pins them (see ServerSlot.trust). */
export function trustedView(tools: Tool[], lock: LockSnapshot, toolbox: string, server: string): TrustedView {
  if (!lock.loaded || lock.error !== undefined) {
    const reason = lock.error ?? "the lock file is not read yet";
    return { offered: [], withheld: tools.map((tool) => ({ name: tool.name, changed: [], reason })) };
  }
  const pinned = lock.pinsOf(toolbox, server);
  if (!pinned) return { offered: tools, withheld: [] };
  const offered: Tool[] = [];
  const withheld: Withheld[] = [];
  for (const tool of tools) {
    const pin = Object.hasOwn(pinned, tool.name) ? pinned[tool.name] : undefined;
    const changed = pin ? changedParts(pin, currentPin(tool)) : [];
    if (pin && changed.length === 0) offered.push(tool);
    else withheld.push({ name: tool.name, changed, reason: pin ? `${changed.join(", ")} changed` : "new tool" });
  }
  return { offered, withheld };
}

/** A name as a shell word: bare when it is safe so, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command that shows and approves a server's withheld tools (or one of them). */
export function approveCommand(toolbox: string, server: string, tool?: string): string {
  return ["mcp-workbench", "approve", toolbox, server, ...(tool === undefined ? [] : [tool])].map(shellWord).join(" ");
}

/** use_tool's refusal: what changed, and the command that approves it. */
export function withheldError(toolbox: string, server: string, held: Withheld): string {
  const why = held.changed.length > 0
    ? `its ${held.changed.join(" and ")} changed since it was pinned`
    : held.reason === "new tool"
    ? "it is new since the server's tools were pinned"
    : held.reason;
  return `Error executing tool: Tool '${held.name}' in server '${server}' (toolbox '${toolbox}') is withheld: ${why}; ` +
    `the user can review and approve it with: ${approveCommand(toolbox, server, held.name)}`;
}

/** open_toolbox's one line: how many, which and why, and the commands that approve them. */
export function withheldLine(toolbox: string, servers: { name: string; withheld: Withheld[] }[]): string | undefined {
  const held = servers.filter((server) => server.withheld.length > 0);
  const count = held.reduce((sum, server) => sum + server.withheld.length, 0);
  if (count === 0) return undefined;
  const which = held.flatMap((server) => server.withheld.map((tool) => `'${tool.name}' of '${server.name}' (${tool.reason})`));
  const commands = held.map((server) => approveCommand(toolbox, server.name)).join("; ");
  return `${count} tool${count === 1 ? " is" : "s are"} withheld because ${count === 1 ? "it" : "they"} changed or appeared ` +
    `since the server's tools were pinned: ${which.join(", ")}; the user can review and approve them with: ${commands}`;
}
