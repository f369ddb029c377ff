#!/usr/bin/env node
// Cross-references in comments and docs that can go stale when a document moves or a section is
// renamed: a docs file named with a section title (`docs/decisions/scale.md, "Scale: shards, a
// directory, many databases"`, or unquoted when a title starts the text after the comma), a
// markdown link to a file and its anchor, and a numbered decision (`D20`, whose heading is in
// docs/decisions/numbered.md). Each is resolved against the headings of the named file; anything
// that names a missing file, section or number is printed as file:line and the exit status is 1.
// Only comments are read in code (a string that happens to hold a path is not a reference), and
// all of a markdown file. `--root <dir>` checks another tree (the checker's own test uses one).
//   node scripts/check-references.mjs [--root <dir>]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** What is scanned, from the tree's root: the code and docs people read and cite. */
const ROOTS = [
  "src",
  "durable-objects",
  "core",
  "client",
  "extension",
  "test",
  "bench",
  "scripts",
  "docs",
];
const TOP_FILES = ["README.md", "SECURITY.md", "wrangler.toml"];
const SKIP_DIRS = new Set(["node_modules", "dist", ".wrangler", "out", "test-artifacts", "public"]);
const JS = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;
const HASH = /\.(sh|toml)$/;
/** Where the numbered decisions live; `D<n>` must be one of its headings ("D20. ..."). */
const NUMBERED = "docs/decisions/numbered.md";

/**
 * The comments of a JS/TS source as [offset, text] pairs. Strings, template literals (with their
 * `${}` nesting) and regular expression literals are skipped, so a `//` inside them is no comment.
 */
export function jsComments(src) {
  const out = [];
  const braces = []; // per open `{`: true when it opened a template's `${`
  let i = 0;
  let regexOk = true; // whether a `/` here starts a regular expression
  const templateRest = () => {
    // inside a template literal, up to its end or a `${`
    while (i < src.length) {
      const c = src[i];
      if (c === "\\") i += 2;
      else if (c === "`") {
        i++;
        regexOk = false;
        return;
      } else if (c === "$" && src[i + 1] === "{") {
        i += 2;
        braces.push(true);
        regexOk = true;
        return;
      } else i++;
    }
  };
  while (i < src.length) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      const end = src.indexOf("\n", i);
      const stop = end < 0 ? src.length : end;
      out.push([i, src.slice(i, stop)]);
      i = stop;
    } else if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out.push([i, src.slice(i, stop)]);
      i = stop;
    } else if (c === "'" || c === '"') {
      i++;
      while (i < src.length && src[i] !== c && src[i] !== "\n") i += src[i] === "\\" ? 2 : 1;
      i++;
      regexOk = false;
    } else if (c === "`") {
      i++;
      templateRest();
    } else if (c === "/" && regexOk) {
      i++;
      let inClass = false;
      while (i < src.length && src[i] !== "\n") {
        if (src[i] === "\\") i++;
        else if (src[i] === "[") inClass = true;
        else if (src[i] === "]") inClass = false;
        else if (src[i] === "/" && !inClass) break;
        i++;
      }
      i++;
      regexOk = false;
    } else if (c === "{") {
      braces.push(false);
      regexOk = true;
      i++;
    } else if (c === "}") {
      i++;
      if (braces.pop()) templateRest();
      else regexOk = true;
    } else if (/[\w$]/.test(c)) {
      const m = /^[\w$]+/.exec(src.slice(i, i + 64));
      const word = m[0];
      i += word.length;
      regexOk =
        /^(return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/.test(
          word,
        );
    } else if (c === ")" || c === "]") {
      regexOk = false;
      i++;
    } else {
      if (!/\s/.test(c)) regexOk = true;
      i++;
    }
  }
  return out;
}

