/**
 * open_toolbox's part of "connect your account" (issue 49 §3): a server of the toolbox that could
 * not start for a secret its member lacks asks the member for it, as a call does
 * (pipeline/connect-ask.ts), within the open_toolbox request; once one was provided the toolbox is
 * opened again, and that server starts with it. What could not be asked (declined, no URL
 * elicitation: the page's address) is said beside the toolbox's other errors.
 */
import type { OpenToolbox } from "../toolboxes/opening.ts";
import { askFor } from "./pipeline/connect-ask.ts";
import type { ToolContext } from "./tool.ts";

/** A server may name several secrets: at most this many are asked for it in one open. */
const MAX_ASKED_PER_SERVER = 8;

/** Asks for what the toolbox's servers lack; `provided`: open it again. */
export async function askForLacking(ctx: ToolContext, toolbox: OpenToolbox): Promise<{ provided: boolean; notes: string[] }> {
  const { connect, upstream } = ctx.session;
  const notes: string[] = [];
  let provided = false;
  if (!connect) return { provided, notes };
  for (const slot of toolbox.servers) {
    for (let asked = 0; asked < MAX_ASKED_PER_SERVER; asked++) {
      const lacks = await slot.shared.lacking();
      const where = { toolbox: toolbox.name, server: slot.name };
      if (lacks?.secret === undefined && !lacks?.login) break;
      const failed = await askFor(connect, upstream, ctx.request, where, lacks);
      if (failed !== undefined) {
        notes.push(`Server '${slot.name}' in toolbox '${toolbox.name}': ${failed}`);
        break;
      }
      provided = true;
      // A login is one: the server's next start (the open again) says whether it holds.
      if (lacks.login) break;
    }
  }
  return { provided, notes };
}
