/**
 * DOM helpers the web app and the extension's popup both use (text through textContent only, a new
 * link's options). A command line does not import this part.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./link-options";
export * from "./ui";
