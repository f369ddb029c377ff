import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { checkReferences } from "../../scripts/check-references.mjs";

const check = checkReferences as (root: string) => string[];

/** A small tree of its own: each file's lines, written under a fresh directory. */
function tree(files: Record<string, string[]>): string {
  const root = mkdtempSync(join(tmpdir(), "check-references-"));
  for (const [path, lines] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), lines.join("\n"));
  }
  return root;
}

const docs = {
  "docs/guide.md": [
    "# Guide",
    "",
    "## Setting up: the first run",
    "Text.",
    "",
    '## "Confirm it\'s you" in the app',
    "See [the numbers](decisions/numbered.md#d2-two).",
  ],
  "docs/decisions/numbered.md": ["# Numbered", "", "## D1. One", "", "## D2. Two"],
};

describe("the cross-reference check (scripts/check-references.mjs)", () => {
  it("passes on the repository as committed", () => {
    expect(check(".")).toEqual([]);
  });

  it("resolves good references in comments and docs, and names each bad one by file and line", () => {
    const root = tree({
      ...docs,
      "docs/links.md": [
        "[Good](guide.md#setting-up-the-first-run), [bad](decisions/numbered.md#d9-nine).",
      ],
      "src/a.ts": [
        '// Good: docs/guide.md, "Setting up: the first run", and D2.',
        "/**",
        ' * Good, broken over lines: (docs/guide.md, "Setting up: the',
        ' * first run", ""Confirm it\'s you" in the app"), and unquoted: docs/guide.md, Setting up: the',
        " * first run, item 3.",
        " */",
        'const s = "docs/guide.md, \\"Not a comment\\" D9"; // a string is not a reference',
        'const r = /\\/\\/ docs\\/guide.md, "Nope"/;',
        'const t = `${s} // docs/guide.md, "Nor this"`;',
        '// Bad: docs/guide.md, "Setting up"',
        "/* Bad: docs/gone.md */",
        "// Bad: D7",
        "// Bad, unquoted: docs/guide.md, Tearing down.",
      ],
      "scripts/run.sh": [
        'echo "# docs/guide.md, \\"Quoted, no comment\\""',
        '# docs/guide.md, "Guide"',
        '# docs/guide.md, "Gide"',
      ],
      "README.md": [
        "# Readme",
        "",
        'Good: docs/guide.md, "Guide". Bad: docs/guide.md, "Setting up: a later run".',
      ],
    });
    expect(check(root)).toEqual([
      'src/a.ts:10: docs/guide.md: no section "Setting up"',
      "src/a.ts:11: docs/gone.md: no such file",
      "src/a.ts:12: D7: no such numbered decision in docs/decisions/numbered.md",
      'src/a.ts:13: docs/guide.md: no section starts "Tearing down."',
      'scripts/run.sh:3: docs/guide.md: no section "Gide"',
      "docs/links.md:1: decisions/numbered.md#d9-nine: no heading with that anchor in docs/decisions/numbered.md",
      'README.md:3: docs/guide.md: no section "Setting up: a later run"',
    ]);
  });

  it("fails, exit 1 with the list, when run as checks.sh runs it; passes once the heading is back", () => {
    const broken = tree({
      ...docs,
      "src/b.ts": ['// docs/guide.md, "Setting up: the first walk"'],
    });
    const r = spawnSync(process.execPath, ["scripts/check-references.mjs", "--root", broken], {
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'src/b.ts:1: docs/guide.md: no section "Setting up: the first walk"',
    );
    const fixed = tree({ ...docs, "src/b.ts": ['// docs/guide.md, "Setting up: the first run"'] });
    const ok = spawnSync(process.execPath, ["scripts/check-references.mjs", "--root", fixed], {
      encoding: "utf8",
    });
    expect(ok.status, ok.stderr).toBe(0);
  });
});
