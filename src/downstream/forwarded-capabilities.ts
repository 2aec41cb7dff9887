/**
 * What a downstream initialize declares (issue 38): the client's own capabilities for what we
 * relay, normalised to what a server can act on. The pool keys its processes on this (see
 * toolboxes/pool.ts): two clients whose declarations differ only in what no server is given
 * (experimental, tasks, unknown keys or their values, `{}` and `{"form": {}}` for elicitation)
 * share one process, and a client that declares a new object each request starts nothing new.
 * What a server can act on, and so what is kept: elicitation's modes (form, with `applyDefaults`,
 * and url), sampling's `context` and `tools`, `roots` and its `listChanged`, and the names of the
 * `extensions` declared, each as a flag (`{}`): their settings would make a key of their own each
 * (issue 52: 10 settings of one extension, 10 processes); the pool gives a server only those it
 * declared (withExtensionsOf).
 */
import type { ClientCapabilities } from "../protocol/sdk.ts";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The client's capabilities as every server behind it is given them; `roots` false leaves roots out. */
export function mirroredCapabilities(client: ClientCapabilities | undefined, roots: boolean): ClientCapabilities {
  if (!client) return {};
  const declared: Json = {};
  if (isObject(client.elicitation)) declared.elicitation = elicitation(client.elicitation);
  if (isObject(client.sampling)) declared.sampling = present(client.sampling, ["context", "tools"]);
  if (roots && isObject(client.roots)) declared.roots = client.roots.listChanged === true ? { listChanged: true } : {};
  const extensions = isObject(client.extensions) ? flags(client.extensions) : undefined;
  if (extensions) declared.extensions = extensions;
  return declared as ClientCapabilities;
}

/** Each extension declared (an object), as `{}`; undefined when there is none. */
function flags(extensions: Json): Json | undefined {
  const names = Object.keys(extensions).filter((name) => isObject(extensions[name]));
  return names.length > 0 ? Object.fromEntries(names.map((name) => [name, {}])) : undefined;
}

/**
 * The capabilities with only the extensions among `declared` (those the server declared): an
 * extension works only when both sides declare it, so a server is given no other, and sessions
 * that differ only in another share its process (issue 52: 20 sessions that differed only in
 * their extensions started 20 processes, 1,159 MiB).
 */
export function withExtensionsOf(capabilities: ClientCapabilities, declared: readonly string[]): ClientCapabilities {
  const extensions = (capabilities as { extensions?: Json }).extensions;
  if (!extensions) return capabilities;
  const { extensions: _, ...rest } = capabilities as Json;
  const kept = Object.keys(extensions).filter((name) => declared.includes(name));
  return (kept.length > 0 ? { ...rest, extensions: Object.fromEntries(kept.map((name) => [name, {}])) } : rest) as ClientCapabilities;
}

/**
 * Form and url modes; form alone is `{}`, which every revision reads as form (2025-11-25 says an
 * empty object is form only), unless it asks for defaults applied.
 */
function elicitation(declared: Json): Json {
  const form = isObject(declared.form) ? (declared.form.applyDefaults === true ? { applyDefaults: true } : {}) : undefined;
  const url = isObject(declared.url);
  if (!url) return form?.applyDefaults ? { form } : {};
  return { ...(form && { form }), url: {} };
}

/** The sub-capabilities among `keys` that the client declared, each as `{}`. */
function present(declared: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((key) => isObject(declared[key])).map((key) => [key, {}]));
}
