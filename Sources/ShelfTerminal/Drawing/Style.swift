/// A terminal colour.
public enum Color: Hashable, Sendable {
    /// The terminal's own foreground or background.
    case `default`
    /// One of the 16 ANSI colours (0–7 normal, 8–15 bright); readable on every terminal.
    case ansi(UInt8)
    /// One of the 256 indexed colours.
    case indexed(UInt8)
    /// A 24-bit colour, shown as the nearest indexed or ANSI colour where unsupported.
    case rgb(UInt8, UInt8, UInt8)

    /// 27 bits: a 2-bit kind and 24 bits of value.
    var packed: UInt64 {
        switch self {
        case .default: 0
        case .ansi(let n): 1 << 24 | UInt64(n)
        case .indexed(let n): 2 << 24 | UInt64(n)
        case .rgb(let r, let g, let b): 3 << 24 | UInt64(r) << 16 | UInt64(g) << 8 | UInt64(b)
        }
    }

    /// ANSI colour 0.
    public static let black = Color.ansi(0)
    /// ANSI colour 1.
    public static let red = Color.ansi(1)
    /// ANSI colour 2.
    public static let green = Color.ansi(2)
    /// ANSI colour 3.
    public static let yellow = Color.ansi(3)
    /// ANSI colour 4.
    public static let blue = Color.ansi(4)
    /// ANSI colour 5.
    public static let magenta = Color.ansi(5)
    /// ANSI colour 6.
    public static let cyan = Color.ansi(6)
    /// ANSI colour 7 (light grey on most terminals).
    public static let white = Color.ansi(7)
    /// ANSI colour 8 (dark grey on most terminals).
    public static let brightBlack = Color.ansi(8)
    /// ANSI colour 15.
    public static let brightWhite = Color.ansi(15)
}

/// How a cell looks: colours and text attributes.
public struct Style: Hashable, Sendable {
    /// Text attributes.
    public struct Attributes: OptionSet, Hashable, Sendable {
        /// The attribute bits; only the five named attributes are defined.
        public let rawValue: UInt8
        /// Attributes from their bits (see the static members for the values).
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Bold (SGR 1).
        public static let bold = Attributes(rawValue: 1)
        /// Faint (SGR 2).
        public static let dim = Attributes(rawValue: 2)
        /// Italic (SGR 3); some terminals ignore it.
        public static let italic = Attributes(rawValue: 4)
        /// Underlined (SGR 4).
        public static let underline = Attributes(rawValue: 8)
        /// Foreground and background swapped (SGR 7); shows even with `.monochrome`.
        public static let reverse = Attributes(rawValue: 16)
    }

    /// The text colour.
    public var foreground: Color
    /// The cell's background colour.
    public var background: Color
    /// Bold, dim, italic, underline, reverse.
    public var attributes: Attributes

    /// A style; every part defaults to the terminal's own.
    public init(foreground: Color = .default, background: Color = .default, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's default look.
    public static let plain = Style()

    /// The style as one number (different styles give different numbers), for hashing.
    var packed: UInt64 {
        foreground.packed << 32 | background.packed << 5 | UInt64(attributes.rawValue)
    }

    /// This style with `attributes` added.
    public func with(_ attributes: Attributes) -> Style {
        var copy = self
        copy.attributes.formUnion(attributes)
        return copy
    }
}
