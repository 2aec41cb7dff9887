/**
 * The `key=value,key2=value2` lists of OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES:
 * blanks around each part trimmed, values percent-decoded; an entry without a key or `=` is
 * reported by the variable's name (never its value: a header can be a token) and left out.
 */
export function parseKeyValueList(text: string | undefined, name: string, warnings: string[]): Record<string, string> {
  const entries: Record<string, string> = Object.create(null);
  if (text === undefined) return {};
  let bad = 0;
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const equals = part.indexOf("=");
    const key = equals > 0 ? part.slice(0, equals).trim() : "";
    if (key === "") {
      bad++;
      continue;
    }
    entries[key] = decode(part.slice(equals + 1).trim());
  }
  if (bad > 0) warnings.push(`${name} has ${bad} entr${bad === 1 ? "y" : "ies"} not of the form key=value: left out`);
  return { ...entries };
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
