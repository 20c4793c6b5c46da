/**
 * docs/reference.md as scripts/reference.ts generates it: every tool of the registry has its
 * section, with a row for each of its parameters and result fields; every resource, resource
 * template and prompt is listed. (Whether the committed file is current is `npm run lint`'s
 * check, `tsx scripts/reference.ts --check`.)
 */
import { beforeAll, describe, expect, it } from "@jest/globals";
import { renderReference } from "../../scripts/reference.js";
import { PROMPTS } from "../../src/prompts/index.js";
import { RESOURCES, RESOURCE_TEMPLATES } from "../../src/resources/index.js";
import { TOOLS } from "../../src/tools/index.js";

let reference = "";

beforeAll(async () => {
  reference = await renderReference();
});

/** The text of a tool's section: from its heading to the next heading of its level or above. */
function toolSection(name: string): string {
  const lines = reference.split("\n");
  const start = lines.indexOf(`#### \`${name}\``);
  if (start < 0) return "";
  const end = lines.findIndex((l, i) => i > start && /^#{1,4} /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

/** The first cells of a section's table rows (`| \`name\` | …`). */
const rowNames = (section: string) => [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);

describe("docs/reference.md", () => {
  it.each(TOOLS.map((t) => [t.name, t] as const))(
    "has %s with each of its parameters and result fields",
    (name, tool) => {
      const section = toolSection(name);
      expect(section).not.toBe("");
      expect(section).toContain(`toolset \`${tool.toolset}\``);
      const rows = rowNames(section);
      for (const parameter of Object.keys(tool.parameters.shape)) {
        expect([parameter, rows.includes(parameter)]).toEqual([parameter, true]);
      }
      for (const field of Object.keys(tool.output?.shape ?? {})) {
        expect([field, rows.includes(field)]).toEqual([field, true]);
      }
    },
  );

  it("lists every resource, resource template and prompt", () => {
    const names = [
      ...RESOURCES.map((r) => r.uri),
      ...RESOURCE_TEMPLATES.map((t) => t.uriTemplate),
      ...PROMPTS.map((p) => p.name),
    ];
    for (const name of names)
      expect([name, reference.includes(`\`${name}\``)]).toEqual([name, true]);
    for (const prompt of PROMPTS) {
      const at = reference.indexOf(`### \`${prompt.name}\``);
      expect(at).toBeGreaterThan(0);
      const rows = rowNames(reference.slice(at, reference.indexOf("\n#", at + 1)));
      expect(rows).toEqual(prompt.arguments.map((a) => a.name));
    }
  });
});
