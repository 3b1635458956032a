public import ShelfTerminal

/// Styles as the configuration file writes them: words separated by spaces, such as
/// `"bold red"`, `"reverse"`, `"underline #ff8800 on 236"`.
///
/// The words are the attributes `bold`, `dim`, `italic`, `underline` and `reverse`; a colour for
/// the text (`default`, `black`, `red`, `green`, `yellow`, `blue`, `magenta`, `cyan`, `white`,
/// each also `bright-…`, `grey`; `#rrggbb`; a number 0–255 of the 256-colour palette); and
/// `on` before the background's colour. `plain` (or an empty string) is the terminal's own look.
public enum StyleName {
    private static let colors: [(name: String, color: Color)] = {
        var colors: [(name: String, color: Color)] = [("default", .default)]
        let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
        for (index, name) in names.enumerated() {
            colors.append((name, .ansi(UInt8(index))))
            colors.append(("bright-" + name, .ansi(UInt8(index + 8))))
        }
        return colors + [("grey", .brightBlack), ("gray", .brightBlack)]
    }()

    private static let attributes: [(name: String, attribute: Style.Attributes)] = [
        ("bold", .bold), ("dim", .dim), ("italic", .italic), ("underline", .underline), ("reverse", .reverse),
    ]

    /// The style `text` describes, or what in it is wrong.
    public static func style(named text: String) -> Result<Style, StyleNameError> {
        var style = Style.plain
        var words = text.lowercased().split(separator: " ").map(String.init)[...]
        var sawForeground = false
        while let word = words.popFirst() {
            if word == "plain" { continue }
            if let attribute = attributes.first(where: { $0.name == word })?.attribute {
                style.attributes.insert(attribute)
            } else if word == "on" {
                guard let next = words.popFirst() else {
                    return .failure(StyleNameError("“on” needs a colour after it"))
                }
                guard let color = color(named: next) else { return .failure(unknown(next)) }
                style.background = color
            } else if let color = color(named: word) {
                if sawForeground { return .failure(StyleNameError("two text colours; write “on” before a background")) }
                sawForeground = true
                style.foreground = color
            } else {
                return .failure(unknown(word))
            }
        }
        return .success(style)
    }

    /// The words for `style` that `style(named:)` reads back as the same style.
    public static func name(of style: Style) -> String {
        var words = attributes.filter { style.attributes.contains($0.attribute) }.map(\.name)
        if style.foreground != .default { words.append(name(of: style.foreground)) }
        if style.background != .default { words += ["on", name(of: style.background)] }
        return words.isEmpty ? "plain" : words.joined(separator: " ")
    }

    private static func name(of color: Color) -> String {
        switch color {
        case .default: "default"
        case .ansi(let n) where n < 16: colors.first { $0.color == color }?.name ?? String(n)
        case .ansi(let n), .indexed(let n): String(n)
        case .rgb(let r, let g, let b): "#" + [r, g, b].map { hex($0) }.joined()
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private static func color(named word: String) -> Color? {
        if let named = colors.first(where: { $0.name == word }) { return named.color }
        if let number = UInt8(word) { return number < 16 ? .ansi(number) : .indexed(number) }
        if word.hasPrefix("#"), word.count == 7, let value = UInt32(word.dropFirst(), radix: 16) {
            return .rgb(UInt8(value >> 16 & 255), UInt8(value >> 8 & 255), UInt8(value & 255))
        }
        return nil
    }

    private static func unknown(_ word: String) -> StyleNameError {
        StyleNameError(
            "unknown style word “\(word)”",
            hint: "use bold, dim, italic, underline, reverse, a colour such as red, bright-blue, #ff8800 or 0–255, "
                + "and “on COLOUR” for the background")
    }
}

/// What is wrong with a style's words.
public struct StyleNameError: Error, Hashable, Sendable {
    /// The message, without the file and line.
    public let message: String
    /// What would be right.
    public let hint: String?
    init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }
}
