/// A key press decoded from the terminal's input bytes.
///
/// Letters typed with Ctrl arrive as `.character` with `.control` in `modifiers`;
/// Alt (Meta) letters as `.character` with `.alt`. Shift is only reported where the
/// terminal reports it (arrows, function keys, Shift-Tab); a shifted letter arrives as its
/// upper-case character.
public struct KeyEvent: Hashable, Sendable, CustomStringConvertible {
    /// Which key.
    public enum Key: Hashable, Sendable {
        case character(Character)
        case enter, tab, backspace, escape
        case up, down, left, right
        case home, end, pageUp, pageDown, insert, delete
        /// F1 to F12.
        case function(Int)
    }

    /// Modifier keys held with the key.
    public struct Modifiers: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let shift = Modifiers(rawValue: 1)
        public static let alt = Modifiers(rawValue: 2)
        public static let control = Modifiers(rawValue: 4)
    }

    public var key: Key
    public var modifiers: Modifiers

    public init(_ key: Key, modifiers: Modifiers = []) {
        self.key = key
        self.modifiers = modifiers
    }

    /// A character key without modifiers.
    public static func character(_ character: Character) -> KeyEvent { KeyEvent(.character(character)) }

    /// Ctrl and a letter, e.g. `.control("c")`.
    public static func control(_ letter: Character) -> KeyEvent {
        KeyEvent(.character(letter), modifiers: .control)
    }

    /// A readable name such as `Ctrl-C`, `Shift-Tab` or `PgDn`, for help screens.
    public var description: String {
        var parts: [String] = []
        if modifiers.contains(.control) { parts.append("Ctrl") }
        if modifiers.contains(.alt) { parts.append("Alt") }
        if modifiers.contains(.shift) { parts.append("Shift") }
        let name: String
        switch key {
        case .character(" "): name = "Space"
        case .character(let c): name = modifiers.contains(.control) ? String(c).uppercased() : String(c)
        case .enter: name = "Enter"
        case .tab: name = "Tab"
        case .backspace: name = "Backspace"
        case .escape: name = "Esc"
        case .up: name = "↑"
        case .down: name = "↓"
        case .left: name = "←"
        case .right: name = "→"
        case .home: name = "Home"
        case .end: name = "End"
        case .pageUp: name = "PgUp"
        case .pageDown: name = "PgDn"
        case .insert: name = "Ins"
        case .delete: name = "Del"
        case .function(let n): name = "F\(n)"
        }
        parts.append(name)
        return parts.joined(separator: "-")
    }
}

/// A mouse event (SGR 1006 reporting). Positions are zero-based cells.
public struct MouseEvent: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        case press(button: Int)
        case release(button: Int)
        case drag(button: Int)
        case wheelUp, wheelDown
    }

    public var action: Action
    public var position: Point
    public var modifiers: KeyEvent.Modifiers

    public init(_ action: Action, at position: Point, modifiers: KeyEvent.Modifiers = []) {
        self.action = action
        self.position = position
        self.modifiers = modifiers
    }
}

/// One event from the terminal's input.
public enum InputEvent: Hashable, Sendable {
    case key(KeyEvent)
    /// A bracketed paste, as one string (line breaks normalised to "\n").
    case paste(String)
    case mouse(MouseEvent)
}
