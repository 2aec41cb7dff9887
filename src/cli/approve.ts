/**
 * `mcp-workbench approve <toolbox> <server> [tool]`: starts the one server, shows each withheld
 * tool's difference from its pin (old and new text: the description, the pretty-printed schemas
 * and annotations), and records the new pins in workbench-lock.json. Without a tool, every
 * withheld tool of the server, and the pins of tools the server no longer lists are forgotten.
 * A running workbench sees the approval at its next listing or call.
 */
import type { Platform } from "../platform/types.ts";
import type { Tool } from "../protocol/sdk.ts";
import { didYouMean } from "../config/suggest.ts";
import { canonicalJson, type Pin, PINNED_PARTS } from "../toolboxes/fingerprint.ts";
import { lockPathFor, PinStore, type ServerPins } from "../toolboxes/pin-store.ts";
import { currentPin, type Withheld } from "../toolboxes/withheld.ts";
import type { SubcommandArgs } from "./args.ts";
import { commandRegistry, EXIT_FAILED, EXIT_USAGE, loadForToolbox, sayError, writeStdout } from "./common.ts";
import { lineDiff } from "./line-diff.ts";

export async function runApprove(platform: Platform, args: SubcommandArgs): Promise<number> {
  const [toolbox, server, only] = args.positionals;
  const loaded = await loadForToolbox(platform, args.configPath, toolbox);
  if (!loaded) return EXIT_USAGE;
  const { config } = loaded;
  const servers = config.toolboxes[toolbox].mcpServers;
  if (!Object.hasOwn(servers, server)) {
    sayError(platform, `Server '${server}' not found in toolbox '${toolbox}'${didYouMean(server, Object.keys(servers))}`);
    return EXIT_USAGE;
  }
  if (!servers[server].pin) {
    sayError(platform, `Server '${server}' in toolbox '${toolbox}' is not pinned ("pin": false): there is nothing to approve`);
    return EXIT_USAGE;
  }
  const pins = new PinStore(lockPathFor(loaded.path), platform, (line) => sayError(platform, line));
  const registry = commandRegistry(platform, loaded, { pins });
  try {
    const slot = registry.slot(registry.configured.find((one) => one.toolbox === toolbox && one.server === server)!);
    const connected = await registry.connected(slot);
    if (!connected.ok) {
      sayError(platform, `Failed to connect to server '${server}' in toolbox '${toolbox}': ${connected.error}`);
      return EXIT_FAILED;
    }
    // A server seen for the first time is pinned here, as serving would pin it.
    await pins.refresh();
    const pinnedBefore = pins.snapshot.pinsOf(toolbox, server) !== undefined;
    await slot.trust();
    const lock = pins.snapshot;
    if (lock.error !== undefined) {
      sayError(platform, lock.error);
      return EXIT_FAILED;
    }
    const listed = slot.shared.tools;
    const held = slot.withheld.filter((tool) => only === undefined || tool.name === only);
    if (only !== undefined && held.length === 0) {
      if (slot.tools.some((tool) => tool.name === only)) {
        await writeStdout(platform, `Tool '${only}' of server '${server}' in toolbox '${toolbox}' is not withheld: nothing to approve\n`);
        return 0;
      }
      const names = [...slot.tools, ...slot.withheld].map((tool) => tool.name);
      sayError(platform, `Tool '${only}' not found in server '${server}' (toolbox '${toolbox}')${didYouMean(only, names)}`);
      return EXIT_USAGE;
    }
    const old = lock.pinsOf(toolbox, server) ?? {};
    const gone = only === undefined ? Object.keys(old).filter((name) => !listed.some((tool) => tool.name === name)) : [];
    if (held.length === 0 && gone.length === 0) {
      const first = pinnedBefore ? "" : `Pinned ${listed.length} tool(s) of server '${server}' in toolbox '${toolbox}' in ${pins.path}\n`;
      await writeStdout(platform, `${first}Nothing to approve: every tool of server '${server}' in toolbox '${toolbox}' matches its pin\n`);
      return 0;
    }
    const approved: ServerPins = {};
    const sections: string[] = [];
    for (const withheld of held) {
      const tool = listed.find((one) => one.name === withheld.name)!;
      approved[tool.name] = currentPin(tool);
      const pin = Object.hasOwn(old, tool.name) ? old[tool.name] : undefined;
      sections.push(difference(`${toolbox}/${server}/${tool.name}`, withheld, pin, tool));
    }
    for (const name of gone) sections.push(`${toolbox}/${server}/${name}: no longer listed by the server; its pin is forgotten\n`);
    await pins.approve(toolbox, server, approved, gone);
    const done = [
      ...(held.length > 0 ? [`approved ${held.length} tool(s)`] : []),
      ...(gone.length > 0 ? [`forgot the pins of ${gone.length} tool(s) it no longer lists`] : []),
    ].join(", ");
    sections.push(`Server '${server}' in toolbox '${toolbox}': ${done}; recorded in ${pins.path}\n`);
    await writeStdout(platform, sections.join("\n"));
    return 0;
  } catch (error) {
    sayError(platform, error instanceof Error ? error.message : String(error));
    return EXIT_FAILED;
  } finally {
    await registry.closeAll();
  }
}

/** One tool's heading and, per part that changed (every part of a new tool), its lines old and new. */
function difference(title: string, withheld: Withheld, pin: Pin | undefined, tool: Tool): string {
  const now = currentPin(tool);
  const lines = [`${title}: ${withheld.reason}`];
  for (const [key, words] of PINNED_PARTS) {
    const shown = pin ? withheld.changed.includes(words) : now[key] !== undefined;
    if (!shown) continue;
    lines.push(`  ${words}:`);
    for (const line of lineDiff(textOf(pin?.[key]), textOf(now[key]))) lines.push(`    ${line}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A description as it is, anything else pretty-printed with its keys sorted; absent as no lines. */
function textOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : canonicalJson(value, 2);
}
