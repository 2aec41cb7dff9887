/**
 * The offer: what a session may see of one server, decided here and nowhere else. What the server
 * listed (live, or as the listing cache kept it) passes the toolbox's toolFilters, then the pins:
 * a tool, prompt, resource, template or instructions text that changed since it was pinned (or a
 * tool, prompt or template that is new on a pinned server) is withheld. Every surface reads this:
 * open_toolbox, use_tool's lookup, run_code's declarations, the instructions' figures, prompts,
 * resources and completions, and the commands (see ServerSlot, which keeps one per server).
 *
 * A skill (Skills extension) is pinned by its frontmatter and its files' digests and sizes; a
 * "dynamic" skill by its frontmatter alone (its bytes cannot be verified). A changed skill, or one
 * new on a pinned server, is withheld: from skills/list and skills/get, and from the reads of its
 * files (the catalog reads withheldTexts for that).
 *
 * Resources come and go as a server works (a note written, a file added): a new one is offered and
 * pinned at first sight; one whose name, title or description changed is withheld, and so is every
 * resource under a withheld skill's root (its SKILL.md, its files), new ones included.
 */
import type { Tool } from "../protocol/sdk.ts";
import { MAX_LISTED_RESOURCES, type ServerListing } from "../downstream/listing.ts";
import { applyToolFilters } from "./filters.ts";
import { changedParts, legacyMatch, type Pin, pinOf, pinParts, skillFiles, TEXT_PARTS, textKey, type TextKind } from "./fingerprint.ts";
import type { LockSnapshot, PinPlace, PinStore, ServerPins } from "./pin-store.ts";
import type { ServerConfig, WorkbenchConfig } from "../config/index.ts";
import { sharingKey } from "../config/definition.ts";
import { currentPin, type Withheld } from "./withheld.ts";
import { definitionDigest } from "./lock-format.ts";

/** What a server listed: its tools, its other lists when known, and what it said at initialize. */
export interface Listed {
  tools: Tool[];
  listing?: ServerListing;
  instructions?: string;
}

/** Where a server's pins are: its toolbox's name for it in the lock, and the lock as last read. */
export interface OfferPins {
  lock: LockSnapshot;
  toolbox: string;
  server: string;
  /** The same definition's other names: their pins stand until this name has its own (pins belong to the definition). */
  same?: PinPlace[];
  /** The definition's digest (definitionDigest): the pins of a name it had before a rename stand too. */
  definition?: string;
}

export interface Offer {
  tools: Tool[];
  listing?: ServerListing;
  instructions?: string;
  /** Tools withheld, with why. */
  withheld: Withheld[];
  /** Prompts, resources, templates and instructions withheld: `name` is the text's key (see textKey). */
  withheldTexts: Withheld[];
  /** The pins the offer was judged by (this place's, or the same definition's elsewhere); none without pins. */
  pinned?: { tools?: ServerPins; texts?: ServerPins };
  /**
   * Pins to add without asking: resources new to the listing, titles of tools pinned before titles
   * were; and resources' pins to forget (see MAX_RESOURCE_PINS).
   */
  firstSeen?: { tools?: ServerPins; texts?: ServerPins; forget?: string[] };
}

/**
 * How many resources' pins a server keeps before those of resources it no longer lists are
 * forgotten: resources come and go as a server works (notes, files), and the lock must not grow
 * with every one ever seen.
 * The cost: a forgotten resource listed again is new, offered at first sight with whatever text
 * it has then, as any new resource is; a server must list past this many to get there. A listing
 * holds no more than MAX_LISTED_RESOURCES (downstream/listing.ts), this number: the lock never
 * holds more than this many resources of a server.
 */
export const MAX_RESOURCE_PINS = MAX_LISTED_RESOURCES;

/** The pins of a server's texts besides tools, by textKey, as they are listed now. */
export function textPins(listed: Listed): ServerPins {
  const pins: ServerPins = {};
  for (const { key, pin } of textsOf(listed)) pins[key] = pin;
  return pins;
}

