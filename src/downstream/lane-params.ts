/** The params of a lane's tools/call request (see call-lane.ts): what the server gets, `_meta` included. */
import { type CallInput, PASS_INPUT_REQUIRED_KEY } from "../protocol/wire.ts";

/** What of a lane call (call-lane.ts's LaneCall) goes into its request. */
interface CallParts {
  name: string;
  arguments: Record<string, unknown>;
  input?: CallInput;
  meta?: Readonly<Record<string, string>>;
}

/**
 * The request's params: a retry's answers and state as the client sent them (never rewritten), and
 * the era link's mark to hand an input_required back as it is (the client answers it itself).
 */
export function paramsOf(call: CallParts, progressToken: string): Record<string, unknown> {
  const params: Record<string, unknown> = { name: call.name, arguments: call.arguments };
  const input = call.input;
  if (input?.inputResponses !== undefined) params.inputResponses = input.inputResponses;
  if (input?.requestState !== undefined) params.requestState = input.requestState;
  // The trace context (tracing on) first: our progress token and mark stand over a same-named key.
  const meta: Record<string, unknown> = call.meta ? { ...call.meta, progressToken } : { progressToken };
  if (input?.passInputRequired) meta[PASS_INPUT_REQUIRED_KEY] = true;
  params._meta = meta;
  return params;
}
