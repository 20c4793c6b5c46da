/**
 * The publishing metadata: manifest.json (MCP Bundle) against the @anthropic-ai/mcpb validator and
 * its published JSON schema; server.json (MCP Registry) against what the registry documents, and
 * against the registry's published schema when ../shared/specs/server.schema.json holds a copy
 * (no npm package ships it, and it is not copied into this repository); both against the facts
 * they repeat: package.json's name, version and engines, src/config.ts's variables, src/tools;
 * package.json's install-script policy against the lockfile.
 */
import { describe, expect, it, jest } from "@jest/globals";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { validateManifest } from "@anthropic-ai/mcpb/node";
import { VERSIONED_MANIFEST_SCHEMAS } from "@anthropic-ai/mcpb/schemas";
import { z } from "zod";
import { manifestTools } from "../../scripts/metadata.js";
import { TOOLS } from "../../src/tools/index.js";
import { REPO_DIR, SHARED_DIR } from "../helpers/shared.js";

const read = (name: string) => readFileSync(join(REPO_DIR, name), "utf8");
const json = <T>(name: string) => JSON.parse(read(name)) as T;

interface Manifest {
  manifest_version: keyof typeof VERSIONED_MANIFEST_SCHEMAS;
  name: string;
  version: string;
  server: {
    entry_point: string;
    mcp_config: { command: string; args: string[]; env: Record<string, string> };
  };
  tools: { name: string; description: string }[];
  compatibility: { runtimes: { node: string } };
  user_config: Record<string, { required?: boolean; default?: unknown; sensitive?: boolean }>;
}
interface EnvInput {
  name: string;
  isSecret?: boolean;
  default?: string;
  choices?: string[];
}
interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  packages: { identifier: string; version: string; environmentVariables: EnvInput[] }[];
}

const pkg = json<{
  name: string;
  version: string;
  mcpName: string;
  engines: { node: string };
  bin: Record<string, string>;
}>("package.json");
const manifest = json<Manifest>("manifest.json");
const server = json<ServerJson>("server.json");

/** Every variable src/config.ts reads: the keys of its environment schema. */
const CONFIG_VARS = new Set(
  [...read("src/config.ts").matchAll(/^ {2}([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+):/gm)].map((m) => m[1]!),
);
const SECRET = /(_KEY|_TOKEN|_SECRET|^DATABASE_URL)$/;

describe("manifest.json (MCP Bundle)", () => {
  it("passes @anthropic-ai/mcpb's validator and its published JSON schema", () => {
    const log = jest.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const result = VERSIONED_MANIFEST_SCHEMAS[manifest.manifest_version].safeParse(manifest);
      expect(result.error?.issues ?? []).toEqual([]);
      expect(validateManifest(join(REPO_DIR, "manifest.json"))).toBe(true);
    } finally {
      log.mockRestore();
    }
    const require = createRequire(import.meta.url);
    const schemaFile = require.resolve(
      `@anthropic-ai/mcpb/mcpb-manifest-v${manifest.manifest_version}.schema.json`,
    );
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, "utf8")) as object);
    validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
  });

  it("repeats package.json and src/tools exactly", () => {
    expect([manifest.name, manifest.version]).toEqual([pkg.name, pkg.version]);
    // On a difference: `npm run metadata` rewrites the derived fields.
    expect(manifest.tools).toEqual(manifestTools(TOOLS));
    expect(manifest.server.entry_point).toBe(pkg.bin["pubmed-mcp"]);
    expect(manifest.server.mcp_config.args).toEqual([`\${__dirname}/${pkg.bin["pubmed-mcp"]}`]);
    expect(manifest.compatibility.runtimes.node).toBe(`${pkg.engines.node}.0`);
  });

  it("passes only configuration variables, each from a user_config option that has a value", () => {
    const env = manifest.server.mcp_config.env;
    for (const [name, value] of Object.entries(env)) {
      const option = /^\$\{user_config\.(\w+)\}$/.exec(value)?.[1];
      const entry = option === undefined ? undefined : manifest.user_config[option];
      // Claude Desktop passes "${user_config.x}" literally when an optional option has no value
      // (modelcontextprotocol/mcpb#250); an empty default reaches the server as "", i.e. unset.
      expect([
        name,
        CONFIG_VARS.has(name),
        entry?.required === true || entry?.default !== undefined,
      ]).toEqual([name, true, true]);
      expect([name, entry?.sensitive === true]).toEqual([name, SECRET.test(name)]);
    }
  });
});

