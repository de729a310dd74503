// perflab's one script: a copy button on every code block, and the index's filter of guides
// (by model, hardware, engine or title). Every page reads and works the same without it (the
// filter stays hidden); the Content-Security-Policy allows no other script.
(function () {
  "use strict";
  var input = document.getElementById("guide-filter");
  var list = document.getElementById("guides");
  if (!input || !list) { return; }
  input.parentNode.hidden = false;
  input.addEventListener("input", function () {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var items = list.children;
    for (var i = 0; i < items.length; i++) {
      var text = items[i].getAttribute("data-search") || "";
      items[i].hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
    }
  });
})();
(function () {
  "use strict";
  var main = document.getElementById("content");
  if (!main || !navigator.clipboard) { return; }
  var label = main.getAttribute("data-copy") || "Copy";
  var done = main.getAttribute("data-copied") || "Copied";
  var blocks = main.querySelectorAll("pre > code");
  for (var i = 0; i < blocks.length; i++) {
    (function (code) {
      var pre = code.parentNode;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy";
      button.textContent = label;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(code.textContent).then(function () {
          button.textContent = done;
          setTimeout(function () { button.textContent = label; }, 1500);
        });
      });
      pre.classList.add("has-copy");
      pre.insertBefore(button, code);
    })(blocks[i]);
  }
})();
