/**
 * Imported first by src/main.ts, before the SDK builds its schemas. zod compiles a fast parser for
 * each object schema with `new Function` on its first parse (and probes `new Function` once): that
 * pages the JavaScript parser and compiler into memory (about 1 MiB at start-up, see
 * docs/benchmarks.md, figure 6) for messages that take a few microseconds to check either way.
 * Calls do not go through zod beyond the use_tool arguments (see src/upstream/tool-call-intake.ts).
 */
import * as z from "zod";

z.config({ jitless: true });
