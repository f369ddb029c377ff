import { describe, expect, it } from "vitest";
import { parseImport } from "../../core/importers/read";

describe("client importers: hostile files", () => {
  it("a __proto__ key in JSON does not pollute objects", () => {
    const text =
      '[{"__proto__": {"polluted": true}, "name": "x", "username": "u", "password": "p", "constructor": {"prototype": {"bad": 1}}}]';
    const out = parseImport(text, "generic");
    expect(out.credentials).toHaveLength(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).bad).toBeUndefined();
    expect(Object.keys(out.credentials[0]).sort()).toEqual([
      "changes",
      "favorite",
      "fields",
      "folder",
      "history",
      "kind",
      "name",
      "notes",
      "password",
      "tags",
      "totp",
      "url",
      "urls",
      "username",
      "website",
    ]);
  });

  it("a CSV header named __proto__ stays plain data", () => {
    const out = parseImport(
      "name,url,username,password,__proto__\nA,https://a.example,u,p,evil\n",
      "generic",
    );
    expect(out.credentials[0].name).toBe("A");
    expect(({} as Record<string, unknown>).evil).toBeUndefined();
  });

  it("script and data URLs never become a website; spreadsheet formulas stay inert text", () => {
    const out = parseImport(
      'name,url,username,password\nX,javascript:alert(1),u,p\nY,"data:text/html,<script>",u,p\nZ,https://z.example,=HYPERLINK("http://evil"),p\n',
      "generic",
    );
    expect(out.credentials.map((c) => c.website)).toEqual([null, null, "z.example"]);
    expect(out.credentials[2].username).toBe('=HYPERLINK("http://evil")');
  });

  it("parses a 20,000-row file with quoted fields completely", () => {
    const rows = Array.from(
      { length: 20_000 },
      (_, i) => `Site ${i},https://s${i}.example.com,user${i},"pa""ss,${i}"`,
    );
    const out = parseImport(`name,url,username,password\n${rows.join("\n")}\n`, "generic");
    expect(out.credentials).toHaveLength(20_000);
    expect(out.credentials[19_999]).toMatchObject({
      website: "s19999.example.com",
      password: 'pa"ss,19999',
    });
  });
});
