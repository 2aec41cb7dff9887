/** The real platform adapter with its output captured, for unit tests of the subcommands. */
import { platform } from "#platform";
import type { Platform } from "../../src/platform/types.ts";

/**
 * The real platform with stdout and stderr captured, stderr and stdin a terminal or not, stdin's text, and any other
 * property (env, cwd) replaced. Own properties over the real adapter, whose stdout is a getter
 * that cannot be assigned.
 */
export function capturedPlatform(
  options: { terminal?: boolean; env?: Record<string, string>; cwd?: string; stdinTerminal?: boolean; input?: string } = {},
) {
  const out = { stderr: "", stdout: "" };
  const decoder = new TextDecoder();
  const fake = Object.create(platform, {
    stderrIsTerminal: { value: () => options.terminal ?? false },
    stdinIsTerminal: { value: () => options.stdinTerminal ?? false },
    ...(options.input !== undefined && { stdin: { value: new Blob([options.input]).stream() } }),
    writeStderr: { value: (text: string) => void (out.stderr += text) },
    stdout: { value: new WritableStream<Uint8Array>({ write: (chunk) => void (out.stdout += decoder.decode(chunk)) }) },
    ...(options.env && { env: { value: options.env } }),
    ...(options.cwd && { cwd: { value: options.cwd } }),
  }) as Platform;
  return { fake, out };
}
