// The one script of the pages, allowed by its hash in their CSP. A list page the browser
// brings back (its back button, from a search) keeps what was typed into its form since it
// was shown: the box said "deadlock" over the unfiltered list. Reset, the form shows the
// filter the list was made by, as its page was served.
addEventListener("pageshow", (event) => {
  const entry = performance.getEntriesByType("navigation")[0];
  if (event.persisted || (entry && entry.type === "back_forward")) {
    for (const form of document.forms) form.reset();
  }
});
