// compact report: unpack a section when it is opened, open the one the
// address names, filter the bundles. Nothing is loaded from anywhere.
(function () {
  "use strict";
  async function unpack(id) {
    var el = document.getElementById(id);
    if (!el) throw new Error("no packed section " + id);
    var bin = atob(el.textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }
  function fill(d) {
    var id = d.getAttribute("data-z");
    if (!id || d.hasAttribute("data-done")) return;
    d.setAttribute("data-done", "");
    var body = d.querySelector(":scope > .lazy");
    unpack(id).then(function (html) {
      body.innerHTML = html;
      d.setAttribute("data-ready", "");
    }, function (err) {
      body.textContent = "This section could not be unpacked here (" + err.message + "); a browser with DecompressionStream is needed.";
    });
  }
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (d.open && d.hasAttribute && d.hasAttribute("data-z")) fill(d);
  }, true);
  function openHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (el && el.tagName === "DETAILS") {
      el.open = true;
      el.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", openHash);
  openHash();
  var filter = document.getElementById("filter");
  var shown = document.getElementById("shown");
  if (filter) {
    var all = document.querySelectorAll("details.bundle");
    var apply = function () {
      var q = filter.value.trim().toLowerCase(), n = 0;
      for (var i = 0; i < all.length; i++) {
        var hit = !q || all[i].getAttribute("data-name").toLowerCase().indexOf(q) >= 0;
        all[i].hidden = !hit;
        if (hit) n++;
      }
      shown.textContent = q ? n + " of " + all.length + " shown" : all.length + " bundles";
    };
    filter.addEventListener("input", apply);
    apply();
  }
})();