/** `#` comments of a shell script or TOML file (a `#` at a line's start or after a space, outside quotes). */
export function hashComments(src) {
  const out = [];
  let offset = 0;
  for (const line of src.split("\n")) {
    let quote = null;
    for (let k = 0; k < line.length; k++) {
      const c = line[k];
      if (quote) {
        if (c === "\\" && quote === '"') k++;
        else if (c === quote) quote = null;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === "#" && (k === 0 || /\s/.test(line[k - 1]))) {
        out.push([offset + k, line.slice(k)]);
        break;
      }
    }
    offset += line.length + 1;
  }
  return out;
}

/**
 * Comments joined into running text: adjacent line comments are one passage, and each line's
 * comment marker and indentation become one space, so a reference broken over lines reads whole.
 * Returns passages of {text, at}, `at[j]` being the source offset of text[j].
 */
function passages(src, comments) {
  const out = [];
  let cur = null;
  let lastLine = -2;
  for (const [offset, raw] of comments) {
    const line = lineOf(src, offset);
    const block = raw.startsWith("/*");
    if (!cur || block || line !== lastLine + 1) {
      cur = { text: "", at: [] };
      out.push(cur);
    } else {
      cur.text += " ";
      cur.at.push(offset);
    }
    // strip markers: `//`, `#`, `/*`, `*/`, and a leading `*` on a block's continuation lines
    let k = 0;
    const lead = /^(\/\/+|#+|\/\*+)\s?/.exec(raw);
    if (lead) k = lead[0].length;
    while (k < raw.length) {
      if (raw[k] === "\n") {
        const cont = /^\n[ \t]*(\*(?!\/))?[ \t]?/.exec(raw.slice(k));
        cur.text += " ";
        cur.at.push(offset + k);
        k += cont[0].length;
        continue;
      }
      if (block && raw.startsWith("*/", k)) break;
      cur.text += raw[k];
      cur.at.push(offset + k);
      k++;
    }
    lastLine = lineOf(src, offset + raw.length);
    if (block) cur = null;
  }
  return out;
}

/** A markdown file as one passage: line breaks and indentation are one space; fenced code is left out. */
function markdownPassage(src) {
  const p = { text: "", at: [] };
  let fenced = false;
  let offset = 0;
  for (const line of src.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) {
      const indent = /^\s*/.exec(line)[0].length;
      for (let k = indent; k < line.length; k++) {
        p.text += line[k];
        p.at.push(offset + k);
      }
    }
    p.text += " ";
    p.at.push(offset + line.length);
    offset += line.length + 1;
  }
  return [p];
}

