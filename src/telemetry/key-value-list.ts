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

/** A header name HTTP allows (RFC 9110's token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value HTTP allows: visible characters, spaces and tabs, no line break or control. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The headers HTTP can carry; the others are left out and counted under `name`, never shown: a
 * header is often a token, and a mis-typed one (`Authorization: Bearer ...` with no `=`) is a
 * token in its name. Checked here so that no request fails later with the runtime's words about
 * it, which repeat the header.
 */
export function sendableHeaders(headers: Readonly<Record<string, string>>, name: string, warnings: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  let bad = 0;
  for (const [key, value] of Object.entries(headers)) {
    if (TOKEN.test(key) && FIELD_VALUE.test(value)) out[key] = value;
    else bad++;
  }
  if (bad > 0) {
    const headers = `${bad} header${bad === 1 ? "" : "s"}`;
    warnings.push(`${name} has ${headers} HTTP cannot carry (a name with a space or a colon, a line break in a value): left out`);
  }
  return out;
}