/** A server's offer through these filters and pins (none: `"pin": false`, every text is offered). */
export function offerOf(listed: Listed, filters: string[] | undefined, pins: OfferPins | undefined): Offer {
  const filtered = applyToolFilters(listed.tools, filters);
  if (!pins) return { tools: filtered, listing: listed.listing, instructions: listed.instructions, withheld: [], withheldTexts: [] };
  const { lock, toolbox, server } = pins;
  if (!lock.loaded || lock.error !== undefined) {
    const reason = lock.error ?? "the lock file is not read yet";
    const texts = textsOf(listed).map(({ key }) => ({ name: key, changed: [], reason }));
    return {
      tools: [],
      ...(listed.listing &&
        {
          listing: {
            prompts: [],
            resources: [],
            resourceTemplates: [],
            ...(listed.listing.skills && { skills: { ...listed.listing.skills, entries: [] } }),
          },
        }),
      withheld: filtered.map((tool) => ({ name: tool.name, changed: [], reason })),
      withheldTexts: texts,
    };
  }
  // Other places are looked at only when this one has no pins (the lock is scanned then alone).
  const elsewhere = () => [...pins.same ?? [], ...(pins.definition === undefined ? [] : lock.placesOf(pins.definition))];
  const pinsOf = (read: (toolbox: string, server: string) => ServerPins | undefined) =>
    read(toolbox, server) ?? elsewhere().map((place) => read(place.toolbox, place.server)).find((found) => found !== undefined);
  const pinned = { tools: pinsOf(lock.pinsOf), texts: pinsOf(lock.textsOf) };
  const tools = toolView(filtered, pinned.tools);
  const texts = textView(listed, pinned.texts);
  const firstSeen = tools.upgrade || texts.added || texts.forget
    ? { tools: tools.upgrade, texts: texts.added, forget: texts.forget }
    : undefined;
  return {
    ...texts.offered,
    tools: tools.offered,
    withheld: tools.withheld,
    withheldTexts: texts.withheld,
    pinned,
    ...(firstSeen && { firstSeen }),
  };
}

/** A server not pinned yet offers every tool: its first sight pins them (see ServerSlot.trust). */
function toolView(tools: Tool[], pinned: ServerPins | undefined) {
  if (!pinned) return { offered: tools, withheld: [] as Withheld[] };
  const offered: Tool[] = [];
  const withheld: Withheld[] = [];
  let upgrade: ServerPins | undefined;
  for (const tool of tools) {
    const pin = Object.hasOwn(pinned, tool.name) ? pinned[tool.name] : undefined;
    const changed = pin ? changedParts(pin, currentPin(tool)) : [];
    if (pin && changed.length === 0) offered.push(tool);
    else if (pin && legacyMatch(pin, tool)) {
      offered.push(tool);
      (upgrade ??= {})[tool.name] = pinOf(tool);
    } else withheld.push({ name: tool.name, changed, reason: pin ? `${changed.join(", ")} changed` : "new tool" });
  }
  return { offered, withheld, upgrade };
}

interface Text {
  kind: TextKind;
  /** Its key among the server's texts (textKey). */
  key: string;
  pin: Pin;
}

