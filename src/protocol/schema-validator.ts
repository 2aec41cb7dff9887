/**
 * The SDK's JSON Schema validator (ajv), built on first use. The SDK's Server and every Client
 * build one by default when constructed, with ajv-formats and the URI parser's regular expressions:
 * about 0.5 MiB at start-up and more for each server opened, for validators the workbench never
 * asks for (elicitation on our Server; tools' outputSchema on a Client, whose calls take our lane).
 */
import { AjvJsonSchemaValidator, type jsonSchemaValidator } from "./sdk.ts";

let shared: AjvJsonSchemaValidator | undefined;

export const lazySchemaValidator: jsonSchemaValidator = {
  getValidator(schema) {
    shared ??= new AjvJsonSchemaValidator();
    return shared.getValidator(schema);
  },
};
