/**
 * A server's -32042 "URL elicitation required" through use_tool. Its data names the URLs the user
 * must open before the call can succeed. A client that declared URL elicitation gets the error as
 * a direct client would, code and data, and opens them itself; any other client (and `call`) gets
 * use_tool's error text with the URLs in it, for the user to open.
 */
import { ErrorCode } from "../../protocol/sdk.ts";
import { serverAnswer } from "../../downstream/call-lane.ts";
import { Failure, type Result } from "./values.ts";

/** The failure for a -32042 behind `error`; undefined for any other failure. */
export function urlRequired(error: unknown, text: string, clientOpensUrls: boolean): Result<never> | undefined {
  const answer = serverAnswer(error);
  if (answer?.code !== ErrorCode.UrlElicitationRequired) return undefined;
  if (clientOpensUrls) return Failure(text, answer);
  const urls = urlsOf(answer.data);
  if (urls.length === 0) return Failure(text);
  const which = urls.length === 1 ? "this URL" : "these URLs";
  return Failure(`${text}; the user must open ${which}, then call the tool again: ${urls.join(", ")}`);
}

/** Each elicitation's URL, with its message in parentheses when it has one. */
function urlsOf(data: unknown): string[] {
  const elicitations = (data as { elicitations?: unknown } | null | undefined)?.elicitations;
  if (!Array.isArray(elicitations)) return [];
  return elicitations.flatMap((item) => {
    const { url, message } = (item ?? {}) as { url?: unknown; message?: unknown };
    if (typeof url !== "string") return [];
    return [typeof message === "string" && message !== "" ? `${url} (${message})` : url];
  });
}
