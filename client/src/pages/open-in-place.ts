/**
 * The app shell opened in the sign-in page's own document once the passphrase is accepted, instead
 * of a navigation to it: the navigation (a new document, its HTML and every module read and run
 * again) was about half a second of a new browser's way from "Open vault" to the first row. The
 * shell's page is read while the person types, its modules are fetched and compiled then (module
 * preloads run nothing), and at sign-in its body takes the place of the sign-in page's and its
 * entry script runs, as the same page's load would run it (docs/decisions/client.md, "Client: the first row
 * on a new browser"). Speculation Rules' prerender would keep two documents apart, but Chromium
 * refuses it while DevTools is attached, so the browser tests could never see it.
 */

/** The shell's page for `path`, read and parsed; null when the path is not the shell's (or offline). */
export type ShellPage = { doc: Document; entry: string };

export function readShellPage(path: string): Promise<ShellPage | null> {
  return fetch(path, { credentials: "same-origin", headers: { accept: "text/html" } })
    .then(async (res) => {
      // A redirect or a refusal is not the shell: that path opens by a navigation, as before.
      if (
        !res.ok ||
        res.redirected ||
        !(res.headers.get("content-type") ?? "").includes("text/html")
      )
        return null;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      const script = doc.querySelector<HTMLScriptElement>(
        'body script[type="module"][src^="/assets/dashboard-"]',
      );
      const entry = script?.getAttribute("src");
      if (!script || !entry || !doc.getElementById("app-main")) return null;
      script.remove();
      // The shell's entry and what the page itself names (the vault section's modules): fetched and
      // compiled now, run at sign-in.
      const preloads = [...doc.querySelectorAll('link[rel="modulepreload"]')];
      for (const l of preloads) l.remove();
      for (const href of [entry, ...preloads.map((l) => l.getAttribute("href"))]) {
        if (
          !href ||
          document.head.querySelector(`link[rel="modulepreload"][href="${CSS.escape(href)}"]`)
        )
          continue;
        const link = document.createElement("link");
        link.rel = "modulepreload";
        link.href = href;
        document.head.append(link);
      }
      return { doc, entry };
    })
    .catch(() => null);
}

/**
 * Puts the shell's page in place of this one at `path` and runs its entry script. The sign-in
 * page's entry in the history is replaced, as its location.replace would have; back then leaves
 * the app as it would from a vault page loaded there, and a reload loads the shell's page itself.
 */
export async function openInPlace(page: ShellPage, path: string): Promise<void> {
  history.replaceState(null, "", path);
  document.title = page.doc.title;
  document.body.replaceWith(document.adoptNode(page.doc.body));
  await import(page.entry);
}
