/**
 * completion/complete: prompt arguments with a fixed set of values (e.g. studyType), and the
 * {pmid} of resource://pubmed/paper/{pmid} from the PMIDs in the local corpus. Unknown prompts,
 * templates and arguments are -32602 naming what exists (spec: server utilities, completion).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import { log } from "../log.js";
import type { PromptDef } from "../prompts/prompt.js";
import type { ResourceTemplateDef } from "../resources/resource.js";
import { invalidParams, isPlainObject } from "./errors.js";

/** The spec's ceiling on values in one completion result. */
export const MAX_COMPLETIONS = 100;

interface Completion {
  values: string[];
  hasMore: boolean;
}

const CompleteRequest = z.object({
  method: z.literal("completion/complete"),
  params: z.looseObject({ ref: z.unknown(), argument: z.unknown() }),
});

function bounded(values: string[]): Completion {
  return { values: values.slice(0, MAX_COMPLETIONS), hasMore: values.length > MAX_COMPLETIONS };
}

async function completeTemplate(
  template: ResourceTemplateDef,
  name: string,
  value: string,
): Promise<Completion> {
  if (!template.complete) return bounded([]);
  try {
    return bounded(await template.complete(name, value, MAX_COMPLETIONS + 1));
  } catch (err) {
    // A completion is a hint: an unusable store offers none rather than failing the client's UI.
    log.warn("completion unavailable", {
      template: template.uriTemplate,
      error: err instanceof Error ? err.message : String(err),
    });
    return bounded([]);
  }
}

function completePrompt(prompt: PromptDef, name: string, value: string): Completion {
  const arg = prompt.arguments.find((a) => a.name === name);
  if (!arg) {
    throw invalidParams(
      `Prompt ${prompt.name} has no argument ${name}. Its arguments: ${prompt.arguments.map((a) => a.name).join(", ")}.`,
    );
  }
  const typed = value.toLowerCase();
  return bounded((arg.enum ?? []).filter((v) => v.toLowerCase().startsWith(typed)));
}

export function installCompletion(
  server: Server,
  prompts: readonly PromptDef[],
  templates: readonly ResourceTemplateDef[],
): void {
  server.setRequestHandler(CompleteRequest, async ({ params }) => {
    const { ref, argument } = params;
    if (!isPlainObject(argument) || typeof argument.name !== "string") {
      throw invalidParams(
        'completion/complete needs params.argument {"name", "value"}: the argument being typed.',
      );
    }
    const value = typeof argument.value === "string" ? argument.value : "";
    if (isPlainObject(ref) && ref.type === "ref/prompt") {
      const prompt = prompts.find((p) => p.name === ref.name);
      if (!prompt) {
        throw invalidParams(
          `Unknown prompt ${String(ref.name)}. Available prompts: ${prompts.map((p) => p.name).join(", ")}.`,
        );
      }
      return { completion: completePrompt(prompt, argument.name, value) };
    }
    if (isPlainObject(ref) && ref.type === "ref/resource") {
      const template = templates.find((t) => t.uriTemplate === ref.uri);
      if (!template) {
        throw invalidParams(
          `Unknown resource template ${String(ref.uri)}. Resource templates: ${templates.map((t) => t.uriTemplate).join(", ")}.`,
        );
      }
      if (!template.arguments.some((a) => a.name === argument.name)) {
        throw invalidParams(
          `Resource template ${template.uriTemplate} has no argument ${argument.name}. Its arguments: ${template.arguments.map((a) => a.name).join(", ")}.`,
        );
      }
      return { completion: await completeTemplate(template, argument.name, value) };
    }
    throw invalidParams(
      'completion/complete needs params.ref {"type": "ref/prompt", "name"} or {"type": "ref/resource", "uri"}.',
    );
  });
}
