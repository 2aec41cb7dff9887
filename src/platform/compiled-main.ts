/** Telling a compiled Bun executable from a source run by its main script's path (no runtime APIs here). */

/**
 * A compiled executable runs its embedded script from Bun's virtual file system: `/$bunfs/root/...`
 * on Linux and macOS, `B:/~BUN/root/...` on Windows (forward slashes, as Bun 1.4 gives it; older
 * Bun wrote backslashes, so both are taken). A source run's main script is a real file.
 */
export function isCompiledMain(main: string): boolean {
  return main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(main);
}
