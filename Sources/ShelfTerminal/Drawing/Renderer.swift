/// Turns canvases into terminal output, writing only what changed since the last frame.
///
/// Each frame is wrapped in synchronized output (DEC mode 2026) so the terminal shows it
/// whole, and comes back as one byte buffer to write with a single `write`. Cursor moves
/// and style changes are kept to the minimum: a style is sent only when it differs from the
/// last one written, and the cursor moves only across cells that did not change.
///
/// Terminals disagree on how many columns some characters take (emoji, combining sequences,
/// characters newer than their tables). Such a cell (`DisplayWidth.isCertain` says which) is
/// written after an absolute cursor move, over cleared columns, and the cell after it is placed
/// absolutely too; its row is rewritten from it when anything there changes. Every other
/// column of the row then stays where it belongs on any terminal, and plain text costs no more
/// than before. Not thread-safe; one renderer per terminal.
public struct Renderer: Sendable {
    /// How many colours the terminal shows.
    public enum ColorMode: Hashable, Sendable {
        /// No colours (`NO_COLOR`): attributes such as bold and reverse only.
        case monochrome
        /// The 16 ANSI colours; other colours are shown as the nearest of them.
        case ansi16
        /// The 256 indexed colours; 24-bit colours are shown as the nearest of them.
        case indexed256
        /// 24-bit colours, written as they are.
        case truecolor

