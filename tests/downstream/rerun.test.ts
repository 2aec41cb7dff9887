import { test } from "node:test";
import assert from "node:assert/strict";
import { Rerun } from "../../src/downstream/rerun.ts";

test("rerun: requests during a run ask for one more run, not one each; false stops", async () => {
  let runs = 0;
  let release!: () => void;
  const rerun = new Rerun(async () => {
    runs++;
    if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
    return true;
  });
  rerun.request();
  for (let i = 0; i < 5; i++) rerun.request();
  release();
  await rerun.settled();
  assert.equal(runs, 2);
  await rerun.settled();
  rerun.request();
  await rerun.settled();
  assert.equal(runs, 3);

  let stopped = 0;
  let go!: () => void;
  const stopping = new Rerun(async () => {
    stopped++;
    await new Promise<void>((resolve) => (go = resolve));
    return false;
  });
  stopping.request();
  stopping.request();
  go();
  await stopping.settled();
  assert.equal(stopped, 1, "a run that says stop is not repeated");
});
