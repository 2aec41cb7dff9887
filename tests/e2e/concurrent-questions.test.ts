/**
 * Calls own their questions: with several asking calls in flight at once, a 2026-07-28 client
 * (the SDK v2 client, answering input_required itself) gets each server question in the result of
 * the call it belongs to where the protocol says which (an HTTP server's request on the call's own
 * stream, a 2026-07-28 server's own result), and over a 2025 stdio link one question per waiting
 * call, so that every call is finished by its own retry.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { connectManualClient, type ManualClient, type ManualResult } from "../helpers/era-clients.ts";
import { type HttpFixture, startHttpFixture, startV2Http } from "../helpers/http-fixture.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";
import { fx } from "../helpers/toolbox.ts";
import { fixtureServer } from "../helpers/runtime.ts";

after(removeTempDirs);

/** A call's answer within a bound, so that one that never comes fails the test instead of hanging it. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

interface Question {
  key: string;
  message: string;
}

/** The questions of an input_required result (fails on a complete result). */
function questionsOf(result: ManualResult): Question[] {
  assert.equal(result.resultType, "input_required", JSON.stringify(result));
  const requests = (result as { inputRequests?: Record<string, { method: string; params?: { message?: string } }> }).inputRequests ?? {};
  return Object.entries(requests).map(([key, request]) => {
    assert.equal(request.method, "elicitation/create");
    return { key, message: String(request.params?.message) };
  });
}

const textOf = (result: ManualResult) => (result as { content?: { text?: string }[] }).content?.[0]?.text;
const use = (client: ManualClient, toolbox: string, server: string, name: string, args: Record<string, unknown>, params?: Record<string, unknown>) =>
  client.call("use_tool", { tool: { toolbox, server, name }, arguments: args }, params);
/** The retry that answers each question with a name made from what it asks ("Who confirms a?" → "Ada-a"). */
function retry(client: ManualClient, toolbox: string, server: string, args: Record<string, unknown>, asked: ManualResult) {
  const inputResponses = Object.fromEntries(questionsOf(asked).map(({ key, message }) => {
    const what = /^Who confirms (.*)\?$/.exec(message)?.[1];
    return [key, { action: "accept", content: { name: `Ada-${what}` } }];
  }));
  return use(client, toolbox, server, "confirm", args, { inputResponses, requestState: (asked as { requestState?: string }).requestState });
}

test("concurrent questions: two asking calls to one HTTP server each get their own question and finish on their own retry", async () => {
  let legacy: HttpFixture | undefined;
  let modern: HttpFixture | undefined;
  let client: ManualClient | undefined;
  try {
    [legacy, modern] = await Promise.all([startHttpFixture(), startV2Http(true)]);
    const path = writeConfig(tempDir(), {
      toolboxes: { web: { description: "HTTP servers of both eras", mcpServers: { old: { url: legacy.url() }, new: { url: modern.url("/") } } } },
    });
    client = await connectManualClient(path);
    const opened = await client.call("open_toolbox", { toolbox_name: "web" });
    assert.equal(JSON.parse(textOf(opened)!).servers_connected, 2, JSON.stringify(opened));

    // The first call asks late, the second at once: the second question comes first.
    const first = { what: "first", delayMs: 500 };
    const second = { what: "second", delayMs: 0 };
    const firstCall = use(client, "web", "old", "confirm", first);
    const secondCall = use(client, "web", "old", "confirm", second);
    const [firstAsked, secondAsked] = await within(15_000, "both questions", Promise.all([firstCall, secondCall]));
    assert.deepEqual(questionsOf(firstAsked).map((q) => q.message), ["Who confirms first?"]);
    assert.deepEqual(questionsOf(secondAsked).map((q) => q.message), ["Who confirms second?"]);
    assert.match(questionsOf(firstAsked)[0].key, /^web\/old\//, "the question's key names the server");
    // Each call finishes on its own retry, the other's still not sent.
    assert.equal(textOf(await within(15_000, "the first retry", retry(client, "web", "old", first, firstAsked))), "first confirmed by Ada-first");
    assert.equal(textOf(await within(15_000, "the second retry", retry(client, "web", "old", second, secondAsked))), "second confirmed by Ada-second");

    // A 2026-07-28 server puts each question in its call's own result: it stays there.
    const modernAsked = await within(15_000, "the 2026 questions", Promise.all(["deploy", "rollback"].map((what) => use(client!, "web", "new", "confirm", { what }))));
    assert.deepEqual(modernAsked.map((asked) => questionsOf(asked).map((q) => q.message)), [["Who confirms deploy?"], ["Who confirms rollback?"]]);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}\nworkbench stderr: ${client?.stderr()}`, { cause: error });
  } finally {
    await client?.close();
    await legacy?.stop();
    await modern?.stop();
  }
});

test("concurrent questions: 20 asking calls to one 2025 stdio server get one question each, and 20 retries finish 20 calls", async () => {
  const path = writeConfig(tempDir(), {
    toolboxes: { asking: { description: "A 2025 server that asks", mcpServers: { old: fx("old", {}, { FIXTURE_CLIENT_FEATURES: "1" }) } } },
  });
  const client = await connectManualClient(path);
  try {
    await client.call("open_toolbox", { toolbox_name: "asking" });
    const calls = Array.from({ length: 20 }, (_, i) => ({ what: `c${i}` }));
    const asked = await within(30_000, "20 questions", Promise.all(calls.map((args) => use(client, "asking", "old", "confirm", args))));
    const questions = asked.map(questionsOf);
    assert.deepEqual(questions.map((list) => list.length), calls.map(() => 1), "one question in each input_required");
    // Over stdio nothing says which call asked: every question is there once, each in one call's result.
    assert.deepEqual(questions.map(([q]) => q.message).sort(), calls.map(({ what }) => `Who confirms ${what}?`).sort());
    for (const [question] of questions) assert.match(question.key, /^asking\/old\//, "the question's key names the server");
    const done = await within(30_000, "20 retries", Promise.all(calls.map((args, i) => retry(client, "asking", "old", args, asked[i]))));
    assert.deepEqual(done.map(textOf), calls.map(({ what }) => `${what} confirmed by Ada-${what}`));
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}\nworkbench stderr: ${client.stderr()}`, { cause: error });
  } finally {
    await client.close();
  }
});

