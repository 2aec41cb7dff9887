/** TypeScript's compiler on one file in memory: the problems it finds (strict, the standard library only). */
import ts from "typescript";

export function compileProblems(source: string): string[] {
  const name = "/virtual/script.ts";
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ["lib.es2022.d.ts"], types: [] };
  const host = ts.createCompilerHost(options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    file === name ? ts.createSourceFile(file, source, language) : original(file, language, ...rest);
  const program = ts.createProgram([name], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}
