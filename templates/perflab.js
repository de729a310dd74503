// perflab's one script: a copy button on every code block. The page reads and works the same
// without it; the Content-Security-Policy allows no other script.
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
