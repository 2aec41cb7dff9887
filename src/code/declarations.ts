/**
 * A toolbox's tools as TypeScript declarations, for a model writing a code-mode script: input types
 * from each tool's JSON Schema, its description as a doc comment. Shorter than the same tools as
 * JSON, and what the model would write against anyway.
 */
import type { Tool as McpTool } from "../protocol/sdk.ts";

/** One server of the toolbox and the tools a script may call on it. */
export interface DeclaredServer {
  name: string;
  tools: readonly McpTool[];
}

/** The declaration of `tools`, the object a script calls tools through: `tools.<server>.<tool>(args)`. */
export function toolboxDeclarations(servers: readonly DeclaredServer[]): string {
  // Placeholder until the generator lands: every tool takes an object and returns anything.
  const lines = ["declare const tools: {"];
  for (const server of servers) {
    lines.push(`  ${JSON.stringify(server.name)}: {`);
    for (const tool of server.tools) lines.push(`    ${JSON.stringify(tool.name)}(args: Record<string, unknown>): Promise<unknown>;`);
    lines.push("  };");
  }
  lines.push("};");
  return lines.join("\n");
}
