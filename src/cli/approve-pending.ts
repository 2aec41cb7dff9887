/**
 * What `mcp-workbench approve` has to show of one server (see approve.ts): its tools and texts
 * withheld against their pins and the pins of what it no longer lists, each shown as its
 * difference from the old pin, and the new pins that recording them would write.
 */
import type { Tool } from "../protocol/sdk.ts";
import { canonicalJson, type Parts, type Pin, PINNED_PARTS, TEXT_PARTS, type TextKind } from "../toolboxes/fingerprint.ts";
import { textPins } from "../toolboxes/offer.ts";
import type { ServerPins } from "../toolboxes/pin-store.ts";
import type { ServerSlot } from "../toolboxes/server-slot.ts";
import { currentPin, textWords, type Withheld } from "../toolboxes/withheld.ts";
import { lineDiff } from "./line-diff.ts";
import { skillFileLines } from "./skill-files.ts";

/** What the server has pending against its pins, and what it lists now. */
export interface Pending {
  listed: Tool[];
  held: Withheld[];
  heldTexts: Withheld[];
  gone: string[];
  goneTexts: string[];
  old: ServerPins;
  oldTexts: ServerPins;
  textsNow: ServerPins;
}

/** The pins to record, and the difference of each from its old pin, as shown. */
export interface Shown {
  approved: ServerPins;
  approvedTexts: ServerPins;
  sections: string[];
}

/** What `only` (a tool or a text's key), or every tool and text when undefined, has pending on the server as it lists now. */
export function pendingOf(slot: ServerSlot, only: string | undefined, instructions: string | undefined): Pending {
  const listed = slot.shared.tools;
  const held = slot.withheld.filter((tool) => only === undefined || tool.name === only);
  // Prompts, resources, templates and instructions: with the server's tools, or one by its key ("prompt:intro").
  const textsNow = textPins({ tools: listed, listing: slot.shared.listing, instructions });
  const heldTexts = slot.withheldTexts.filter((text) => only === undefined || text.name === only);
  // The pins the offer judged by: this name's, or those of the same definition elsewhere (a dry run of a renamed server copies none).
  const oldTexts = slot.offer.pinned?.texts ?? {};
  const goneTexts = only === undefined ? Object.keys(oldTexts).filter((key) => !Object.hasOwn(textsNow, key)) : [];
  const old = slot.offer.pinned?.tools ?? {};
  const gone = only === undefined ? Object.keys(old).filter((name) => !listed.some((tool) => tool.name === name)) : [];
  return { listed, held, heldTexts, gone, goneTexts, old, oldTexts, textsNow };
}

/** Each pending change as shown to the user, and the pins recording them would write. */
export function shownPending(toolbox: string, server: string, pending: Pending): Shown {
  const { listed, old, oldTexts, textsNow } = pending;
  const approved: ServerPins = {};
  const sections: string[] = [];
  for (const withheld of pending.held) {
    const tool = listed.find((one) => one.name === withheld.name)!;
    approved[tool.name] = currentPin(tool);
    const pin = Object.hasOwn(old, tool.name) ? old[tool.name] : undefined;
    sections.push(difference(`${toolbox}/${server}/${tool.name}`, withheld, pin, currentPin(tool), PINNED_PARTS));
  }
  const approvedTexts: ServerPins = {};
  for (const withheld of pending.heldTexts) {
    approvedTexts[withheld.name] = textsNow[withheld.name];
    const pin = Object.hasOwn(oldTexts, withheld.name) ? oldTexts[withheld.name] : undefined;
    const parts = TEXT_PARTS[withheld.name.split(":")[0] as TextKind];
    sections.push(difference(`${toolbox}/${server}: ${textWords(withheld.name)}`, withheld, pin, textsNow[withheld.name], parts));
  }
  for (const name of pending.gone) sections.push(`${toolbox}/${server}/${name}: no longer listed by the server; its pin is forgotten\n`);
  for (const key of pending.goneTexts) {
    sections.push(`${toolbox}/${server}: ${textWords(key)}: no longer listed by the server; its pin is forgotten\n`);
  }
  return { approved, approvedTexts, sections };
}

/** What recording would do, in words: "approve 2 tool(s), forget the pins of 1 it no longer lists". */
export function pendingWords({ held, heldTexts, gone, goneTexts }: Pending): string {
  return [
    ...(held.length > 0 ? [`approve ${held.length} tool(s)`] : []),
    ...(heldTexts.length > 0 ? [`approve ${heldTexts.length} other text(s)`] : []),
    ...(gone.length + goneTexts.length > 0 ? [`forget the pins of ${gone.length + goneTexts.length} it no longer lists`] : []),
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