/** Texts not pinned yet (a server first seen, or pinned before texts were) are offered: their first sight pins them. */
function textView(listed: Listed, pinned: ServerPins | undefined) {
  const kept = new Set<string>();
  // A key listed twice is offered only when every copy matches its pin: a changed copy withholds the key.
  const refused = new Set<string>();
  const withheld: Withheld[] = [];
  let added: ServerPins | undefined;
  for (const text of textsOf(listed)) {
    const pin = pinned && Object.hasOwn(pinned, text.key) ? pinned[text.key] : undefined;
    const changed = pin ? changedParts(pin, text.pin, TEXT_PARTS[text.kind]) : [];
    if (!pinned || (pin && changed.length === 0)) kept.add(text.key);
    else if (!pin && text.kind === "resource") {
      kept.add(text.key);
      (added ??= {})[text.key] = text.pin;
    } else {
      refused.add(text.key);
      const unverifiable = text.pin.files === "dynamic" ? " (a dynamic skill: its files cannot be verified)" : "";
      withheld.push({ name: text.key, changed, reason: (pin ? `${changed.join(", ")} changed` : `new ${text.kind}`) + unverifiable });
    }
  }
  // A withheld skill's files are not offered as resources either: a new one would show its text.
  const heldRoots = [...refused].filter((key) => key.startsWith("skill:")).map((key) => key.slice("skill:".length, -"SKILL.md".length));
  const underHeld = (uri: string) => heldRoots.some((root) => uri.startsWith(root));
  for (const key of Object.keys(added ?? {})) {
    if (key.startsWith("resource:") && underHeld(key.slice("resource:".length))) delete added![key];
  }
  if (added && Object.keys(added).length === 0) added = undefined;
  const keep = <T>(kind: TextKind, items: T[], keyOf: (item: T) => string) =>
    items.filter((item) => {
      const key = textKey(kind, keyOf(item));
      return kept.has(key) && !refused.has(key) && !(kind === "resource" && underHeld(keyOf(item)));
    });
  const { listing, instructions } = listed;
  const offered = {
    ...(listing && {
      listing: {
        prompts: keep("prompt", listing.prompts, (prompt) => prompt.name),
        resources: keep("resource", listing.resources, (resource) => resource.uri),
        resourceTemplates: keep("template", listing.resourceTemplates, (template) => template.uriTemplate),
        ...(listing.skills && { skills: { ...listing.skills, entries: keep("skill", listing.skills.entries, (entry) => entry.uri) } }),
      },
    }),
    ...(instructions !== undefined && kept.has(textKey("instructions")) && !refused.has(textKey("instructions")) && { instructions }),
  };
  return { offered, withheld, added, forget: listing && pinned ? resourcesToForget(pinned, listing, added) : undefined };
}

/** Past MAX_RESOURCE_PINS, the pins of resources the listing no longer has. */
function resourcesToForget(pinned: ServerPins, listing: ServerListing, added: ServerPins | undefined): string[] | undefined {
  const resources = Object.keys(pinned).filter((key) => key.startsWith("resource:"));
  if (resources.length + Object.keys(added ?? {}).length <= MAX_RESOURCE_PINS) return undefined;
  const listed = new Set(listing.resources.map((resource) => textKey("resource", resource.uri)));
  const forget = resources.filter((key) => !listed.has(key));
  return forget.length > 0 ? forget : undefined;
}

/** Every text of a listing with its key and pin. */
function textsOf(listed: Listed): Text[] {
  const texts: Text[] = [];
  const add = (kind: TextKind, key: string, value: object) =>
    texts.push({ kind, key: textKey(kind, key), pin: pinParts(key, value as Record<string, unknown>, TEXT_PARTS[kind]) });
  for (const prompt of listed.listing?.prompts ?? []) add("prompt", prompt.name, prompt);
  for (const resource of listed.listing?.resources ?? []) add("resource", resource.uri, resource);
  for (const template of listed.listing?.resourceTemplates ?? []) add("template", template.uriTemplate, template);
  for (const skill of listed.listing?.skills?.entries ?? []) {
    add("skill", skill.uri, { frontmatter: skill.frontmatter, files: skillFiles(skill.resources) });
  }
  if (listed.instructions !== undefined) {
    texts.push({
      kind: "instructions",
      key: textKey("instructions"),
      pin: pinParts("instructions", { text: listed.instructions }, TEXT_PARTS.instructions),
    });
  }
  return texts;
}

/** Where a configured server's pins are in this lock; none for `"pin": false` or without a lock. */
export function pinsAt(pins: PinStore | undefined, config: WorkbenchConfig, toolbox: string, server: string): OfferPins | undefined {
  const definition = config.toolboxes[toolbox].mcpServers[server];
  if (!pins || !definition.pin) return undefined;
  return {
    lock: pins.snapshot,
    toolbox,
    server,
    same: samePlaces(config, toolbox, server, definition),
    definition: definitionDigest(definition),
  };
}

/** The other toolboxes' pinned names for a server definition: pins belong to the definition. */
export function samePlaces(config: WorkbenchConfig, toolbox: string, server: string, definition: ServerConfig): PinPlace[] {
  const key = sharingKey(definition);
  const places: PinPlace[] = [];
  for (const [name, { mcpServers }] of Object.entries(config.toolboxes)) {
    for (const [other, one] of Object.entries(mcpServers)) {
      if ((name !== toolbox || other !== server) && one.pin && sharingKey(one) === key) places.push({ toolbox: name, server: other });
    }
  }
  return places;
}
