/**
 * The shape of workbench-lock.json (see pin-store.ts, which reads and writes it): per toolbox and
 * server, the pins of its tools under `toolboxes` and of its other texts under `texts`, and under
 * `definitions` the digest of the server definition they were made for, so that pins follow a
 * definition renamed in the configuration (a toolbox or server key changed) instead of being lost
 * and made again from what the server lists now.
 */
import { canonicalJson, type Pin } from "./fingerprint.ts";
import { sha256Hex } from "../cache/sha256.ts";
import { sharingKey } from "../config/definition.ts";
import type { ServerConfig } from "../config/index.ts";

const VERSION = 1;

export type ServerPins = Record<string, Pin>;
type Toolboxes = Record<string, Record<string, ServerPins>>;
type Definitions = Record<string, Record<string, string>>;

/**
 * The tools' pins by toolbox and server, the other texts' (prompts, resources, templates, instructions) by textKey, and each server's
 * definition digest.
 */
export interface Lock {
  toolboxes: Toolboxes;
  texts: Toolboxes;
  definitions: Definitions;
}

export const emptyLock = (): Lock => ({ toolboxes: {}, texts: {}, definitions: {} });

/**
 * A definition's digest: what runs it (command, args, env, cwd; or URL and headers) as the file
 * wrote it, before ${VAR} was expanded (ServerConfig.written), not its name or toolFilters: the
 * same on every machine that reads the file, and no secret's value goes into it.
 */
const digests = new WeakMap<ServerConfig, string>();
export function definitionDigest(config: ServerConfig): string {
  let digest = digests.get(config);
  if (digest === undefined) {
    digest = `sha256:${sha256Hex(config.written ?? sharingKey(config))}`;
    digests.set(config, digest);
  }
  return digest;
}

/** The file's text: keys sorted at every depth, readable in a diff; sections left out while empty. */
export function lockText(lock: Lock): string {
  const texts = Object.keys(lock.texts).length > 0 ? { texts: lock.texts } : {};
  const definitions = Object.keys(lock.definitions).length > 0 ? { definitions: lock.definitions } : {};
  return `${canonicalJson({ toolboxes: lock.toolboxes, ...texts, ...definitions, version: VERSION }, 2)}\n`;
}

/** The places (toolbox, server) whose pins were made for this definition, in the file's order. */
export function placesOf(lock: Lock, digest: string): { toolbox: string; server: string }[] {
  return Object.entries(lock.definitions).flatMap(([toolbox, servers]) =>
    Object.entries(servers).filter(([, one]) => one === digest).map(([server]) => ({ toolbox, server }))
  );
}

/** Records the definition a place's pins are for. */
export function setDefinition(lock: Lock, toolbox: string, server: string, digest: string): void {
  const servers = lock.definitions[toolbox] ??= {};
  Object.defineProperty(servers, server, { value: digest, enumerable: true, writable: true, configurable: true });
}

/** A server's entry, never one inherited from Object.prototype. */
export function own(toolboxes: Toolboxes, toolbox: string, server: string): ServerPins | undefined {
  const servers = Object.hasOwn(toolboxes, toolbox) ? toolboxes[toolbox] : undefined;
  return servers && Object.hasOwn(servers, server) ? servers[server] : undefined;
}

/** The entries `keep` takes (by toolbox, server and recorded definition), sections copied. */
export function keptOf(lock: Lock, keep: (toolbox: string, server: string, definition: string | undefined) => boolean): Lock {
  const kept = emptyLock();
  for (const section of ["toolboxes", "texts", "definitions"] as const) {
    for (const [toolbox, servers] of Object.entries(lock[section])) {
      for (const [server, entry] of Object.entries(servers)) {
        const servers = Object.hasOwn(lock.definitions, toolbox) ? lock.definitions[toolbox] : {};
        const definition = Object.hasOwn(servers, server) ? servers[server] : undefined;
        if (!keep(toolbox, server, definition)) continue;
        const into = kept[section][toolbox] ??= {};
        Object.defineProperty(into, server, { value: entry, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return kept;
}

/** Sets pins (with `onlyNew`, those not pinned yet) and forgets others in one server's entry. */
export function setPins(toolboxes: Toolboxes, toolbox: string, server: string, pins: ServerPins, forget: string[], onlyNew = false): void {
  const entry = (toolboxes[toolbox] ??= {})[server] ??= {};
  for (const [name, pin] of Object.entries(pins)) {
    if (onlyNew && Object.hasOwn(entry, name)) continue;
    // Defined, not assigned: a tool may be called "__proto__".
    Object.defineProperty(entry, name, { value: pin, enumerable: true, writable: true, configurable: true });
  }
  for (const name of forget) delete entry[name];
}

/** The pins of a lock file's text, or what is wrong with it. */
export function parseLock(text: string): Lock | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not valid JSON";
  }
  const isObject = (item: unknown): item is Record<string, unknown> => typeof item === "object" && item !== null && !Array.isArray(item);
  if (!isObject(value) || value.version !== VERSION || !isObject(value.toolboxes)) {
    return `expected {"toolboxes": {...}, "version": ${VERSION}}`;
  }
  const texts = value.texts ?? {};
  if (!isObject(texts)) return `"texts" is not an object`;
  const definitions = value.definitions ?? {};
  if (
    !isObject(definitions) ||
    !Object.values(definitions).every((servers) => isObject(servers) && Object.values(servers).every((one) => typeof one === "string"))
  ) {
    return `"definitions" is not an object of strings by toolbox and server`;
  }
  for (const [section, word] of [[value.toolboxes, "tool"], [texts, "text"]] as const) {
    for (const [toolbox, servers] of Object.entries(section)) {
      if (!isObject(servers)) return `toolbox '${toolbox}' is not an object`;
      for (const [server, tools] of Object.entries(servers)) {
        if (!isObject(tools)) return `server '${toolbox}/${server}' is not an object`;
        for (const [tool, pin] of Object.entries(tools)) {
          if (!isObject(pin) || typeof pin.sha256 !== "string") return `${word} '${toolbox}/${server}/${tool}' has no sha256`;
        }
      }
    }
  }
  return { toolboxes: value.toolboxes as Toolboxes, texts: texts as Toolboxes, definitions: definitions as Definitions };
}
