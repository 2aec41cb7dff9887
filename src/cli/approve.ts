/**
 * `mcp-workbench approve <toolbox> <server> [tool] [--dry-run | --yes [--digest D]]`: starts the one server,
 * shows each withheld tool's difference from its pin (old and new text: the description, the
 * pretty-printed schemas and annotations), and only then records the new pins in
 * workbench-lock.json: after the user answered "y" on a terminal, or at once with --yes (without a
 * terminal nothing is recorded without it). --dry-run shows and records nothing, and prints the
 * digest of what it showed: with --digest, only that is recorded (else nothing). Without a tool,
 * every withheld tool of the server, and its withheld prompts, resources, templates and
 * instructions (see offer.ts), and skills (their frontmatter as a diff, their files one line each,
 * see skill-files.ts); the pins of what the server no longer lists are forgotten. A running workbench sees the approval at its next
 * listing or call.
 * --client NAME starts a server whose process is each client's own as it runs for that client.
 * What the server sent is shown with its control characters escaped (printable).
 */
import type { Platform } from "../platform/types.ts";
import { didYouMean } from "../config/suggest.ts";
import { canonicalJson, type Parts, type Pin, PINNED_PARTS, TEXT_PARTS, type TextKind } from "../toolboxes/fingerprint.ts";
import { textPins } from "../toolboxes/offer.ts";
import type { ServerPins } from "../toolboxes/pin-store.ts";
import { definitionDigest } from "../toolboxes/lock-format.ts";
import { approveCommand, currentPin, textWords, type Withheld } from "../toolboxes/withheld.ts";
import type { SubcommandArgs } from "./args.ts";
import { commandPins, commandRegistry, EXIT_FAILED, EXIT_USAGE, loadForToolbox, printable, sayError, writeStdout } from "./common.ts";
import { lineDiff } from "./line-diff.ts";
import { skillFileLines } from "./skill-files.ts";
import { askYesNo } from "./ask.ts";
import { sha256Hex } from "../cache/sha256.ts";
import { LOCAL_CLIENT_NAME } from "../config/client-variable.ts";

