/**
 * One downstream tool call by its structured identifier: the path every call of a tool behind the
 * workbench takes, whoever asks for it (use_tool, run_code's scripts, the `call` command). Its
 * steps, each in its own file and each of one shape (step.ts), composed once here: record, learn,
 * connect, resolve, check arguments, approve, trace, send. No caller can skip one; a new concern is a step here.
 */
import { record } from "./record.ts";
import { learn } from "./learn.ts";
import { connect } from "./connect.ts";
import { resolve } from "./resolve.ts";
import { checkCallArguments } from "./check-arguments.ts";
import { approve } from "./approve.ts";
import { trace } from "./trace.ts";
import { send } from "./call.ts";
import { type CallRequest, type CallResult, type CallSession, compose, newCall, type Next, type Step } from "./step.ts";
import { Failure, type ToolId, whereOf } from "./values.ts";

/** The steps in order; send is the last (it has no next). */
export const STEPS: readonly Step[] = [record, learn, connect, resolve, checkCallArguments, approve, trace, () => send];

/**
 * The steps that cannot apply to some sessions, and when they can: asking a member needs serving
 * over HTTP, tracing needs telemetry on (both fixed for a session's life). A session's
 * pipeline leaves out the others, so its calls do not pass through them (composed once per session).
 */
const APPLIES = new Map<Step, (session: CallSession) => boolean>([
  [connect, (session) => session.connect !== undefined],
  [trace, (session) => session.telemetry !== undefined && (session.telemetry.tracing || session.telemetry.metering)],
]);
const pipelines = new WeakMap<CallSession, Next>();

function pipelineOf(session: CallSession): Next {
  const run = compose(STEPS.filter((step) => APPLIES.get(step)?.(session) ?? true));
  pipelines.set(session, run);
  return run;
}

/**
 * A call of a tool a run_code script was not given (its arguments never left the sandbox): refused
 * as resolve refuses it (not found, withheld, with its "did you mean"), or, for a tool listed since
 * the script started, saying so; recorded as any refused call.
 */
const listedLater: Step = () => (call) =>
  Promise.resolve(
    Failure(
      `Error executing tool '${call.id.name}' ${whereOf(call.id)}: it was listed after the script started; call it from a new run_code`,
    ),
  );
const refuse = compose([record, resolve, listedLater]);

export function runUngivenCall(session: CallSession, request: CallRequest, id: ToolId): CallResult {
  return refuse(newCall(session, request, id, {}));
}

/** Calls the tool through its toolbox's server; every failure is a value with the text the client sees. */
export function runToolCall(session: CallSession, request: CallRequest, id: ToolId, args: Record<string, unknown>): CallResult {
  return (pipelines.get(session) ?? pipelineOf(session))(newCall(session, request, id, args));
}
