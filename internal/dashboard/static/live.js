// Live updates without a reload: poll the page's main part, rendered and
// escaped by the server, and swap it in.
(function () {
  const main = document.getElementById("main");
  const every = Number(main && main.dataset.refresh);
  if (!every) return;
  const status = document.getElementById("updated");
  async function poll() {
    try {
      const url = new URL(location.href);
      url.searchParams.set("part", "main");
      const resp = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (resp.status === 401) {
        location.assign("/login");
        return;
      }
      // What the reader unfolded stays unfolded.
      const open = [...main.querySelectorAll("details[open][id]")].map((d) => d.id);
      main.innerHTML = await resp.text();
      open.forEach((id) => document.getElementById(id)?.setAttribute("open", ""));
      status.textContent = "updated " + new Date().toLocaleTimeString();
      status.className = resp.ok ? "" : "stale";
    } catch (e) {
      status.textContent = "not updated: " + e.message;
      status.className = "stale";
    }
    setTimeout(poll, every);
  }
  setTimeout(poll, every);
})();
