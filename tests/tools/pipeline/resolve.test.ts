/** The resolve step alone, with a stub offer and a stub next: it asks the offer, and opens toolboxes only for requests that may. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "../../../src/tools/pipeline/resolve.ts";
import type { Found, ToolFinder } from "../../../src/toolboxes/session-offer.ts";
import type { CallSession } from "../../../src/tools/pipeline/step.ts";
import { newCall } from "../../../src/tools/pipeline/step.ts";
import { validateConfig } from "../../../src/config/index.ts";
import { serverOf, stubNext, stubTarget, TOOL_ID } from "../../helpers/calls.ts";

const config = validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x" } } } } });
const tool = { name: "echo", inputSchema: { type: "object" as const } };

/** An offer that answers `found` and keeps whether each ask could open the toolbox. */
function offerOf(found: Found) {
  const opens: boolean[] = [];
  const offer: ToolFinder = {
    find: (_id, _signal, open) => {
      opens.push(typeof open === "function" ? open() : open);
      return Promise.resolve(found);
    },
  };
  return { offer, opens };
}

const callWith = (offer: ToolFinder, session: Partial<CallSession> = {}) =>
  newCall({ config, offer, ...session }, { signal: new AbortController().signal }, TOOL_ID, {});

test("resolve: the tool the offer finds goes on to the next step, with its target", async () => {
  const { target } = stubTarget(serverOf());
  const { offer, opens } = offerOf({ ok: true, target, tool });
  const { next, got } = stubNext();
  assert.equal((await resolve(next)(callWith(offer))).ok, true);
  assert.equal(got[0].target, target);
  assert.equal(got[0].tool, tool);
  assert.deepEqual(opens, [false], "a request that does not stand alone does not open its toolbox");
});

test("resolve: a request that stands alone, or a toolbox a search answered with, may be opened", async () => {
  const { offer, opens } = offerOf({ ok: false, error: "x" });
  await resolve(stubNext().next)(callWith(offer, { opensToolboxes: () => true }));
  await resolve(stubNext().next)(callWith(offer, { search: { found: new Set(["dev"]) } }));
  await resolve(stubNext().next)(callWith(offer, { search: { found: new Set(["other"]) } }));
  assert.deepEqual(opens, [true, true, false]);
});

test("resolve: what the offer refuses stops the call with its text; a withheld tool is noted", async () => {
  const { next, got } = stubNext();
  const call = callWith(offerOf({ ok: false, error: "Error executing tool: withheld", withheld: true }).offer);
  assert.deepEqual(await resolve(next)(call), { ok: false, error: "Error executing tool: withheld" });
  assert.deepEqual(call.note, { outcome: "withheld" });
  const missing = callWith(offerOf({ ok: false, error: "Not found" }).offer);
  await resolve(next)(missing);
  assert.deepEqual(missing.note, {});
  assert.equal(got.length, 0);
});

test("resolve: the call's signal is not read to find a tool of a live server (reading it makes one, call-cancel.ts)", async () => {
  const { target } = stubTarget(serverOf());
  let reads = 0;
  const request = {
    get signal() {
      reads++;
      return new AbortController().signal;
    },
  };
  const offer: ToolFinder = { find: () => Promise.resolve({ ok: true, target, tool }) };
  const { next } = stubNext();
  assert.equal((await resolve(next)(newCall({ config, offer }, request, TOOL_ID, {}))).ok, true);
  assert.equal(reads, 0);
  // The offer that must wait for a server reads it then.
  const waiting: ToolFinder = { find: (_id, signal) => (signal().aborted, Promise.resolve({ ok: true, target, tool })) };
  await resolve(next)(newCall({ config, offer: waiting }, request, TOOL_ID, {}));
  assert.equal(reads, 1);
});
