/** A body read whole within bounds (src/transport/bounded-body.ts): past the bytes or the time, no body at all. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readBounded } from "../../src/transport/bounded-body.ts";

const stream = (chunks: string[], pauseMs = 0) =>
  new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
  });

test("bounded body: read whole within the bounds; none is empty", async () => {
  assert.equal(new TextDecoder().decode(await readBounded(stream(["ab", "cd", "é"]), 6)), "abcdé");
  assert.deepEqual(await readBounded(null, 1), new Uint8Array(0));
});

test("bounded body: past its bytes, or its time, it is no body (never the part read)", async () => {
  assert.equal(await readBounded(stream(["abc", "def"]), 5), undefined);
  assert.equal(await readBounded(stream(["a", "b", "c"], 40), 100, 60), undefined);
});