export async function runApprove(platform: Platform, args: SubcommandArgs): Promise<number> {
  const [toolbox, server, only] = args.positionals;
  const dryRun = args.options["--dry-run"] === true;
  const yes = args.options["--yes"] === true;
  const given = typeof args.options["--digest"] === "string" ? args.options["--digest"] : undefined;
  const client = typeof args.options["--client"] === "string" ? args.options["--client"] : undefined;
  if (dryRun && yes) {
    sayError(platform, "Options '--dry-run' and '--yes' exclude each other: --dry-run records nothing, --yes records without asking");
    return EXIT_USAGE;
  }
  const loaded = await loadForToolbox(platform, args.configPath, toolbox);
  if (!loaded) return EXIT_USAGE;
  const { config } = loaded;
  const servers = config.toolboxes[toolbox].mcpServers;
  if (!Object.hasOwn(servers, server)) {
    const where = `toolbox '${toolbox}' of '${loaded.path}'`;
    sayError(platform, `Server '${server}' not found in ${where}${didYouMean(server, Object.keys(servers))}`);
    return EXIT_USAGE;
  }
  if (!servers[server].pin) {
    sayError(platform, `Server '${server}' in toolbox '${toolbox}' is not pinned ("pin": false): there is nothing to approve`);
    return EXIT_USAGE;
  }
  // Names of clients with tokens are known; those of an OAuth server's subjects are not.
  const clients = Object.keys(config.serve?.clients ?? {});
  if (client !== undefined && !config.serve?.oauth && client !== LOCAL_CLIENT_NAME && !clients.includes(client)) {
    sayError(platform, `Client '${client}' not found in serve.clients${didYouMean(client, clients)}`);
    return EXIT_USAGE;
  }
  const pins = commandPins(platform, loaded);
  // A server whose process is each client's own may list a client more than the local user: approve sees what that client's process sees.
  const registry = await commandRegistry(platform, loaded, { pins, ...(client !== undefined && { client: { name: client } }) });
  try {
    const slot = registry.slot(registry.configured.find((one) => one.toolbox === toolbox && one.server === server)!);
    const connected = await slot.shared.connected();
    if (!connected.ok) {
      sayError(platform, `Failed to connect to server '${server}' in toolbox '${toolbox}': ${connected.error}`);
      return EXIT_FAILED;
    }
    // A server seen for the first time is pinned here, as serving would pin it (a dry run writes nothing).
    await pins.refresh();
    const pinnedBefore = slot.offer.pinned?.tools !== undefined;
    if (!dryRun) await slot.trust();
    const lock = pins.snapshot;
    if (lock.error !== undefined) {
      sayError(platform, lock.error);
      return EXIT_FAILED;
    }
    const listed = slot.shared.tools;
    const held = slot.withheld.filter((tool) => only === undefined || tool.name === only);
    // Prompts, resources, templates and instructions: with the server's tools, or one by its key ("prompt:intro").
    const textsNow = textPins({ tools: listed, listing: slot.shared.listing, instructions: connected.serverSession.instructions });
    const heldTexts = slot.withheldTexts.filter((text) => only === undefined || text.name === only);
    // The pins the offer judged by: this name's, or those of the same definition elsewhere (a dry run of a renamed server copies none).
    const oldTexts = slot.offer.pinned?.texts ?? {};
    const goneTexts = only === undefined ? Object.keys(oldTexts).filter((key) => !Object.hasOwn(textsNow, key)) : [];
    if (only !== undefined && held.length === 0 && heldTexts.length === 0) {
      if (slot.tools.some((tool) => tool.name === only)) {
        await writeStdout(platform, `Tool '${only}' of server '${server}' in toolbox '${toolbox}' is not withheld: nothing to approve\n`);
        return 0;
      }
      const names = [...slot.tools, ...slot.withheld].map((tool) => tool.name);
      sayError(platform, `Tool '${only}' not found in server '${server}' (toolbox '${toolbox}')${didYouMean(only, names)}`);
      return EXIT_USAGE;
    }
    const old = slot.offer.pinned?.tools ?? {};
    const gone = only === undefined ? Object.keys(old).filter((name) => !listed.some((tool) => tool.name === name)) : [];
    if (held.length + gone.length + heldTexts.length + goneTexts.length === 0) {
      const first = pinnedBefore
        ? ""
        : dryRun
        ? `Server '${server}' in toolbox '${toolbox}' is not pinned yet: its ${listed.length} tool(s) are pinned as they are when a ` +
          `session or approve first sees it\n`
        : `Pinned ${listed.length} tool(s) of server '${server}' in toolbox '${toolbox}' in ${pins.path}\n`;
      await writeStdout(platform, `${first}Nothing to approve: every tool of server '${server}' in toolbox '${toolbox}' matches its pin\n`);
      return 0;
    }
    const approved: ServerPins = {};
    const sections: string[] = [];
    for (const withheld of held) {
      const tool = listed.find((one) => one.name === withheld.name)!;
      approved[tool.name] = currentPin(tool);
      const pin = Object.hasOwn(old, tool.name) ? old[tool.name] : undefined;
      sections.push(difference(`${toolbox}/${server}/${tool.name}`, withheld, pin, currentPin(tool), PINNED_PARTS));
    }
    const approvedTexts: ServerPins = {};
    for (const withheld of heldTexts) {
      approvedTexts[withheld.name] = textsNow[withheld.name];
      const pin = Object.hasOwn(oldTexts, withheld.name) ? oldTexts[withheld.name] : undefined;
      const parts = TEXT_PARTS[withheld.name.split(":")[0] as TextKind];
      sections.push(difference(`${toolbox}/${server}: ${textWords(withheld.name)}`, withheld, pin, textsNow[withheld.name], parts));
    }
    for (const name of gone) sections.push(`${toolbox}/${server}/${name}: no longer listed by the server; its pin is forgotten\n`);
    for (const key of goneTexts) {
      sections.push(`${toolbox}/${server}: ${textWords(key)}: no longer listed by the server; its pin is forgotten\n`);
    }
    // Everything pending is shown before anything is recorded.
    await writeStdout(platform, printable(sections.join("\n")));
    const what = [
      ...(held.length > 0 ? [`approve ${held.length} tool(s)`] : []),
      ...(heldTexts.length > 0 ? [`approve ${heldTexts.length} other text(s)`] : []),
      ...(gone.length + goneTexts.length > 0 ? [`forget the pins of ${gone.length + goneTexts.length} it no longer lists`] : []),
    ].join(", ");
    const how = { ...(client !== undefined && { client }), ...(pins.configFile !== undefined && { config: pins.configFile }) };
    const command = approveCommand(toolbox, server, only, how);
    // What is recorded, as a digest: --digest holds --yes to what a dry run showed (the server may change between the two).
    const digest = sha256Hex(canonicalJson({ approved, gone, approvedTexts, goneTexts })).slice(0, 32);
    const asShown = `${command} --yes --digest ${digest}`;
    if (dryRun) {
      await writeStdout(
        platform,
        `\nDry run, nothing recorded: to ${what} of server '${server}' in toolbox '${toolbox}' as shown, run: ${asShown}\n`,
      );
      return 0;
    }
    if (given !== undefined && given !== digest) {
      sayError(
        platform,
        `Nothing recorded: what server '${server}' in toolbox '${toolbox}' has pending changed since digest '${given}' was shown (it ` +
          `is '${digest}' now, shown above)`,
      );
      return EXIT_FAILED;
    }
    if (!yes) {
      if (!platform.stdinIsTerminal()) {
        sayError(platform, `Nothing recorded: there is no terminal to ask; to ${what} as shown, run: ${asShown}`);
        return EXIT_USAGE;
      }
      if (!await askYesNo(platform, `\nRecord in ${pins.path}: ${what} of server '${server}' in toolbox '${toolbox}', as shown above?`)) {
        await writeStdout(platform, "Nothing recorded\n");
        return EXIT_FAILED;
      }
    }
    await pins.approve(toolbox, server, approved, gone, { pins: approvedTexts, forget: goneTexts }, definitionDigest(servers[server]));
    await writeStdout(
      platform,
      `${yes ? "\n" : ""}Server '${server}' in toolbox '${toolbox}': ${
        done(held.length, gone.length, heldTexts.length + goneTexts.length)
      }; recorded in ${pins.path}\n`,
    );
    return 0;
  } catch (error) {
    sayError(platform, error instanceof Error ? error.message : String(error));
    return EXIT_FAILED;
  } finally {
    await registry.closeAll();
  }
}

function done(approved: number, forgotten: number, texts: number): string {
  return [
    ...(approved > 0 ? [`approved ${approved} tool(s)`] : []),
    ...(forgotten > 0 ? [`forgot the pins of ${forgotten} tool(s) it no longer lists`] : []),
    ...(texts > 0 ? [`recorded ${texts} other text(s) (prompts, resources, templates, instructions)`] : []),
  ].join(", ");
}

/** One heading and, per part that changed (every part of a new tool or text), its lines old and new. */
function difference(title: string, withheld: Withheld, pin: Pin | undefined, now: Pin, parts: Parts): string {
  const lines = [`${title}: ${withheld.reason}`];
  for (const [key, words] of parts) {
    const shown = pin ? withheld.changed.includes(words) : now[key] !== undefined;
    if (!shown) continue;
    lines.push(`  ${words}:`);
    // A skill's files: each added, removed or changed, with sizes and digests (skill-files.ts).
    const diff = key === "files" ? skillFileLines(pin?.[key], now[key]) : lineDiff(textOf(pin?.[key]), textOf(now[key]));
    for (const line of diff) lines.push(`    ${line}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A description as it is, anything else pretty-printed with its keys sorted; absent as no lines. */
function textOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : canonicalJson(value, 2);
}
