/**
 * Step: learn (issue 53). A tool call that succeeded right after a tool search is the model's
 * judgement of which tool that search's request wanted: the session's search is told, and keeps
 * it (see tools/search-learning.ts). Every caller counts: use_tool and run_code's inner calls. A
 * call the offer refused (withheld, filtered, not granted) never succeeds, so it is never learned.
 */
import type { Step } from "./step.ts";

export const learn: Step = (next) => (call) => {
  const search = call.session.search;
  // A session without tool search pays nothing here (issue 42).
  if (!search?.chose) return next(call);
  return next(call).then((result) => {
    if (result.ok) search.chose!(call.id);
    return result;
  });
};
