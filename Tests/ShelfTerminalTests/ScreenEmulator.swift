@testable import ShelfTerminal

/// The little part of a VT100/xterm a renderer relies on, to check that the bytes it writes
/// really produce the frame: cursor position (CUP, CUF), erase display, scroll regions
/// (DECSTBM) with scroll up and down (SU, SD), SGR (tracked as a whole) and text of any
/// width. Private modes are accepted and ignored. Anything else fails the test.
///
/// Like xterm and tmux, writing over either half of a wide character blanks the other half,
/// a zero-width grapheme joins the cell before the cursor, and with autowrap off (as the
/// browser sets it) text past the right edge overwrites the last column. `columns` is the
/// terminal's width table, `DisplayWidth.of` unless a test gives another (a terminal that
/// disagrees with ours).
struct ScreenEmulator {
    private(set) var lines: [[String]]
    private var cursor = Point.zero
    private var top = 0
    private var bottom: Int
    let width: Int
    let height: Int
    private(set) var unknown: [String] = []

    /// The columns the emulated terminal gives a grapheme.
    let columns: (String) -> Int

    init(width: Int, height: Int, columns: @escaping (String) -> Int = { DisplayWidth.of($0) }) {
        self.width = width
        self.height = height
        self.columns = columns
        bottom = height - 1
        lines = Array(repeating: Array(repeating: " ", count: width), count: height)
    }

    var text: [String] { lines.map { $0.joined() } }

    mutating func apply(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        var index = text.unicodeScalars.startIndex
        let scalars = text.unicodeScalars
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\u{1B}" {
                index = scalars.index(after: index)
                guard index < scalars.endIndex, scalars[index] == "[" else {
                    unknown.append("ESC")
                    continue
                }
                index = scalars.index(after: index)
                var parameters = ""
                while index < scalars.endIndex, !(0x40...0x7E).contains(scalars[index].value) {
                    parameters.unicodeScalars.append(scalars[index])
                    index = scalars.index(after: index)
                }
                let final = scalars[index]
                index = scalars.index(after: index)
                control(parameters, final)
                continue
            }
            // Collect one grapheme: this scalar plus following combining scalars.
            var end = scalars.index(after: index)
            while end < scalars.endIndex, scalars[end] != "\u{1B}",
                String(String.UnicodeScalarView(scalars[index...end])).count == 1
            {
                end = scalars.index(after: end)
            }
            let grapheme = String(String.UnicodeScalarView(scalars[index..<end]))
            put(grapheme)
            index = end
        }
    }

    private mutating func put(_ grapheme: String) {
        let columns = self.columns(grapheme)
        guard cursor.y < height, cursor.x < width || columns == 0 else {
            unknown.append("text past the edge at \(cursor)")
            return
        }
        if columns == 0 {
            if cursor.x > 0 { lines[cursor.y][cursor.x - 1] += grapheme }
            return
        }
        // Autowrap is off: a character that does not fit is drawn in the last columns.
        let x = min(cursor.x, width - min(columns, width))
        for column in x..<min(x + columns, width) { clear(column) }
        lines[cursor.y][x] = grapheme
        for column in x + 1..<min(x + columns, width) { lines[cursor.y][column] = "" }
        cursor.x = min(x + columns, width)
    }

    /// Blanks the cell at `column` of the cursor's line, and the rest of a wide character it
    /// is part of.
    private mutating func clear(_ column: Int) {
        let y = cursor.y
        var start = column
        while start > 0, lines[y][start] == "" { start -= 1 }
        var end = column + 1
        while end < width, lines[y][end] == "" { end += 1 }
        for index in start..<end { lines[y][index] = " " }
    }

    private mutating func control(_ parameters: String, _ final: Unicode.Scalar) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func number(_ i: Int, _ fallback: Int) -> Int { i < numbers.count ? numbers[i] ?? fallback : fallback }
        if parameters.hasPrefix("?") { return }
        switch final {
        case "H": cursor = Point(x: number(1, 1) - 1, y: number(0, 1) - 1)
        case "C": cursor.x += number(0, 1)
        case "J" where number(0, 0) == 2:
            lines = Array(repeating: Array(repeating: " ", count: width), count: height)
        case "m": break
        case "r":
            top = number(0, 1) - 1
            bottom = number(1, height) - 1
            cursor = .zero
        case "S": scroll(by: number(0, 1))
        case "T": scroll(by: -number(0, 1))
        default: unknown.append("CSI \(parameters)\(final)")
        }
    }

    private mutating func scroll(by shift: Int) {
        let region = Array(lines[top...bottom])
        for row in 0..<region.count {
            let source = row + shift
            lines[top + row] =
                source >= 0 && source < region.count ? region[source] : Array(repeating: " ", count: width)
        }
    }
}
