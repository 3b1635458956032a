public import ShelfTerminal

/// Key names as the configuration file writes them: `j`, `G`, `?`, `space`, `enter`, `esc`,
/// `pgdn`, `f1`, `ctrl-r`, `alt-left`, `shift-tab`.
///
/// A single character stands for itself, `" "` for Space (case matters: `g` and `G` are two keys); a name is
/// read without regard to case, and so are the modifiers `ctrl-`, `alt-` and `shift-` in front
/// of it (also written with `+`). The names help shows (`Ctrl-R`, `PgDn`, `↓`) read too.
public enum KeyName {
    /// The named keys, first the name `name(of:)` writes, then other spellings.
    static let named: [(names: [String], key: KeyEvent.Key)] =
        [
            (["space"], .character(" ")), (["enter", "return"], .enter), (["tab"], .tab),
            (["backspace", "bs"], .backspace), (["esc", "escape"], .escape),
            (["up", "↑"], .up), (["down", "↓"], .down), (["left", "←"], .left), (["right", "→"], .right),
            (["home"], .home), (["end"], .end), (["pgup", "pageup"], .pageUp), (["pgdn", "pagedown"], .pageDown),
            (["ins", "insert"], .insert), (["del", "delete"], .delete),
        ] + (1...12).map { (["f\($0)"], KeyEvent.Key.function($0)) }

    /// Every name `key(named:)` reads besides single characters, for messages.
    public static let knownNames =
        "a single character, " + named.prefix(15).map(\.names[0]).joined(separator: ", ")
        + " or f1 to f12, each after ctrl-, alt- or shift- when held"

    /// The key `text` names, or nil when it names none.
    public static func key(named text: String) -> KeyEvent? {
        var rest = Substring(text)
        var modifiers: KeyEvent.Modifiers = []
        while rest.count > 1 {
            let lower = rest.lowercased()
            let prefix: (String, KeyEvent.Modifiers)? = [
                ("ctrl", .control), ("control", .control), ("alt", .alt), ("meta", .alt), ("shift", .shift),
            ].first { lower.hasPrefix($0.0 + "-") || lower.hasPrefix($0.0 + "+") }
            guard let prefix else { break }
            modifiers.insert(prefix.1)
            rest = rest.dropFirst(prefix.0.count + 1)
        }
        guard !rest.isEmpty else { return nil }
        if let key = named.first(where: { $0.names.contains(rest.lowercased()) })?.key {
            return KeyEvent(key, modifiers: modifiers)
        }
        if rest.count == 1, let character = rest.first {
            if modifiers.contains(.control) {
                // Ctrl-letters arrive as the lower-case letter with the control flag.
                let lower = Character(character.lowercased())
                guard lower.isASCII, lower.isLetter else { return nil }
                return KeyEvent(.character(lower), modifiers: modifiers)
            }
            // " " is Space, as "space" is (hostile round 11: the help says a single character
            // works, and " " was an unknown key); other white space types no key of its own.
            guard character == " " || !character.isWhitespace,
                character.unicodeScalars.allSatisfy({ $0.value >= 0x20 })
            else { return nil }
            return KeyEvent(.character(character), modifiers: modifiers)
        }
        return nil
    }

