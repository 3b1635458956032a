internal import ShelfTerminal

/// A key of the file left out of an action's keys: the key and action, why (nil for a key
/// name not known), what to do instead, and the known names.
struct LeftOutKey {
    /// "ctrl-z for moveUp", "unknown key “kwit” for quit".
    let subject: String
    var reason: String? = nil
    var advice: String? = nil
    var hint: String? = nil

    /// "ctrl-z for add: the terminal suspends …; bind another key": where it is said alone.
    var said: String {
        subject + (reason.map { ": " + $0 } ?? "") + (advice.map { "; " + $0 } ?? "")
    }

    /// "ctrl-z for moveUp is left out because the terminal suspends …": where the sentence goes
    /// on to what the action is left with, the advice said at its end.
    var leftOut: String {
        subject + " is left out" + (reason.map { " because " + $0 } ?? "")
    }
}

extension ConfigurationReader {
    /// Names each key the file binds in [keys.text] or [keys.editor] that the notes field uses
    /// itself (Enter starts a new line, ↑ and ↓ move between lines): the binding is asked
    /// before the notes, so it runs there instead (hostile round 11: `[keys.editor] save =
    /// ["enter"]` read as clean, and Enter then saved from the notes, which took no new line).
    mutating func reportNotesKeys(in map: KeyMap, bound: [KeyAction: [KeyEvent]]) {
        let own: [(key: KeyEvent, does: String)] = [
            (KeyEvent(.enter), "starts a new line"), (KeyEvent(.up), "moves up a line"),
            (KeyEvent(.down), "moves down a line"),
        ]
        for action in KeyAction.all where (action.mode == .text || action.mode == .editor) && bound[action] != nil {
            let keys = map.keys(for: action)
            for (key, does) in own where keys.contains(key) && !action.defaultKeys.contains(key) {
                let name = KeyName.name(of: key)
                let defaults = action.defaultKeys.map(KeyName.name(of:)).joined(separator: ", ")
                problem(
                    "\(name) for \(action.name) runs in the editor's notes too, where \(name) \(does): there it "
                        + "\(action.name == "save" ? "saves" : "runs \(action.name)") instead; bind \(action.name) another "
                        + "key\(defaults.isEmpty ? "" : ", such as \(defaults)")",
                    at: ["keys", action.mode.rawValue, action.name])
            }
        }
    }
}