test("concurrent questions: over stdio, a question whose carrier got its own answer first goes with a call still waiting", async () => {
  const path = writeConfig(tempDir(), {
    toolboxes: { asking: { description: "A 2025 server that asks", mcpServers: { old: fx("old", {}, { FIXTURE_CLIENT_FEATURES: "1" }) } } },
  });
  const client = await connectManualClient(path);
  try {
    await client.call("open_toolbox", { toolbox_name: "asking" });
    // The second call asks first: over stdio its question goes with the first call, and the other way round.
    const late = { what: "late", delayMs: 500 };
    const soon = { what: "soon" };
    const [lateAsked, soonAsked] = await within(15_000, "both questions", Promise.all([late, soon].map((args) => use(client, "asking", "old", "confirm", args))));
    assert.deepEqual([lateAsked, soonAsked].map((asked) => questionsOf(asked).map((q) => q.message)), [["Who confirms soon?"], ["Who confirms late?"]]);
    // Answering the late call's question finishes the late call: the soon question it carried is asked again, in the soon call.
    const soonAgain = await within(15_000, "the soon retry", retry(client, "asking", "old", soon, soonAsked));
    assert.deepEqual(questionsOf(soonAgain).map((q) => q.message), ["Who confirms soon?"]);
    assert.equal(textOf(await within(15_000, "the soon call", retry(client, "asking", "old", soon, soonAgain))), "soon confirmed by Ada-soon");
    // The late call's result waited for its retry.
    assert.equal(textOf(await within(15_000, "the late call", retry(client, "asking", "old", late, lateAsked))), "late confirmed by Ada-late");
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}\nworkbench stderr: ${client.stderr()}`, { cause: error });
  } finally {
    await client.close();
  }
});

test("concurrent questions: a task's question goes with its own call by the related-task _meta", async () => {
  const path = writeConfig(tempDir(), { toolboxes: { tasks: { description: "A server of tasks", mcpServers: { tasker: fixtureServer("task-server.ts") } } } });
  const client = await connectManualClient(path);
  try {
    await client.call("open_toolbox", { toolbox_name: "tasks" });
    // The first task asks late, the second at once.
    const first = { what: "first", delayMs: 500 };
    const second = { what: "second", delayMs: 0 };
    const asked = await within(15_000, "both questions", Promise.all([first, second].map((args) => use(client, "tasks", "tasker", "confirm", args))));
    assert.deepEqual(asked.map((result) => questionsOf(result).map((q) => q.message)), [["Who confirms first?"], ["Who confirms second?"]]);
    assert.equal(textOf(await within(15_000, "the first task", retry(client, "tasks", "tasker", first, asked[0]))), "confirmed by Ada-first");
    assert.equal(textOf(await within(15_000, "the second task", retry(client, "tasks", "tasker", second, asked[1]))), "confirmed by Ada-second");
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}\nworkbench stderr: ${client.stderr()}`, { cause: error });
  } finally {
    await client.close();
  }
});