        /// The mode the environment asks for: `NO_COLOR` set and not empty wins, then
        /// `COLORTERM=truecolor|24bit`, then a `TERM` containing `256color`, else 16 colours.
        public static func detect(environment: [String: String]) -> ColorMode {
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .monochrome }
            if let colorTerm = environment["COLORTERM"], colorTerm == "truecolor" || colorTerm == "24bit" {
                return .truecolor
            }
            if environment["TERM"]?.contains("256color") == true { return .indexed256 }
            return .ansi16
        }
    }

    /// The colours output uses; colours the mode lacks are mapped to the nearest it has, and
    /// `.monochrome` drops them. Changing it does not redraw cells already written: call
    /// `invalidate()` too.
    public var colorMode: ColorMode
    private var previous: Canvas?
    private var previousCursor: Point?
    /// `rowHash` of each row of `previous`, kept so each frame hashes only its own rows.
    private var previousRowHashes: [Int] = []
    private var cursorShown = false

    /// A renderer that has drawn nothing yet: its first frame is written in full.
    public init(colorMode: ColorMode) {
        self.colorMode = colorMode
    }

    /// Forgets the last frame, so the next one is drawn in full (after a resize, or when
    /// the screen may have been disturbed, e.g. after a suspend).
    public mutating func invalidate() {
        previous = nil
    }

    /// The bytes that bring the screen from the last frame to `canvas`; empty when nothing
    /// changed.
    public mutating func render(_ canvas: Canvas) -> [UInt8] {
        var output = Output()
        var base: Canvas
        if let previous, previous.size == canvas.size {
            base = previous
        } else {
            output.append("\u{1B}[0m\u{1B}[H\u{1B}[2J")
            base = Canvas(size: canvas.size)
        }
        let rowHashes = (0..<canvas.size.height).map { canvas.rowHash($0) }
        if previous?.size == canvas.size {
            scrollIfUseful(from: &base, to: canvas, oldHashes: previousRowHashes, newHashes: rowHashes, into: &output)
        }
        previousRowHashes = rowHashes
        let pen = writeChanges(from: base, to: canvas, into: &output)
        if output.bytes.isEmpty, canvas.cursor == previousCursor, previous != nil {
            return []
        }
        if pen != .plain { output.append("\u{1B}[0m") }
        if let cursor = canvas.cursor {
            output.moveCursor(to: cursor)
            if !cursorShown { output.append("\u{1B}[?25h") }
            cursorShown = true
        } else if cursorShown {
            output.append("\u{1B}[?25l")
            cursorShown = false
        }
        previous = canvas
        previousCursor = canvas.cursor
        return Array("\u{1B}[?2026h".utf8) + output.bytes + Array("\u{1B}[?2026l".utf8)
    }

    /// When a block of lines moved up or down (a list scrolled), scrolls that block on the
    /// terminal (a scroll region and SU/SD) and shifts `old` to match, so only the lines
    /// that really changed are written afterwards.
    private func scrollIfUseful(
        from old: inout Canvas, to new: Canvas, oldHashes: [Int], newHashes: [Int], into output: inout Output
    ) {
        let height = new.size.height
        guard height >= 4, oldHashes.count == height else { return }
        // Nothing to gain unless several lines changed.
        guard zip(oldHashes, newHashes).count(where: { $0 != $1 }) >= 3 else { return }
        // The shift that lines up the most lines that changed; ties go to the smaller shift.
        var best: (shift: Int, matches: Int, first: Int, last: Int)?
        for distance in 1...min(height / 2, 32) {
            for shift in [distance, -distance] {
                var matches = 0
                var first = Int.max
                var last = Int.min
                for y in max(0, -shift)..<min(height, height - shift)
                where newHashes[y] == oldHashes[y + shift] && newHashes[y] != oldHashes[y] {
                    matches += 1
                    first = min(first, y)
                    last = max(last, y)
                }
                if matches > (best?.matches ?? 2) { best = (shift, matches, first, last) }
            }
        }
        guard let best else { return }
        // Lines first...last of the new frame come from first+shift...last+shift of the old.
        let top = min(best.first, best.first + best.shift)
        let bottom = max(best.last, best.last + best.shift)
        let amount = abs(best.shift)
        output.append("\u{1B}[\(top + 1);\(bottom + 1)r")
        output.append(best.shift > 0 ? "\u{1B}[\(amount)S" : "\u{1B}[\(amount)T")
        output.append("\u{1B}[r")
        old.scrollRows(top: top, bottom: bottom, by: best.shift)
    }

    /// Writes the changed cells; returns the style left set on the terminal.
    ///
    /// Plain text flows: after a cell whose width is certain (`Cell.hasCertainWidth`) the
    /// terminal's cursor is where ours is, so the next changed cell on the line is reached by
    /// writing on or with a relative move. A cell whose width is not certain may take more or
    /// fewer columns on this terminal than here, so:
    /// - its columns are first cleared with spaces, and it is written after an absolute move;
    /// - the cell after it is placed with an absolute move (CUP), never relatively;
    /// - in a row with such a cell (in this frame or the last), when anything from that cell on
    ///   changed, every cell from it to the end of the row is written again, so whatever it
    ///   spilled over on this terminal is overwritten.
    /// A row's other columns then always line up, whatever the terminal's width table says.
    private func writeChanges(from old: Canvas, to new: Canvas, into output: inout Output) -> Style {
        var pen = Style.plain
        var cursor: Point? = nil
        let width = new.size.width
        func setPen(_ style: Style) {
            if style != pen {
                output.append(sgr(style))
                pen = style
            }
        }
        for y in 0..<new.size.height {
            guard let firstChange = (0..<width).first(where: { new[$0, y] != old[$0, y] }) else { continue }
            // From here to the end of the row everything is written: the first cell of
            // uncertain width in either frame, when something from it on changed.
            var rewriteFrom = width
            if let uncertain = (0..<width).first(where: { !new[$0, y].hasCertainWidth || !old[$0, y].hasCertainWidth }),
                uncertain <= firstChange || (uncertain..<width).contains(where: { new[$0, y] != old[$0, y] })
            {
                rewriteFrom = uncertain
                // The cell is the second half of a wide character: start at its first half.
                if new[uncertain, y].isContinuation, uncertain > 0 { rewriteFrom = uncertain - 1 }
            }
            var x = min(firstChange, rewriteFrom)
            while x < width {
                let cell = new[x, y]
                if cell.isContinuation || (x < rewriteFrom && cell == old[x, y]) {
                    x += 1
                    continue
                }
                if cell.hasCertainWidth {
                    if let at = cursor, at.y == y, at.x < x {
                        output.append("\u{1B}[\(x - at.x == 1 ? "" : String(x - at.x))C")
                    } else if cursor != Point(x: x, y: y) {
                        output.moveCursor(to: Point(x: x, y: y))
                    }
                    setPen(cell.style)
                    cell.appendUTF8(to: &output.bytes)
                    x += cell.width
                    cursor = Point(x: x, y: y)
                } else {
                    output.moveCursor(to: Point(x: x, y: y))
                    setPen(cell.style)
                    output.append(String(repeating: " ", count: min(cell.width, width - x)))
                    output.moveCursor(to: Point(x: x, y: y))
                    cell.appendUTF8(to: &output.bytes)
                    x += cell.width
                    // Where the terminal's cursor is now depends on its width table.
                    cursor = nil
                }
            }
        }
        return pen
    }

    // MARK: - Styles

    private func sgr(_ style: Style) -> String {
        var codes = ["0"]
        let attributes = style.attributes
        if attributes.contains(.bold) { codes.append("1") }
        if attributes.contains(.dim) { codes.append("2") }
        if attributes.contains(.italic) { codes.append("3") }
        if attributes.contains(.underline) { codes.append("4") }
        if attributes.contains(.reverse) { codes.append("7") }
        if let foreground = colorCodes(style.foreground, background: false) { codes.append(foreground) }
        if let background = colorCodes(style.background, background: true) { codes.append(background) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private func colorCodes(_ color: Color, background: Bool) -> String? {
        let color = converted(color)
        switch color {
        case .default: return nil
        case .ansi(let n):
            let base = n < 8 ? (background ? 40 : 30) : (background ? 100 : 90)
            return String(base + Int(n % 8))
        case .indexed(let n): return (background ? "48;5;" : "38;5;") + String(n)
        case .rgb(let r, let g, let b): return (background ? "48;2;" : "38;2;") + "\(r);\(g);\(b)"
        }
    }

    /// `color` as the terminal can show it.
    func converted(_ color: Color) -> Color {
        switch (colorMode, color) {
        case (.monochrome, _): return .default
        case (_, .default), (_, .ansi): return color
        case (.truecolor, _): return color
        case (.indexed256, .indexed): return color
        case (.indexed256, .rgb(let r, let g, let b)): return .indexed(Self.indexed(r, g, b))
        case (.ansi16, .indexed(let n)): return .ansi(Self.ansi(fromIndexed: n))
        case (.ansi16, .rgb(let r, let g, let b)): return .ansi(Self.ansi(r, g, b))
        }
    }

    /// The nearest colour of the 6×6×6 cube or the grey ramp.
    static func indexed(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        if r == g, g == b {
            if r < 8 { return 16 }
            if r > 248 { return 231 }
            return UInt8(232 + (Int(r) - 8) * 24 / 241)
        }
        func level(_ v: UInt8) -> Int { v < 48 ? 0 : v < 115 ? 1 : (Int(v) - 35) / 40 }
        return UInt8(16 + 36 * level(r) + 6 * level(g) + level(b))
    }

    static func ansi(fromIndexed n: UInt8) -> UInt8 {
        switch n {
        case 0..<16: return n
        case 232...255:
            let grey = Int(n - 232) * 10 + 8
            return grey < 60 ? 0 : grey < 150 ? 8 : grey < 220 ? 7 : 15
        default:
            let value = Int(n) - 16
            func channel(_ level: Int) -> UInt8 { level == 0 ? 0 : UInt8(55 + level * 40) }
            return ansi(channel(value / 36), channel(value / 6 % 6), channel(value % 6))
        }
    }

    /// The nearest of the 16 ANSI colours, by hue and brightness.
    static func ansi(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let maximum = max(r, g, b)
        let minimum = min(r, g, b)
        if Int(maximum) - Int(minimum) < 40 {
            return maximum < 60 ? 0 : maximum < 150 ? 8 : maximum < 220 ? 7 : 15
        }
        let threshold = (Int(maximum) + Int(minimum)) / 2
        let bits = (Int(r) > threshold ? 1 : 0) | (Int(g) > threshold ? 2 : 0) | (Int(b) > threshold ? 4 : 0)
        return UInt8(bits) + (maximum > 200 ? 8 : 0)
    }
}

/// Bytes of one frame under construction.
struct Output {
    var bytes: [UInt8] = []

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func moveCursor(to point: Point) {
        append("\u{1B}[\(point.y + 1);\(point.x + 1)H")
    }
}
