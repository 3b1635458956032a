internal import Synchronization

/// A grid of cells that views draw into; the renderer turns it into terminal output and
/// tests read it back as text.
///
/// Every string is sanitized before it is stored, and clipped to `clip` and to the width
/// given, by display width. Value type; not shared between threads while drawn.
public struct Canvas: Hashable, Sendable {
    /// The canvas's size in cells, fixed at creation (negative sides become zero).
    public private(set) var size: Size
    private var cells: [Cell]
    /// Drawing outside this rectangle is ignored.
    public var clip: Rect
    /// Where the terminal cursor should show (for a text field), or nil to hide it.
    public var cursor: Point?

    /// A blank canvas.
    public init(size: Size) {
        let size = Size(width: max(0, size.width), height: max(0, size.height))
        self.size = size
        cells = Array(repeating: .blank, count: size.width * size.height)
        clip = Rect(origin: .zero, size: size)
    }

    /// The cell at column `x`, row `y`. Both must be within `size`: reading outside it stops
    /// the program.
    public subscript(x: Int, y: Int) -> Cell {
        cells[y * size.width + x]
    }

    /// Runs `body` with drawing clipped to `rect` (within the current clip).
    @discardableResult
    public mutating func withClip<T>(_ rect: Rect, _ body: (inout Canvas) throws -> T) rethrows -> T {
        let saved = clip
        clip = clip.intersection(rect)
        defer { clip = saved }
        return try body(&self)
    }

    /// Fills `rect` with blanks in `style`.
    public mutating func fill(_ rect: Rect, style: Style = .plain) {
        let area = rect.intersection(clip)
        guard !area.isEmpty else { return }
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX { put(Cell(scalar: 0x20, style: style), x: x, y: y) }
        }
    }

    /// Changes the style of the cells in `rect`, keeping their text.
    public mutating func restyle(_ rect: Rect, _ transform: (inout Style) -> Void) {
        let area = rect.intersection(clip)
        guard !area.isEmpty else { return }
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX { transform(&cells[y * size.width + x].style) }
        }
    }

    /// Draws `text` on one line from `point`, sanitized, cut to `width` columns (the clip's
    /// edge when nil) with an ellipsis when it does not fit. Returns the columns used.
    @discardableResult
    public mutating func draw(_ text: String, at point: Point, style: Style = .plain, width: Int? = nil)
        -> Int
    {
        let available = min(width ?? Int.max, clip.maxX - point.x)
        guard available > 0, point.y >= clip.y, point.y < clip.maxY else { return 0 }
        let fitted = TextLayout.truncate(Sanitizer.sanitize(text), to: available)
        if fitted.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII (already free of controls): one cell per byte.
            var x = point.x
            for byte in fitted.utf8 {
                if x >= clip.x { put(Cell(scalar: UInt32(byte), style: style), x: x, y: point.y) }
                x += 1
            }
            return x - point.x
        }
        var x = point.x
        for character in fitted {
            let columns = DisplayWidth.of(character)
            if columns == 0 {
                // A lone combining mark or format character has no cell of its own.
                continue
            }
            if x >= clip.x, x + columns <= clip.maxX {
                put(Cell(String(character), style: style), x: x, y: point.y)
                if columns == 2 { put(Cell(scalar: 0, style: style), x: x + 1, y: point.y) }
            } else if x < clip.maxX, x + columns > clip.x {
                // A wide character cut by the clip edge: show the visible half as blank.
                for column in max(x, clip.x)..<min(x + columns, clip.maxX) {
                    put(Cell(" ", style: style), x: column, y: point.y)
                }
            }
            x += columns
        }
        return x - point.x
    }

    /// Copies `other` into this canvas with its origin at `point` (within the clip).
    public mutating func draw(_ other: Canvas, at point: Point) {
        for y in 0..<other.size.height {
            for x in 0..<other.size.width {
                let target = Point(x: point.x + x, y: point.y + y)
                if clip.contains(target) { put(other[x, y], x: target.x, y: target.y) }
            }
        }
    }

    /// Stores a cell, repairing wide characters it overlaps so no half-character remains.
    private mutating func put(_ cell: Cell, x: Int, y: Int) {
        let index = y * size.width + x
        // Over the second half of a wide character: its first half becomes a blank.
        if cells[index].isContinuation, !cell.isContinuation, x > 0 {
            cells[index - 1] = Cell(scalar: 0x20, style: cells[index - 1].style)
        }
        // Over the first half: its orphaned second half becomes a blank.
        if x + 1 < size.width, cells[index + 1].isContinuation {
            cells[index + 1] = Cell(scalar: 0x20, style: cells[index + 1].style)
        }
        cells[index] = cell
    }

    /// A hash of row `y`'s cells, to find lines that moved.
    func rowHash(_ y: Int) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for x in y * size.width..<(y + 1) * size.width {
            hash = (hash ^ cells[x].mixed) &* 0x0000_0100_0000_01B3
            hash ^= hash >> 29
        }
        return Int(truncatingIfNeeded: hash)
    }

    /// Moves rows `top...bottom` up by `shift` lines (down when negative), as a terminal
    /// scroll region does: lines scrolled in are blank.
    mutating func scrollRows(top: Int, bottom: Int, by shift: Int) {
        let width = size.width
        let region = Array(cells[top * width..<(bottom + 1) * width])
        let rows = bottom - top + 1
        for row in 0..<rows {
            let source = row + shift
            for x in 0..<width {
                cells[(top + row) * width + x] = source >= 0 && source < rows ? region[source * width + x] : .blank
            }
        }
    }

    // MARK: - Reading back

    /// The text of each row, wide characters once, trailing spaces kept.
    public var lines: [String] {
        (0..<size.height).map { line($0) }
    }

    /// The text of row `y`.
    public func line(_ y: Int) -> String {
        var text = ""
        for x in 0..<size.width where !self[x, y].isContinuation { text += self[x, y].text }
        return text
    }
}
