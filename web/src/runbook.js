// A runbook, as the agent serves it (/runbooks/NAME, Markdown), rendered: one click from an alert.
import { marked } from "marked";
import { apiText } from "./api.js";
import { esc } from "./format.js";

export const runbookView = {
  title: "runbook",
  refreshSeconds: 0,

  async load(state) {
    const name = new URLSearchParams(location.search).get("name") ?? "";
    return { name, text: /^[A-Za-z0-9_]+$/.test(name) ? await apiText(`/runbooks/${name}`) : null };
  },

  draw(root, { name, text }) {
    if (text === null) {
      root.innerHTML = `<p class="error">The agent has no runbook for “${esc(name)}”.</p>`;
      return;
    }
    // The runbooks are the operator's own files (--runbook-dir) or gpuwatch's: trusted Markdown.
    root.innerHTML = `<p><a href="/?view=oncall">← on-call</a> · <a href="/runbooks/${esc(name)}">as Markdown</a></p>
      <article class="runbook">${marked.parse(text)}</article>`;
  },
};