/** What the MCP Registry documents for server.json (generic format + official-registry rules). */
const RegistryServer = z.object({
  $schema: z
    .string()
    .regex(
      /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/,
    ),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  title: z.string().min(1).max(100).optional(),
  description: z.string().min(1).max(100),
  version: z
    .string()
    .max(255)
    .regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/),
  repository: z.object({ url: z.url(), source: z.literal("github") }),
  websiteUrl: z.url().optional(),
  packages: z
    .array(
      z.strictObject({
        registryType: z.literal("npm"),
        registryBaseUrl: z.literal("https://registry.npmjs.org"),
        identifier: z.string().min(1),
        version: z.string().regex(/^\d+\.\d+\.\d+/),
        runtimeHint: z.literal("npx"),
        transport: z.strictObject({ type: z.literal("stdio") }),
        environmentVariables: z.array(
          z.strictObject({
            name: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
            description: z.string().min(1),
            isRequired: z.boolean(),
            isSecret: z.boolean().optional(),
            format: z.enum(["string", "number", "boolean", "filepath"]).optional(),
            default: z.string().optional(),
            placeholder: z.string().optional(),
            choices: z.array(z.string()).optional(),
          }),
        ),
      }),
    )
    .length(1),
});

describe("server.json (MCP Registry)", () => {
  it("has the documented shape", () => {
    const result = RegistryServer.safeParse(server);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  const published = join(SHARED_DIR, "specs", "server.schema.json");
  (existsSync(published) ? it : it.skip)("validates against the published schema", () => {
    const schema = JSON.parse(readFileSync(published, "utf8")) as { $schema?: string };
    const ajv = schema.$schema?.includes("2020-12")
      ? new Ajv2020({ allErrors: true, strict: false })
      : new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    validate(server);
    expect(validate.errors ?? []).toEqual([]);
  });
  if (!existsSync(published))
    process.stderr.write(
      `note: ${published} is absent (no npm package ships the registry's schema): server.json is ` +
        "checked against the registry's documented rules only\n",
    );

  it("names the npm package, its mcpName and version, and real configuration variables", () => {
    const [npm] = server.packages;
    expect([server.name, npm!.identifier]).toEqual([pkg.mcpName, pkg.name]);
    expect([server.version, npm!.version]).toEqual([pkg.version, pkg.version]);
    for (const v of npm!.environmentVariables) {
      expect([v.name, CONFIG_VARS.has(v.name), v.isSecret === true]).toEqual([
        v.name,
        true,
        SECRET.test(v.name),
      ]);
      if (v.default !== undefined && v.choices) expect(v.choices).toContain(v.default);
    }
  });
});

describe(".env.example", () => {
  it("lists every configuration variable, commented out, and nothing else", () => {
    const listed = [...read(".env.example").matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    expect(read(".env.example")).not.toMatch(/^[A-Z][A-Z0-9_]*=/m); // nothing set by default
    expect([...new Set(listed)].sort()).toEqual([...CONFIG_VARS].sort());
    expect(listed.length).toBe(new Set(listed).size);
  });
});

describe("docs/configuration.md", () => {
  it("has a row for every configuration variable, and names no other", () => {
    const rows = read("docs/configuration.md")
      .split("\n")
      .filter((line) => line.startsWith("| `"))
      .map((line) => line.split("|")[1] ?? "");
    const named = rows.flatMap((cell) =>
      [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!),
    );
    expect([...new Set(named)].sort()).toEqual([...CONFIG_VARS].sort());
  });
});

describe("package.json's allowScripts (npm 11.19 and later run only the install scripts it allows)", () => {
  it("decides every locked package that has one, names no other, and allows usearch's only", () => {
    const lock = json<{ packages: Record<string, { hasInstallScript?: boolean }> }>(
      "package-lock.json",
    );
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript === true)
      .map(([path]) => path.replace(/^.*node_modules\//, ""));
    const { allowScripts } = json<{ allowScripts: Record<string, boolean> }>("package.json");
    expect(Object.keys(allowScripts).sort()).toEqual([...new Set(withScripts)].sort());
    // node-gyp-build: usearch's prebuilt module, or a build where none fits the platform.
    const allowed = Object.entries(allowScripts).filter(([, ok]) => ok);
    expect(allowed.map(([name]) => name)).toEqual(["usearch"]);
  });
});
