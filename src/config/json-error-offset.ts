/**
 * Finds where strict JSON (RFC 8259) first goes wrong, for error messages only:
 * JSON.parse does the real parsing. Iterative, so deep nesting cannot overflow
 * the stack.
 *
 * Returns the offset of the first invalid character, `text.length` when the
 * text ends too early, or undefined when the text is valid JSON.
 */
export function findJsonErrorOffset(text: string): number | undefined {
  try {
    new JsonScanner(text).scan();
    return undefined;
  } catch (error) {
    if (error instanceof ScanError) return error.offset;
    throw error;
  }
}

class ScanError {
  readonly offset: number;
  constructor(offset: number) {
    this.offset = offset;
  }
}

const ESCAPABLE = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

class JsonScanner {
  private offset = 0;
  /** Open containers, innermost last: "{" or "[". */
  private readonly open: string[] = [];
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  scan(): void {
    // What comes next: a value, an object member, or what may follow a value.
    let expecting: "value" | "member" | "next" = "value";
    for (;;) {
      this.skipWhitespace();
      if (expecting === "value") expecting = this.value();
      else if (expecting === "member") expecting = this.memberName();
      else if (this.open.length === 0) {
        if (this.offset < this.text.length) this.fail();
        return;
      } else expecting = this.afterValue();
    }
  }

  /** Reads a scalar, or opens a container and says what its contents start with. */
  private value(): "value" | "member" | "next" {
    const char = this.text[this.offset];
    if (char === "{" || char === "[") {
      this.offset++;
      this.skipWhitespace();
      if (this.text[this.offset] === (char === "{" ? "}" : "]")) {
        this.offset++;
        return "next";
      }
      this.open.push(char);
      return char === "{" ? "member" : "value";
    }
    if (char === '"') this.string();
    else if (char === "-" || isDigit(char)) this.number();
    else if (char === "t") this.literal("true");
    else if (char === "f") this.literal("false");
    else if (char === "n") this.literal("null");
    else this.fail();
    return "next";
  }

  /** Reads `"key":` inside an object. */
  private memberName(): "value" {
    if (this.text[this.offset] !== '"') this.fail();
    this.string();
    this.skipWhitespace();
    if (this.text[this.offset] !== ":") this.fail();
    this.offset++;
    return "value";
  }

  /** Reads a comma or the close of the innermost container. */
  private afterValue(): "value" | "member" | "next" {
    const container = this.open.at(-1);
    const char = this.text[this.offset];
    if (char === ",") {
      this.offset++;
      return container === "{" ? "member" : "value";
    }
    if (char !== (container === "{" ? "}" : "]")) this.fail();
    this.offset++;
    this.open.pop();
    return "next";
  }

  private string(): void {
    this.offset++; // opening quote
    for (;;) {
      const char = this.text[this.offset];
      if (char === undefined || char < " ") this.fail();
      this.offset++;
      if (char === '"') return;
      if (char === "\\") this.escape();
    }
  }

  private escape(): void {
    const char = this.text[this.offset];
    if (char === "u") {
      this.offset++;
      for (let i = 0; i < 4; i++) {
        if (!/^[0-9A-Fa-f]$/.test(this.text[this.offset] ?? "")) this.fail();
        this.offset++;
      }
    } else if (char !== undefined && ESCAPABLE.has(char)) {
      this.offset++;
    } else {
      this.fail();
    }
  }

  private number(): void {
    if (this.text[this.offset] === "-") this.offset++;
    if (this.text[this.offset] === "0") this.offset++;
    else this.digits();
    if (this.text[this.offset] === ".") {
      this.offset++;
      this.digits();
    }
    if (this.text[this.offset] === "e" || this.text[this.offset] === "E") {
      this.offset++;
      if (this.text[this.offset] === "+" || this.text[this.offset] === "-") this.offset++;
      this.digits();
    }
  }

  /** One or more digits. */
  private digits(): void {
    if (!isDigit(this.text[this.offset])) this.fail();
    while (isDigit(this.text[this.offset])) this.offset++;
  }

  private literal(word: string): void {
    for (const expected of word) {
      if (this.text[this.offset] !== expected) this.fail();
      this.offset++;
    }
  }

  private skipWhitespace(): void {
    while (" \t\n\r".includes(this.text[this.offset] ?? "x")) this.offset++;
  }

  private fail(): never {
    throw new ScanError(this.offset);
  }
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= "0" && char <= "9";
}
