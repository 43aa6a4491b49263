#!/usr/bin/env python3
"""Drives an application through the AT-SPI tree, as a screen reader meets it.

Started by the window tests with the app's PID; reads one command a line on
stdin and answers one JSON line on stdout:

  wait ROLE NAME-REGEX SECONDS   the first node of that role whose name matches, when it appears
  press ROLE NAME-REGEX          its first action (a button's "click"); ok or an error
  activate ROLE NAME-REGEX       the same, for a list item ("activate")
  set-value ROLE NAME-REGEX V    through the Value interface (a slider)
  value ROLE NAME-REGEX          the Value interface's current value
  set-text ROLE NAME-REGEX TEXT  through the EditableText interface (an entry)
  text ROLE NAME-REGEX           its text, through the Text interface (a text view's)
  size ROLE NAME-REGEX           its width and height on screen, through the Component interface
  type TEXT                      TEXT typed as keys (X keysyms), as a person types it
  key COMBO                      keys pressed as a person presses them (ctrl+space, alt+Left: X11 keycodes)
  names ROLE                     every name of that role
  unnamed                        every control (button, link, toggle, list item, slider, entry) without a name, and how many were seen

GTK 4.8 marks only the toplevel SHOWING, so nodes are filtered on VISIBLE.
"""
import json
import re
import sys
import time

import pyatspi

CONTROLS = {"push button", "link", "page tab", "toggle button", "check box", "list item", "slider", "text", "entry", "spin button", "radio button"}


def application(pid, seconds=20):
    end = time.time() + seconds
    while time.time() < end:
        desktop = pyatspi.Registry.getDesktop(0)
        for index in range(desktop.childCount):
            app = desktop.getChildAtIndex(index)
            try:
                if app is not None and app.get_process_id() == pid:
                    return app
            except Exception:
                pass
        time.sleep(0.1)
    return None


def walk(node, depth=0):
    if node is None or depth > 60:
        return
    yield node
    try:
        count = node.childCount
    except Exception:
        return
    for index in range(min(count, 5000)):
        try:
            child = node.getChildAtIndex(index)
        except Exception:
            continue
        yield from walk(child, depth + 1)


def visible(node):
    try:
        return node.getState().contains(pyatspi.STATE_VISIBLE)
    except Exception:
        return False


def find(app, role, pattern):
    expression = re.compile(pattern)
    for node in walk(app):
        try:
            if node.getRoleName() == role and visible(node) and expression.search(node.name or ""):
                return node
        except Exception:
            continue
    return None


def actions_of(node):
    try:
        actions = node.queryAction()
        return actions if actions.nActions > 0 else None
    except NotImplementedError:
        return None


def act(node, preferred):
    """The node's action named `preferred` (else its first), or that of the
    control inside it (a menu button's toggle); a node with none (a list
    row) is focused and given Return, as a keyboard user would."""
    target = node
    actions = actions_of(node)
    if actions is None:
        for index in range(min(node.childCount, 10)):
            child = node.getChildAtIndex(index)
            actions = actions_of(child) if child is not None else None
            if actions is not None:
                target = child
                break
    if actions is not None:
        names = [actions.getName(i) for i in range(actions.nActions)]
        return actions.doAction(names.index(preferred) if preferred in names else 0)
    node = target
    node.queryComponent().grabFocus()
    time.sleep(0.1)
    pyatspi.Registry.generateKeyboardEvent(36, None, pyatspi.KEY_PRESSRELEASE)  # X11 keycode 36: Return
    return True


KEYCODES = {"ctrl": 37, "alt": 64, "shift": 50, "space": 65, "Return": 36, "Left": 113, "Right": 114, "Up": 111, "Down": 116,
            "1": 10, "2": 11, "3": 12, "4": 13, "5": 14, "q": 24, "question": 61}


def press_keys(combo):
    """Modifiers held, the last key pressed and released, the modifiers let go."""
    *modifiers, key = combo.split("+")
    for modifier in modifiers:
        pyatspi.Registry.generateKeyboardEvent(KEYCODES[modifier], None, pyatspi.KEY_PRESS)
    pyatspi.Registry.generateKeyboardEvent(KEYCODES[key], None, pyatspi.KEY_PRESSRELEASE)
    for modifier in reversed(modifiers):
        pyatspi.Registry.generateKeyboardEvent(KEYCODES[modifier], None, pyatspi.KEY_RELEASE)


def answer(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def main():
    app = application(int(sys.argv[1]))
    answer({"ok": app is not None})
    if app is None:
        return
    for line in sys.stdin:
        words = line.rstrip("\n").split(" ")
        verb = words[0]
        try:
            if verb == "wait":
                role, pattern, seconds = words[1].replace("_", " "), words[2], float(words[3])
                end = time.time() + seconds
                node = find(app, role, pattern)
                while node is None and time.time() < end:
                    time.sleep(0.05)
                    node = find(app, role, pattern)
                answer({"ok": node is not None, "name": node.name if node else None})
            elif verb in ("press", "activate"):
                node = find(app, words[1].replace("_", " "), words[2])
                answer({"ok": node is not None and act(node, "click" if verb == "press" else "activate") is not False})
            elif verb == "set-value":
                node = find(app, words[1].replace("_", " "), words[2])
                if node is not None:
                    node.queryValue().currentValue = float(words[3])
                answer({"ok": node is not None})
            elif verb == "value":
                node = find(app, words[1].replace("_", " "), words[2])
                answer({"ok": node is not None, "value": node.queryValue().currentValue if node else None})
            elif verb == "set-text":
                node = find(app, words[1].replace("_", " "), words[2])
                if node is not None:
                    node.queryEditableText().setTextContents(" ".join(words[3:]))
                answer({"ok": node is not None})
            elif verb == "text":
                node = find(app, words[1].replace("_", " "), words[2])
                answer({"ok": node is not None, "text": node.queryText().getText(0, -1) if node else None})
            elif verb == "size":
                node = find(app, words[1].replace("_", " "), words[2])
                extents = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS) if node else None
                answer({"ok": node is not None, "width": extents.width if extents else 0, "height": extents.height if extents else 0})
            elif verb == "type":
                for character in " ".join(words[1:]):
                    pyatspi.Registry.generateKeyboardEvent(ord(character), None, pyatspi.KEY_SYM)
                    time.sleep(0.01)
                answer({"ok": True})
            elif verb == "key":
                press_keys(words[1])
                answer({"ok": True})
            elif verb == "names":
                role = words[1].replace("_", " ")
                answer({"ok": True, "names": [n.name for n in walk(app) if n.getRoleName() == role and visible(n)]})
            elif verb == "unnamed":
                found, seen = [], 0
                for node in walk(app):
                    try:
                        role = node.getRoleName()
                        if role in CONTROLS and visible(node):
                            seen += 1
                            # GTK names a control nobody named after its class ("GtkScale").
                            if not (node.name or "").strip() or re.fullmatch(r"(Gtk|Adw)[A-Z]\w*", node.name):
                                found.append(role)
                    except Exception:
                        continue
                answer({"ok": True, "unnamed": found, "controls": seen})
            else:
                answer({"ok": False, "error": "unknown verb " + verb})
        except Exception as error:  # one bad command is one error line, the driver goes on
            answer({"ok": False, "error": repr(error)})


if __name__ == "__main__":
    main()
