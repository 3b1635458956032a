/// A key press decoded from the terminal's input bytes.
///
/// Letters typed with Ctrl arrive as `.character` with `.control` in `modifiers`;
/// Alt (Meta) letters as `.character` with `.alt`. Shift is only reported where the
/// terminal reports it (arrows, function keys, Shift-Tab); a shifted letter arrives as its
/// upper-case character.
public struct KeyEvent: Hashable, Sendable, CustomStringConvertible {
    /// Which key.
    public enum Key: Hashable, Sendable {
        /// A character key, as typed (a shifted letter is upper case); Ctrl and Alt letters come
        /// with those modifiers.
        case character(Character)
        /// Enter (CR or LF), Tab, Backspace (DEL or BS) and a lone Escape.
        case enter, tab, backspace, escape
        /// The arrow keys.
        case up, down, left, right
        /// The editing and navigation keys.
        case home, end, pageUp, pageDown, insert, delete
        /// F1 to F12.
        case function(Int)
    }

    /// Modifier keys held with the key.
    public struct Modifiers: OptionSet, Hashable, Sendable {
        /// The modifier bits.
        public let rawValue: UInt8
        /// Modifiers from their bits (see the static members for the values).
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Shift, where the terminal reports it (arrows, function keys, Shift-Tab).
        public static let shift = Modifiers(rawValue: 1)
        /// Alt (Meta): the key arrived after an Escape, or with the Alt flag of a sequence.
        public static let alt = Modifiers(rawValue: 2)
        /// Ctrl; Ctrl-letters arrive as `.character` of the lower-case letter with this flag.
        public static let control = Modifiers(rawValue: 4)
    }

    /// The key pressed.
    public var key: Key
    /// The modifier keys held with it.
    public var modifiers: Modifiers

    /// A key event, as the decoder would produce it; use it to drive a `HeadlessScreen` in
    /// tests.
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
    /// What the mouse did. Buttons are numbered from 0 (left, middle, right).
    public enum Action: Hashable, Sendable {
        /// A button went down; 0 is the left button, 1 the middle, 2 the right.
        case press(button: Int)
        /// A button went up.
        case release(button: Int)
        /// The pointer moved with a button held.
        case drag(button: Int)
        /// One step of the wheel, up or down.
        case wheelUp, wheelDown
    }

    /// What happened.
    public var action: Action
    /// The cell under the pointer, zero-based.
    public var position: Point
    /// The modifier keys held (Shift, Alt, Ctrl as the terminal reports them).
    public var modifiers: KeyEvent.Modifiers

    /// A mouse event at `position`.
    public init(_ action: Action, at position: Point, modifiers: KeyEvent.Modifiers = []) {
        self.action = action
        self.position = position
        self.modifiers = modifiers
    }
}

/// One event from the terminal's input.
public enum InputEvent: Hashable, Sendable {
    /// A key press.
    case key(KeyEvent)
    /// A bracketed paste, as one string (line breaks normalised to "\n").
    case paste(String)
    /// A mouse event; arrives only while mouse reporting is on.
    case mouse(MouseEvent)
}
