/**
 * The stand-in `bcryptprimitives.dll` that Wine 8 lacks, written byte by byte (no toolchain).
 * Every Bun executable for Windows imports `bcryptprimitives!ProcessPrng`; without the DLL it does
 * not start under Wine 8 (exit code 53, nothing printed). The stand-in is a data-only PE32+ DLL of
 * 1 KiB whose one export forwards to `advapi32.SystemFunction036` (RtlGenRandom), which takes the
 * same arguments (buffer in rcx, length in rdx) and fills the buffer with random bytes.
 */

const FILE_ALIGNMENT = 0x200;
const SECTION_ALIGNMENT = 0x1000;
/** Where the one section (the export directory) sits in memory, and in the file. */
const SECTION_RVA = 0x1000;
const SECTION_OFFSET = 0x200;
const PE_OFFSET = 0x40;
const OPTIONAL_HEADER_SIZE = 240;

const DLL_NAME = "bcryptprimitives.dll";
const EXPORT_NAME = "ProcessPrng";
const FORWARD_TO = "advapi32.SystemFunction036";

/** The export directory and what it points at, laid out from the start of the section. */
function exportSection(): { bytes: Uint8Array; size: number } {
  const directorySize = 40;
  const functions = directorySize; // one RVA
  const names = functions + 4; // one RVA
  const ordinals = names + 4; // one 16-bit index
  const dllName = ordinals + 2;
  const exportName = dllName + DLL_NAME.length + 1;
  const forward = exportName + EXPORT_NAME.length + 1;
  const size = forward + FORWARD_TO.length + 1;
  const bytes = new Uint8Array(FILE_ALIGNMENT);
  const view = new DataView(bytes.buffer);
  const rva = (offset: number) => SECTION_RVA + offset;
  view.setUint32(12, rva(dllName), true); // Name
  view.setUint32(16, 1, true); // Base (ordinals start at 1)
  view.setUint32(20, 1, true); // NumberOfFunctions
  view.setUint32(24, 1, true); // NumberOfNames
  view.setUint32(28, rva(functions), true); // AddressOfFunctions
  view.setUint32(32, rva(names), true); // AddressOfNames
  view.setUint32(36, rva(ordinals), true); // AddressOfNameOrdinals
  // An address inside the export directory's own range makes the export a forwarder: the loader
  // reads it as "dll.function" and resolves that instead.
  view.setUint32(functions, rva(forward), true);
  view.setUint32(names, rva(exportName), true);
  view.setUint16(ordinals, 0, true);
  const ascii = (offset: number, text: string) => bytes.set(new TextEncoder().encode(text), offset);
  ascii(dllName, DLL_NAME);
  ascii(exportName, EXPORT_NAME);
  ascii(forward, FORWARD_TO);
  return { bytes, size };
}

/** The whole DLL: headers in the first 0x200 bytes, the export section in the next. */
export function standInBcryptPrimitives(): Uint8Array {
  const section = exportSection();
  const file = new Uint8Array(SECTION_OFFSET + section.bytes.length);
  const view = new DataView(file.buffer);
  file.set([0x4d, 0x5a], 0); // "MZ"
  view.setUint32(0x3c, PE_OFFSET, true); // e_lfanew
  file.set([0x50, 0x45, 0, 0], PE_OFFSET); // "PE\0\0"
  const coff = PE_OFFSET + 4;
  view.setUint16(coff, 0x8664, true); // Machine: x86-64
  view.setUint16(coff + 2, 1, true); // NumberOfSections
  view.setUint16(coff + 16, OPTIONAL_HEADER_SIZE, true);
  view.setUint16(coff + 18, 0x2000 | 0x0020 | 0x0002, true); // DLL, large addresses, executable image
  const optional = coff + 20;
  view.setUint16(optional, 0x20b, true); // PE32+
  view.setUint32(optional + 8, FILE_ALIGNMENT, true); // SizeOfInitializedData
  view.setUint32(optional + 20, SECTION_RVA, true); // BaseOfCode
  view.setBigUint64(optional + 24, 0x1_8000_0000n, true); // ImageBase
  view.setUint32(optional + 32, SECTION_ALIGNMENT, true);
  view.setUint32(optional + 36, FILE_ALIGNMENT, true);
  view.setUint16(optional + 40, 6, true); // MajorOperatingSystemVersion
  view.setUint16(optional + 48, 6, true); // MajorSubsystemVersion
  view.setUint32(optional + 56, SECTION_RVA + SECTION_ALIGNMENT, true); // SizeOfImage
  view.setUint32(optional + 60, SECTION_OFFSET, true); // SizeOfHeaders
  view.setUint16(optional + 68, 3, true); // Subsystem: console
  view.setUint16(optional + 70, 0x0100 | 0x0040 | 0x0020, true); // NX, relocatable, high-entropy addresses
  view.setBigUint64(optional + 72, 0x10_0000n, true); // SizeOfStackReserve
  view.setBigUint64(optional + 80, 0x1000n, true); // SizeOfStackCommit
  view.setBigUint64(optional + 88, 0x10_0000n, true); // SizeOfHeapReserve
  view.setBigUint64(optional + 96, 0x1000n, true); // SizeOfHeapCommit
  view.setUint32(optional + 108, 16, true); // NumberOfRvaAndSizes
  view.setUint32(optional + 112, SECTION_RVA, true); // Export directory: where
  view.setUint32(optional + 116, section.size, true); // and how long
  const header = optional + OPTIONAL_HEADER_SIZE;
  file.set(new TextEncoder().encode(".edata"), header);
  view.setUint32(header + 8, section.size, true); // VirtualSize
  view.setUint32(header + 12, SECTION_RVA, true); // VirtualAddress
  view.setUint32(header + 16, section.bytes.length, true); // SizeOfRawData
  view.setUint32(header + 20, SECTION_OFFSET, true); // PointerToRawData
  view.setUint32(header + 36, 0x4000_0040, true); // initialized data, readable
  file.set(section.bytes, SECTION_OFFSET);
  return file;
}
