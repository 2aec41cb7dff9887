/**
 * A toolbox's tools as TypeScript declarations, for a model writing a code-mode script: input types
 * from each tool's JSON Schema, its description as a doc comment, the resolved type from its
 * outputSchema when it has one. Shorter than the same tools as JSON, and what the model would
 * write against anyway.
 */
import type { Tool as McpTool } from "../protocol/sdk.ts";
import { docComment, propertyName, requiresNothing, schemaType } from "./schema-type.ts";

/** One server of the toolbox and the tools a script may call on it. */
export interface DeclaredServer {
  name: string;
  tools: readonly McpTool[];
}

/**
 * The declaration of `tools`, the object a script calls tools through: `tools.<server>.<tool>(args)`,
 * or `tools["server"]["x-y.z"](args)` for names that are not identifiers. A call resolves to the
 * tool's structuredContent (typed by its outputSchema), else to its text (parsed when it is JSON).
 */
export function toolboxDeclarations(servers: readonly DeclaredServer[]): string {
  const lines = ["declare const tools: {"];
  for (const server of servers) {
    lines.push(`  ${propertyName(server.name)}: {`);
    for (const tool of server.tools) lines.push(toolDeclaration(tool, "    "));
    lines.push("  };");
  }
  lines.push("};");
  return lines.join("\n");
}

function toolDeclaration(tool: McpTool, indent: string): string {
  const input = tool.inputSchema;
  const args = schemaType(input, { indent });
  const optional = requiresNothing(input) ? "?" : "";
  const output = tool.outputSchema ? schemaType(tool.outputSchema, { indent, docs: false }) : "unknown";
  const doc = docComment(tool.description ?? tool.title, indent);
  return `${doc}${indent}${propertyName(tool.name)}(args${optional}: ${args}): Promise<${output}>;`;
}
