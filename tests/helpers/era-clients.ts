/**
 * The clients of the era matrix, each a real program in front of the workbench over stdio: the
 * SDK v2 client (`@modelcontextprotocol/client` 2.4) in its three negotiation modes, and the SDK
 * 1.32 client. Each answers a form elicitation with the name it is given, and exposes the same
 * few calls, so one test body runs against each.
 */
import { Client as V2Client, type InputRequiredResult, specTypeSchemas, withInputRequired } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client, ElicitRequestSchema, StdioClientTransport } from "./sdk.ts";
import { workbenchCommand, workbenchEnv } from "./runtime.ts";

export type ClientKind = "v2-legacy" | "v2-auto" | "v2-pinned" | "sdk-1.32";
export const CLIENT_KINDS: ClientKind[] = ["v2-legacy", "v2-auto", "v2-pinned", "sdk-1.32"];

export interface ToolResult {
  content?: { type: string; text?: string }[];
  isError?: boolean;
}

export interface EraClient {
  /** "modern" for 2026-07-28, "legacy" for 2025-11-25. */
  era: string;
  instructions: string | undefined;
  /** The workbench's process id. */
  pid: number;
  /** `onprogress` hears the call's progress (the servers' waits say when they began). */
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal, onprogress?: () => void): Promise<ToolResult>;
  /** The meta-tools' names (tools/list). */
  listTools(): Promise<string[]>;
  /** What the workbench wrote to stderr (for failure messages). */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts the workbench for `configPath` with a client of `kind`; elicitations are answered with `name`. */
export async function connectEraClient(kind: ClientKind, configPath: string, env: Record<string, string>, name: string): Promise<EraClient> {
  const { command, args } = workbenchCommand(["--config", configPath]);
  const answer = { action: "accept" as const, content: { name } };
  let stderr = "";
  const collect = (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk));
  if (kind === "sdk-1.32") {
    const client = new Client({ name: "era-matrix-1.32", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, () => answer);
    const transport = new StdioClientTransport({ command, args, env: workbenchEnv(env), stderr: "pipe" });
    transport.stderr?.on("data", collect);
    await client.connect(transport);
    return {
      era: "legacy",
      instructions: client.getInstructions(),
      pid: transport.pid!,
      call: (tool, input, signal, onprogress) =>
        client.callTool({ name: tool, arguments: input }, undefined, { signal, onprogress }) as Promise<ToolResult>,
      listTools: async () => (await client.listTools()).tools.map((tool) => tool.name),
      stderr: () => stderr,
      close: () => client.close(),
    };
  }
  const mode = kind === "v2-legacy" ? "legacy" : kind === "v2-auto" ? "auto" : { pin: "2026-07-28" };
  const client = new V2Client({ name: `era-matrix-${kind}`, version: "2.4.0" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode },
  });
  client.setRequestHandler("elicitation/create", () => answer);
  const transport = new V2StdioTransport({ command, args, env: workbenchEnv(env), stderr: "pipe" });
  transport.stderr?.on("data", collect);
  await client.connect(transport);
  return {
    era: client.getProtocolEra() ?? "none",
    instructions: client.getInstructions(),
    pid: transport.pid!,
    call: (tool, input, signal, onprogress) =>
      client.callTool({ name: tool, arguments: input }, { signal, onprogress }) as Promise<ToolResult>,
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** A call's answer to a client that answers input_required itself: the questions, or the result. */
export type ManualResult = (InputRequiredResult & { resultType: "input_required" }) | (ToolResult & { resultType?: string });

export interface ManualClient {
  /** use_tool with `params` (inputResponses and requestState for a retry) beside name and arguments. */
  call(name: string, args: Record<string, unknown>, params?: Record<string, unknown>): Promise<ManualResult>;
  stderr(): string;
  close(): Promise<void>;
}

/** The SDK v2 client pinned to 2026-07-28 that hands each input_required back to the test to answer. */
export async function connectManualClient(configPath: string): Promise<ManualClient> {
  const { command, args } = workbenchCommand(["--config", configPath]);
  let stderr = "";
  const client = new V2Client({ name: "manual-2026", version: "2.4.0" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    inputRequired: { autoFulfill: false },
  });
  client.setRequestHandler("elicitation/create", () => ({ action: "decline" as const }));
  const transport = new V2StdioTransport({ command, args, env: workbenchEnv(), stderr: "pipe" });
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  await client.connect(transport);
  return {
    call: (name, input, params = {}) =>
      client.request(
        { method: "tools/call", params: { name, arguments: input, ...params } },
        withInputRequired(specTypeSchemas.CallToolResult),
        { allowInputRequired: true, timeout: 60_000 },
      ) as Promise<ManualResult>,
    stderr: () => stderr,
    close: () => client.close(),
  };
}
