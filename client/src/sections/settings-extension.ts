/**
 * Settings' "Browser extension": the extension built with this app (scripts/build-client.mjs puts
 * it at /extension.zip) and the steps to load it in a Chromium browser, where a Bitwarden or
 * 1Password user looks for "get the extension". It is not in a web store: loaded unpacked.
 */
export const EXTENSION_MARKUP = `
<section class="card" aria-labelledby="extension-heading">
  <h2 id="extension-heading">Browser extension</h2>
  <p>Fills sign-ins on websites from your vault and saves new ones, in Chrome, Edge, Brave and other Chromium browsers. It opens your vault on its own device, with your master passphrase.</p>
  <p><a id="extension-download" class="button" href="/extension.zip" download="credential-vault-extension.zip">Download the extension (.zip)</a></p>
  <ol id="extension-steps">
    <li>Unzip the download into a folder you keep (the browser loads the extension from there).</li>
    <li>Open <code>chrome://extensions</code> (Edge: <code>edge://extensions</code>) and turn on <strong>Developer mode</strong>.</li>
    <li>Click <strong>Load unpacked</strong> and choose the unzipped folder.</li>
    <li>Open the extension from the toolbar. If its app address is not <code id="extension-origin"></code>, set it in its Settings; then unlock it with your master passphrase.</li>
  </ol>
</section>`;

export function setupExtension(root: HTMLElement) {
  root.querySelector("#extension-origin")!.textContent = location.origin;
}
