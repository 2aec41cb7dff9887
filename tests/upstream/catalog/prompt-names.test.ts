/** The names prompts get behind the workbench: origin in the name, safe characters, 64 at most, no collision. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_PROMPT_NAME, namePrompts, promptName } from "../../../src/upstream/catalog/prompt-names.ts";

test("prompt names: toolbox__server__prompt, the form Claude Code and VS Code take as a command", () => {
  assert.equal(promptName({ toolbox: "dev", server: "github", prompt: "summarize_pr" }), "dev__github__summarize_pr");
  assert.equal(promptName({ toolbox: "my box", server: "git.hub", prompt: "a/b:c" }), "my_box__git_hub__a_b_c");
});

test("prompt names: a name over 64 characters is cut and ends in a hash of its origin", () => {
  const long = promptName({ toolbox: "toolbox", server: "server", prompt: "p".repeat(80) });
  const other = promptName({ toolbox: "toolbox", server: "server", prompt: `${"p".repeat(79)}q` });
  assert.equal(long.length, MAX_PROMPT_NAME);
  assert.match(long, /^toolbox__server__p+_[0-9a-f]{8}$/);
  assert.notEqual(long, other);
});

test("prompt names: the same prompt on two servers gets two names; names made equal by replaced characters get a suffix", () => {
  const named = namePrompts([
    { toolbox: "dev", server: "a", prompt: "review" },
    { toolbox: "dev", server: "b", prompt: "review" },
    { toolbox: "ops", server: "a", prompt: "x.y" },
    { toolbox: "ops", server: "a", prompt: "x/y" },
  ]);
  assert.deepEqual([...named.keys()], ["dev__a__review", "dev__b__review", "ops__a__x_y", "ops__a__x_y_2"]);
  assert.equal(named.get("ops__a__x_y_2")!.prompt, "x/y", "the first in configuration order keeps the plain name");
});
