// Keyboard shortcuts for the review queue (/review). The page works without
// this script: every item has its own buttons, each labelled with its key.
// The keys only move a selection between items and press buttons:
//   j / k  next / previous item
//   m      merge (the selected item's button with data-shortcut="m")
//   a      accept (data-shortcut="a")
//   d      dismiss (data-shortcut="d"); the message that follows offers Undo
//   u      undo the last dismissal (the message's Undo button), or in the
//          list of dismissed items restore the selected one
//   ?      focus the shortcuts panel
//   Esc    leave a text field and return to its item
// It also lets htmx swap in the 409 and 422 answers of an item's form, which
// carry the item re-rendered with its errors, and closes the message.
(function () {
  "use strict";

  var list = document.getElementById("review-items");
  if (!list) {
    return;
  }
  var current = -1;

  function items() {
    return Array.prototype.slice.call(list.querySelectorAll("[data-review-item]"));
  }

  function select(index, focus) {
    var all = items();
    if (all.length === 0) {
      current = -1;
      return;
    }
    index = Math.max(0, Math.min(index, all.length - 1));
    all.forEach(function (el, i) {
      if (i === index) {
        el.setAttribute("aria-current", "true");
      } else {
        el.removeAttribute("aria-current");
      }
    });
    current = index;
    if (focus) {
      all[index].focus({ preventScroll: true });
      all[index].scrollIntoView({ block: "nearest" });
    }
  }

  function typing(el) {
    return el && el.closest && el.closest("input, textarea, select, [contenteditable='true']");
  }

  // Clicking or tabbing into an item selects it.
  list.addEventListener("focusin", function (e) {
    var item = e.target.closest("[data-review-item]");
    if (item) {
      var i = items().indexOf(item);
      if (i !== current) {
        select(i, false);
      }
    }
  });

  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) {
      return;
    }
    if (typing(e.target)) {
      if (e.key === "Escape") {
        var item = e.target.closest("[data-review-item]");
        e.target.blur();
        if (item) {
          select(items().indexOf(item), true);
        }
      }
      return;
    }
    switch (e.key) {
      case "j":
        select(current + 1, true);
        break;
      case "k":
        select(current < 0 ? 0 : current - 1, true);
        break;
      case "?":
        var help = document.getElementById("review-shortcuts");
        if (help) {
          help.focus();
          help.scrollIntoView({ block: "nearest" });
        }
        break;
      case "u":
        var undo = document.querySelector('#review-live [data-shortcut="u"]');
        if (undo) {
          undo.click();
          break;
        }
      // falls through: in the list of dismissed items, u restores the
      // selected item.
      case "m":
      case "a":
      case "d":
        var all = items();
        if (current < 0 || current >= all.length) {
          return;
        }
        var button = all[current].querySelector('[data-shortcut="' + e.key + '"]');
        if (!button) {
          return;
        }
        button.click();
        break;
      default:
        return;
    }
    e.preventDefault();
  });

  // An item's form answers 422 (fix a field) or 409 (resolved by someone
  // else) with HTML meant to replace the item: let htmx swap it in.
  document.body.addEventListener("htmx:beforeSwap", function (e) {
    var status = e.detail.xhr.status;
    var undo = e.detail.elt.closest && e.detail.elt.closest("[data-review-undo]");
    if ((status === 409 || status === 422 || status === 404) && (list.contains(e.detail.target) || undo)) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });

  // The message's close button empties the live region.
  document.addEventListener("click", function (e) {
    var close = e.target.closest && e.target.closest("[data-toast-close]");
    if (close) {
      var live = document.getElementById("review-live");
      if (live) {
        live.innerHTML = "";
      }
    }
  });

  // Once an item is answered, select what took its place: the item again
  // (re-rendered with its errors) or, once it is gone, the next one. The
  // answered form may be gone from the page, so htmx reports the end of the
  // request on the list; the swap settles a moment later.
  // After an undo, the item put back is the one to select.
  var pending = null;
  document.body.addEventListener("htmx:beforeRequest", function (e) {
    var item = e.detail.elt.closest && e.detail.elt.closest("[data-review-item]");
    var undo = e.detail.elt.closest && e.detail.elt.closest("[data-review-undo]");
    if (item && list.contains(item)) {
      pending = item.id;
    } else if (undo) {
      pending = "review-item-" + undo.getAttribute("data-review-undo");
    }
  });
  document.body.addEventListener("htmx:afterRequest", function () {
    if (pending === null) {
      return;
    }
    var id = pending;
    pending = null;
    window.setTimeout(function () {
      var again = document.getElementById(id);
      if (again && again.hasAttribute("data-review-item")) {
        var invalid = again.querySelector("[aria-invalid='true']");
        (invalid || again).focus();
        return;
      }
      if (document.activeElement && document.activeElement !== document.body && list.contains(document.activeElement)) {
        return;
      }
      var all = items();
      if (all.length > 0) {
        select(Math.min(Math.max(current, 0), all.length - 1), true);
      } else {
        current = -1;
        var live = document.getElementById("review-live");
        if (live) {
          live.setAttribute("tabindex", "-1");
          live.focus();
        }
      }
    }, 100);
  });
})();
