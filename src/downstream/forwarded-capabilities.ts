/**
 * What a downstream initialize declares (issue 38): the client's own capabilities for what we
 * relay, normalised to what a server can act on. The pool keys its processes on this (see
 * toolboxes/pool.ts): two clients whose declarations differ only in what no server is given
 * (experimental, tasks, unknown keys or their values, `{}` and `{"form": {}}` for elicitation)
 * share one process, and a client that declares a new object each request starts nothing new.
 * What a server can act on, and so what is kept: elicitation's modes (form, with `applyDefaults`,
 * and url), sampling's `context` and `tools`, `roots` and its `listChanged`, and `extensions` as
 * declared (an extension's settings are its own; each is given as the client said it).
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
  if (isObject(client.extensions)) declared.extensions = client.extensions;
  return declared as ClientCapabilities;
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
