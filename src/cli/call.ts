/**
 * `mcp-workbench call <toolbox> <server> <tool> [ARGS]`: one call through use_tool's own logic.
 * ARGS is a JSON object, `@file` or `-` (stdin).
 */
import type { Platform } from "../platform/types.ts";
import type { CallToolResult } from "../protocol/sdk.ts";
import { resolveConfigPath } from "../config/index.ts";
import { runToolCall } from "../tools/pipeline/pipeline.ts";
import { messageOf } from "../protocol/errors.ts";
import type { SubcommandArgs } from "./args.ts";
import { commandOffer, EXIT_FAILED, EXIT_USAGE, loadForToolbox, sayError, writeStdout } from "./common.ts";
import { didYouMean } from "../config/suggest.ts";
import { openAuditLog } from "../trust/audit-log.ts";

export async function runCall(platform: Platform, args: SubcommandArgs): Promise<number> {
  const [toolbox, server, tool, given] = args.positionals;
  const parsed = await readArguments(platform, given);
  if (typeof parsed === "string") {
    sayError(platform, parsed);
    return EXIT_USAGE;
  }
  const loaded = await loadForToolbox(platform, args.configPath, toolbox);
  if (!loaded) return EXIT_USAGE;
  const { config } = loaded;
  if (config.toolboxes[toolbox].disabledServers?.includes(server)) {
    sayError(
      platform,
      `Server '${server}' in toolbox '${toolbox}' is disabled ("disabled": true in '${loaded.path}'): delete that key to use it`,
    );
    return EXIT_USAGE;
  }
  const offer = await commandOffer(platform, loaded);
  try {
    // Only this server is waited for. What opening reported is the reason a call cannot be made: said as it is, not as use_tool would
    // tell a model.
    const opened = await offer.open(toolbox, server);
    const slot = opened.servers.find((candidate) => candidate.name === server);
    if (!slot) {
      sayError(
        platform,
        `Server '${server}' not found in toolbox '${toolbox}' of '${loaded.path}'${didYouMean(server, opened.servers.map((s) => s.name))}`,
      );
      return EXIT_USAGE;
    }
    if (!slot.serverSession) {
      sayError(platform, `Failed to connect to server '${server}' in toolbox '${toolbox}': ${slot.error ?? "not connected"}`);
      return EXIT_FAILED;
    }
    // The command is a session of its own in the audit log.
    const audit = openAuditLog(config, { append: platform.appendPrivateFile, warn: (text) => sayError(platform, text) });
    // In a terminal (and with ARGS not read from stdin) the user is asked, y/N; elsewhere the call is refused.
    const askUser = platform.stdinIsTerminal() && given !== "-" ? (question: string) => askInTerminal(platform, question) : undefined;
    const session = { config, offer, sessionId: crypto.randomUUID(), audit, askUser };
    const outcome = await runToolCall(session, { signal: new AbortController().signal }, { toolbox, server, name: tool }, parsed);
    await audit?.flushed();
    if (!outcome.ok) {
      sayError(platform, outcome.error);
      return EXIT_FAILED;
    }
    const text = render(outcome.value);
    if (outcome.value.isError) {
      platform.writeStderr(text);
      return EXIT_FAILED;
    }
    await writeStdout(platform, text);
    return 0;
  } finally {
    await offer.registry.closeAll();
  }
}

/** The arguments object, or the words of a usage error. */
async function readArguments(platform: Platform, given: string | undefined): Promise<Record<string, unknown> | string> {
  if (given === undefined) return {};
  let text = given;
  if (given === "-") {
    text = await new Response(platform.stdin).text();
  } else if (given.startsWith("@")) {
    const file = given.slice(1);
    if (file === "") return "Invalid ARGS: '@' needs a file name: @FILE";
    const path = resolveConfigPath({ flag: file, env: {}, cwd: platform.cwd });
    try {
      text = await platform.readTextFile(path);
    } catch (error) {
      return `Cannot read ARGS file '${path}': ${messageOf(error)}`;
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `Invalid ARGS: not valid JSON; expected a JSON object, e.g. '{"path": "/tmp"}'`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `Invalid ARGS: expected a JSON object, e.g. '{"path": "/tmp"}'`;
  }
  return value as Record<string, unknown>;
}

/** Longest answer line read: "y" is enough, a paste of a page is not an answer. */
const MAX_ANSWER_BYTES = 1_024;

/** The question on stderr, the answer from stdin: only "y" or "yes" approves (an end of input declines). */
async function askInTerminal(platform: Platform, question: string): Promise<boolean> {
  platform.writeStderr(`${question}\nAllow this call? [y/N] `);
  const reader = platform.stdin.getReader();
  const decoder = new TextDecoder();
  let line = "";
  try {
    while (!line.includes("\n") && line.length < MAX_ANSWER_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      line += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return /^\s*y(es)?\s*$/i.test(line.split("\n")[0]);
}

/** Text content as it is, anything else as one line of JSON. */
function render(result: CallToolResult): string {
  const blocks = result.content.map((block) => block.type === "text" ? block.text : JSON.stringify(block));
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push(JSON.stringify(result.structuredContent));
  return blocks.map((text) => (text.endsWith("\n") ? text : `${text}\n`)).join("");
}
