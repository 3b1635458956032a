import Foundation
import ShelfTerminal

/// Rows for people or scripts: an aligned table with a header on a terminal, fitted to its
/// width; tab-separated values without a header otherwise. Control characters in data are
/// escaped either way, so data can never move the cursor or split a line.
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []
    /// The column that shrinks (with an ellipsis) when the table is wider than the terminal.
    var flexibleColumn: Int

    static var isTerminal: Bool { isatty(1) == 1 }

    func render(terminal: Bool = Self.isTerminal, width: Int = Self.terminalWidth) -> String {
        guard terminal else {
            return rows.map { $0.map(Self.escapeForTSV).joined(separator: "\t") + "\n" }.joined()
        }
        let cells = [headers] + rows.map { $0.map(Sanitizer.sanitize) }
        var widths = headers.indices.map { column in cells.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        let total = widths.reduce(0, +) + 2 * (widths.count - 1)
        if total > width {
            widths[flexibleColumn] = max(8, widths[flexibleColumn] - (total - width))
        }
        var text = ""
        for (index, row) in cells.enumerated() {
            var line = ""
            for (column, cell) in row.enumerated() {
                let fitted = Self.fit(cell, widths[column])
                line += fitted
                if column < row.count - 1 {
                    line += String(repeating: " ", count: widths[column] - DisplayWidth.of(fitted) + 2)
                }
            }
            // Narrower than its fixed columns, the terminal still gets whole lines.
            line = Self.fit(line, width)
            text += (index == 0 ? "\u{1B}[1m" + line + "\u{1B}[0m" : line) + "\n"
        }
        return text
    }

    static var terminalWidth: Int {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// A time for people in a table: `2026-11-22 14:37` (UTC).
    static func minutes(_ date: Date) -> String {
        let text = date.formatted(Date.ISO8601FormatStyle())
        return String(text.prefix(16)).replacingOccurrences(of: "T", with: " ")
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
