/**
 * Small shapes of the catalog's answers: a request's params as the SDK's schema reads them, and an
 * item's title and description naming the toolbox and server it comes from.
 */
import { ErrorCode } from "../../protocol/sdk.ts";
import { errorWithCode } from "../../protocol/errors.ts";

/** The request as the schema reads it; one it rejects is an invalid-params error. */
export function checked<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: Error } },
  request: unknown,
): T {
  const result = schema.safeParse(request);
  if (!result.success) throw errorWithCode(ErrorCode.InvalidParams, `Invalid params: ${result.error.message}`);
  return result.data;
}

/** Title and description name where the item comes from: `Title (toolbox/server)`. */
export function labelled<T extends { name: string; title?: string; description?: string }>(item: T, toolbox: string, server: string): T {
  const origin = `${toolbox}/${server}`;
  return {
    ...item,
    title: `${item.title ?? item.name} (${origin})`,
    description: item.description ? `${item.description} (from ${origin})` : `From ${origin}`,
  };
}
