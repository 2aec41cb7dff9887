/**
 * A result as 2026-07-28 gives it: a `resultType`, and for the cacheable methods `ttlMs` and
 * `cacheScope`. Our lists change as toolboxes open and servers come and go, so nothing is cached
 * (ttlMs 0) and nothing is shared between users (private). What a server already set stays.
 */
import { rawIncludes, rawWithLeadingMember } from "../../transport/raw-json.ts";
import { CACHEABLE_METHODS } from "../../protocol/wire.ts";

const COMPLETE = `"resultType":"complete"`;

export function modernResult(method: string | undefined, result: Record<string, unknown>): Record<string, unknown> {
  const cacheable = method !== undefined && CACHEABLE_METHODS.has(method);
  // A large tool result is still the server's bytes: the member goes in front without parsing it.
  if (!cacheable) {
    // A 2026 server's result has its resultType already: a name twice would be invalid JSON-RPC.
    const has = rawIncludes(result, '"resultType"');
    if (has === true) return result;
    const raw = has === false ? rawWithLeadingMember(result, COMPLETE) : undefined;
    if (raw) return raw;
  }
  if (result.resultType === "input_required") return result;
  if (result.resultType !== undefined && (!cacheable || (result.ttlMs !== undefined && result.cacheScope !== undefined))) return result;
  const added: Record<string, unknown> = { resultType: "complete", ...result };
  if (cacheable) {
    added.ttlMs ??= 0;
    added.cacheScope ??= "private";
  }
  return added;
}
