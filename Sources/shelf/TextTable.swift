import Foundation
import ShelfTerminal

/// Rows for people or scripts, one line at a time, so a list of any length streams in
/// bounded memory: on a terminal, columns of fixed widths (the flexible one takes what the
/// terminal's width leaves) under a bold header; otherwise tab-separated values without a
/// header. Control characters in data are escaped either way, so data can never move the
/// cursor or split a line.
struct TextTable: Sendable {
    struct Column: Sendable {
        var header: String
        /// The width on a terminal; nil for the flexible column.
        var width: Int?
        /// Whether a longer cell is cut with an ellipsis (text), or shown whole (numbers).
        var cuts = true
    }

    let columns: [Column]
    let terminal: Bool
    /// The terminal's width.
    let width: Int
    private let widths: [Int]

    init(_ columns: [Column], terminal: Bool = Self.isTerminal, width: Int = Self.terminalWidth) {
        self.columns = columns
        self.terminal = terminal
        self.width = width
        let fixed = columns.compactMap(\.width).reduce(0, +) + 2 * (columns.count - 1)
        widths = columns.map { $0.width ?? max(8, width - fixed) }
    }

    static var isTerminal: Bool { isatty(1) == 1 }

    static var terminalWidth: Int {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// The bold header line on a terminal; nil otherwise.
    var header: String? {
        guard terminal else { return nil }
        return "\u{1B}[1m" + layout(columns.map(\.header)) + "\u{1B}[0m\n"
    }

    /// One row, with its line break.
    func line(_ cells: [String]) -> String {
        guard terminal else { return cells.map(Self.escapeForTSV).joined(separator: "\t") + "\n" }
        return layout(cells.map(Sanitizer.sanitize)) + "\n"
    }

    private func layout(_ cells: [String]) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            let fitted = columns[index].cuts ? Self.fit(cell, widths[index]) : cell
            line += fitted
            if index < cells.count - 1 {
                line += String(repeating: " ", count: max(1, widths[index] - DisplayWidth.of(fitted) + 2))
            }
        }
        // Narrower than its fixed columns, the terminal still gets whole lines.
        return Self.fit(line, width)
    }

    private static func fit(_ text: String, _ width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = DisplayWidth.of(character)
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// Backslash escapes for tab, line breaks, the backslash and other control characters.
    static func escapeForTSV(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != 0x5C && $0 < 0x80 }) { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case _ where Sanitizer.sanitize(String(scalar)) != String(scalar):
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
