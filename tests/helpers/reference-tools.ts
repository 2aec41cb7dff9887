/** The tools of a reference server from npm, listed over real stdio with the SDK client (for the declarations' tests). */
import { Client, StdioClientTransport, type Tool } from "./sdk.ts";
import { npmServer, workbenchEnv } from "./runtime.ts";

export async function referenceTools(pkg: "everything" | "memory" | "filesystem", args: string[] = [], env: Record<string, string> = {}): Promise<Tool[]> {
  const client = new Client({ name: "declarations-test", version: "1.0.0" });
  const transport = new StdioClientTransport({ ...npmServer(pkg, args), env: workbenchEnv(env), stderr: "ignore" });
  await client.connect(transport, { timeout: 30_000 });
  try {
    return (await client.listTools(undefined, { timeout: 30_000 })).tools;
  } finally {
    await client.close();
  }
}
