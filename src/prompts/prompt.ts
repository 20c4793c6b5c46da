/**
 * A prompt is a plain object (name, description, arguments, build). `build` turns the client's
 * string arguments into the text of one user message; it throws ValidationError on bad input.
 * It is told which tools this server offers, so it never recommends one that is hidden
 * (read-only mode hides the writing tools, MCP_TOOLSETS whole toolsets). Prompts themselves are
 * offered whatever the toolsets: the query they build is useful anywhere, and `liveNote` says
 * when this server cannot run the steps.
 */
import { ValidationError } from "../errors.js";

export interface PromptArgumentDef {
  name: string;
  description: string;
  required?: boolean;
  enum?: string[];
}

export interface PromptDef {
  name: string;
  description: string;
  arguments: PromptArgumentDef[];
  build: (args: Record<string, string | undefined>, ctx: PromptContext) => string;
}

export interface PromptContext {
  /** Names of the tools this server offers. */
  tools: ReadonlySet<string>;
}

export const definePrompt = (p: PromptDef): PromptDef => p;

/** Empty strings count as absent, as for tools; a required argument must have words. */
export function arg(args: Record<string, string | undefined>, name: string, required: true): string;
export function arg(
  args: Record<string, string | undefined>,
  name: string,
  required?: false,
): string | undefined;
export function arg(
  args: Record<string, string | undefined>,
  name: string,
  required = false,
): string | undefined {
  const value = args[name]?.trim();
  if (value) return value;
  if (required)
    throw new ValidationError(`${name} is required, e.g. a few words or synonyms separated by "|"`);
  return undefined;
}

/**
 * The closing note of a prompt whose steps run the live tools, when this server does not offer
 * them (MCP_TOOLSETS without `live`): the query is still good in PubMed itself.
 */
export function liveNote({ tools }: PromptContext): string[] {
  return tools.has("pubmed_search")
    ? []
    : [
        "",
        "This server does not offer the live PubMed tools these steps name (its MCP_TOOLSETS " +
          "leaves out live): run the query in PubMed itself or through a server that offers them.",
      ];
}