    /// Why `event` cannot be bound in `mode`, or nil when it can:
    ///
    /// - Ctrl-H, Ctrl-I, Ctrl-J and Ctrl-M send the same byte as Backspace, Tab and Enter: a
    ///   terminal cannot tell them apart, so such a key would never arrive (bound to `quit`, it
    ///   left a browser no key could end);
    /// - a plain character in a mode that types text (the search field, text editing, the
    ///   editors, prompts, the help's filter) could no longer be typed there (`save = ["x"]`
    ///   saved "bo" when "box" was typed);
    /// - Ctrl-Z suspends the browser before any mode sees it (`Application`);
    /// - a character no key types alone: an invisible or format character (U+202E, U+200B), a
    ///   C1 control (U+009B), a combining mark (U+0301) or a private or unassigned one (bound to
    ///   `quit`, U+202E left a browser that q, Ctrl-C and Esc could not end);
    /// - Shift with a character, Space, Enter, Backspace or Esc: a terminal sends Shift-A as
    ///   `A` and Shift-Enter as Enter, so such a key never arrives.
    ///
    /// The reason and the advice are apart, so a message can say the reason where it names the
    /// key and the advice at its end (hostile round 11: "…; bind another key is left out: …").
    static func cannotBind(_ event: KeyEvent, in mode: KeyMode) -> (reason: String, advice: String)? {
        if case .character(let character) = event.key, let first = character.unicodeScalars.first,
            Self.typesNothing(first)
        {
            return ("\(shown(String(character))) is a character no key types alone", "bind a visible key")
        }
        if event.modifiers.contains(.shift) {
            switch event.key {
            case .character(let character) where event.modifiers.contains(.control):
                // Hostile round 11: ctrl-shift-alt-x was told to bind “X”, dropping ctrl and alt.
                // With Ctrl a terminal sends a letter the same whatever its case.
                let plain = KeyEvent(
                    .character(Character(character.lowercased())), modifiers: event.modifiers.subtracting(.shift))
                return (
                    "a terminal sends Ctrl with a letter the same with or without Shift, so it cannot be told apart",
                    "bind \(name(of: plain)) instead"
                )
            case .character(let character):
                let rest = event.modifiers.subtracting(.shift)
                let typed =
                    character.isLetter
                    ? "“\(name(of: KeyEvent(.character(Character(character.uppercased())), modifiers: rest)))”"
                    : "the character Shift types with it"
                return ("a terminal sends Shift with a character as the character it types", "bind \(typed) instead")
            case .enter, .backspace, .escape:
                return ("a terminal sends it without the Shift, so it cannot be told apart", "bind another key")
            default: break
            }
        }
        if event.modifiers == .control, case .character(let letter) = event.key {
            let same: [Character: String] = ["h": "Backspace", "i": "Tab", "j": "Enter", "m": "Enter"]
            if let key = same[letter] {
                return (
                    "a terminal sends it as \(key), so it cannot be told apart",
                    "bind \(key.lowercased()) or another key"
                )
            }
        }
        if event == .control("z") {
            return (
                "the terminal suspends the browser with it before any mode sees it (fg brings it back)",
                "bind another key"
            )
        }
        let typing: Set<KeyMode> = [.search, .text, .editor, .userForm, .prompt, .help]
        if typing.contains(mode), event.modifiers.isDisjoint(with: [.control, .alt]), case .character = event.key {
            return (
                "it types text in [keys.\(mode.rawValue)], so it could not be typed", "bind a key with ctrl- or alt-"
            )
        }
        return nil
    }

    /// True for a scalar that no key types on its own (see `cannotBind`).
    private static func typesNothing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
            .nonspacingMark, .spacingMark, .enclosingMark:
            true
        default: false
        }
    }

    /// `name` as a message shows it: characters that show nothing, or would act on the
    /// terminal, as `\u{202E}` (as `shelf config` shows an escape sequence).
    static func shown(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars {
            if typesNothing(scalar) || scalar.properties.isWhitespace && scalar != " " {
                text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// The name the configuration file uses for `event`: `ctrl-r`, `shift-tab`, `pgdn`, `G`.
    public static func name(of event: KeyEvent) -> String {
        var parts: [String] = []
        if event.modifiers.contains(.control) { parts.append("ctrl") }
        if event.modifiers.contains(.alt) { parts.append("alt") }
        if event.modifiers.contains(.shift) { parts.append("shift") }
        if case .character(let character) = event.key, character != " " {
            parts.append(String(character))
        } else {
            parts.append(named.first { $0.key == event.key }?.names[0] ?? event.description.lowercased())
        }
        return parts.joined(separator: "-")
    }
}
