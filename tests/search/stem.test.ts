/** The Porter stemmer: the published algorithm's examples, and short or non-letter words kept. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { stem } from "../../src/search/stem.ts";

test("stem: the algorithm's own examples", () => {
  const cases: Record<string, string> = {
    caresses: "caress", ponies: "poni", cats: "cat", feed: "feed", agreed: "agre", plastered: "plaster",
    motoring: "motor", sing: "sing", conflated: "conflat", troubled: "troubl", sized: "size", hopping: "hop",
    falling: "fall", filing: "file", happy: "happi", relational: "relat", conditional: "condit",
    rational: "ration", digitizer: "digit", operator: "oper", hopefulness: "hope", formalize: "formal",
    electrical: "electr", adjustment: "adjust", adoption: "adopt", controlling: "control", rolling: "roll",
    generalization: "gener", searching: "search", searches: "search", searched: "search", directories: "directori",
    directory: "directori",
  };
  for (const [word, expected] of Object.entries(cases)) assert.equal(stem(word), expected, word);
});

test("stem: words of one or two letters, numbers and mixed words stay as they are", () => {
  for (const word of ["a", "is", "42", "v2", "utf8", "日本"]) assert.equal(stem(word), word);
});