let startsOf = { src: null, starts: [] };
/** The 1-based line of an offset (the last file's line starts are kept). */
function lineOf(src, offset) {
  if (startsOf.src !== src) {
    const starts = [0];
    for (let k = 0; k < src.length; k++) if (src[k] === "\n") starts.push(k + 1);
    startsOf = { src, starts };
  }
  const { starts } = startsOf;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** A heading's anchor as GitHub writes it. */
export function slug(heading) {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The headings of a markdown file (outside fenced code), as written and as anchors. */
function headingsOf(path) {
  const titles = [];
  let fenced = false;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.+?)\s*#*\s*$/.exec(line);
    if (m) titles.push(m[1]);
  }
  const anchors = new Set();
  const seen = new Map();
  for (const t of titles) {
    const s = slug(t.replace(/`/g, ""));
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    anchors.add(n ? `${s}-${n}` : s);
  }
  return { titles, anchors };
}

/** Files to read under the root, relative to it, in a stable order. */
function listFiles(root) {
  const out = [];
  const walk = (rel) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (statSync(join(root, path)).isDirectory()) {
        if (!SKIP_DIRS.has(name) && !name.startsWith(".")) walk(path);
      } else if (JS.test(name) || /\.(md|sh|toml)$/.test(name)) out.push(path);
    }
  };
  for (const dir of ROOTS) if (existsSync(join(root, dir))) walk(dir);
  for (const f of TOP_FILES) if (existsSync(join(root, f))) out.push(f);
  return out;
}

/** Every broken reference under `root`, as "file:line: what". */
export function checkReferences(root) {
  const problems = [];
  const cache = new Map();
  const headings = (path) => {
    if (!cache.has(path))
      cache.set(path, existsSync(join(root, path)) ? headingsOf(join(root, path)) : null);
    return cache.get(path);
  };
  const numbered = headings(NUMBERED);
  const numbers = new Set(
    (numbered?.titles ?? []).map((t) => /^D(\d+)\b/.exec(t)?.[1]).filter((n) => n !== undefined),
  );
  for (const file of listFiles(root)) {
    const src = readFileSync(join(root, file), "utf8");
    const isMd = file.endsWith(".md");
    const texts = isMd
      ? markdownPassage(src)
      : passages(src, JS.test(file) ? jsComments(src) : HASH.test(file) ? hashComments(src) : []);
    const found = []; // [line, what], printed in line order
    const report = (p, j, what) =>
      found.push([lineOf(src, p.at[Math.min(j, p.at.length - 1)]), what]);
    for (const p of texts) {
      const t = p.text;
      // A docs file named by its path from the root, optionally followed by its section titles.
      for (const m of t.matchAll(
        /(?<![\w./-])((?:docs|bench)\/[\w./-]*\w\.md|README\.md|SECURITY\.md)(?![\w/])/g,
      )) {
        if (isMd && t[m.index - 1] === "(" && t[m.index - 2] === "]") continue; // a link: below
        const target = m[1];
        const h = headings(target);
        if (!h) {
          report(p, m.index, `${target}: no such file`);
          continue;
        }
        let k = m.index + m[0].length;
        if (t.startsWith(', "', k)) {
          // One or more quoted titles: `, "A"`, `, "A", "B"`, `, "A" and "B"`. A title may hold
          // quotes itself, so the longest title followed by a closing quote is taken.
          k += 2;
          for (;;) {
            let best = null;
            for (const title of h.titles)
              if (t.startsWith(`"${title}"`, k) && (!best || title.length > best.length))
                best = title;
            if (!best) {
              const end = t.indexOf('"', k + 1);
              report(p, k, `${target}: no section "${t.slice(k + 1, end < 0 ? k + 80 : end)}"`);
              break;
            }
            k += best.length + 2;
            const next = /^(, | and )"/.exec(t.slice(k, k + 6));
            if (!next) break;
            k += next[1].length;
          }
        } else if (/^, [A-Z]/.test(t.slice(k, k + 3))) {
          // Unquoted: the text after the comma must start with one of the file's titles.
          k += 2;
          if (!h.titles.some((title) => t.startsWith(title, k)))
            report(p, k, `${target}: no section starts "${t.slice(k, k + 60)}"`);
        }
      }
      // Markdown links to a local file, with an anchor checked against its headings.
      if (isMd)
        for (const m of t.matchAll(/\]\(([^)\s]+)\)/g)) {
          const [path, anchor] = m[1].split("#");
          if (/^[a-z]+:/.test(path) || (!path && !anchor)) continue;
          const target = path ? relative(root, resolve(root, dirname(file), path)) : file;
          if (!existsSync(join(root, target))) {
            report(p, m.index, `${m[1]}: no such file`);
            continue;
          }
          if (anchor && target.endsWith(".md") && !headings(target).anchors.has(anchor))
            report(p, m.index, `${m[1]}: no heading with that anchor in ${target}`);
        }
      // Numbered decisions: D1, D20 ...
      for (const m of t.matchAll(/(?<![\w-])D(\d+)(?![\w-])/g))
        if (!numbers.has(m[1]))
          report(p, m.index, `D${m[1]}: no such numbered decision in ${NUMBERED}`);
    }
    found.sort((a, b) => a[0] - b[0]);
    for (const [line, what] of found) problems.push(`${file}:${line}: ${what}`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--root");
  const root =
    at > 0 ? resolve(process.argv[at + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const problems = checkReferences(root);
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(
      `${problems.length} broken reference(s); the files and section titles are in docs/.`,
    );
    process.exit(1);
  }
  console.log("references: every cited file, section and numbered decision exists");
}
