/**
 * Step: resolve. From the identifier use_tool names to the tool itself, as the session's offer
 * finds it: the toolbox configured and open (or opened here, for a request that stands alone, or
 * one its tool search answered with), the server in it and connected, its pins read, and the tool
 * listed and not withheld.
 */
import { Failure } from "./values.ts";
import type { Step } from "./step.ts";

export { useToolToolboxNotFound } from "../../toolboxes/session-offer.ts";

export const resolve: Step = (next) => async (call) => {
  const { session, id } = call;
  const opens = () => call.provided === true || session.opensToolboxes?.() === true || session.search?.found.has(id.toolbox) === true;
  // The signal as a getter: a live server is not waited for, and a call's signal is made when first read.
  const found = await session.offer.find(id, () => call.request.signal, opens, call.request.span);
  if (!found.ok) {
    if (found.withheld) call.note.outcome = "withheld";
    return Failure(found.error);
  }
  call.target = found.target;
  call.tool = found.tool;
  return next(call);
};
