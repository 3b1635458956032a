/// One cell of a canvas: a grapheme and its style.
///
/// A wide grapheme occupies its cell and the next one, which holds an empty `text`
/// (a continuation cell).
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style

    public init(_ text: String = " ", style: Style = .plain) {
        self.text = text
        self.style = style
    }

    public static let blank = Cell()

    /// True for the second cell of a wide grapheme.
    public var isContinuation: Bool { text.isEmpty }
}

/// A grid of cells that views draw into; the renderer turns it into terminal output and
/// tests read it back as text.
///
/// Every string is sanitized before it is stored, and clipped to `clip` and to the width
/// given, by display width. Value type; not shared between threads while drawn.
public struct Canvas: Hashable, Sendable {
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
            for x in area.x..<area.maxX { put(Cell(" ", style: style), x: x, y: y) }
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
    public mutating func draw(_ text: some StringProtocol, at point: Point, style: Style = .plain, width: Int? = nil)
        -> Int
    {
        let available = min(width ?? Int.max, clip.maxX - point.x)
        guard available > 0, point.y >= clip.y, point.y < clip.maxY else { return 0 }
        let fitted = TextLayout.truncate(Sanitizer.sanitize(text), to: available)
        var x = point.x
        for character in fitted {
            let columns = DisplayWidth.of(character)
            if columns == 0 {
                // A lone combining mark or format character has no cell of its own.
                continue
            }
            if x >= clip.x, x + columns <= clip.maxX {
                put(Cell(String(character), style: style), x: x, y: point.y)
                if columns == 2 { put(Cell("", style: style), x: x + 1, y: point.y) }
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
        if cells[index].isContinuation, !cell.isContinuation, x > 0 { cells[index - 1].text = " " }
        // Over the first half: its orphaned second half becomes a blank.
        if x + 1 < size.width, cells[index + 1].isContinuation { cells[index + 1].text = " " }
        cells[index] = cell
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

/// Fitting text into columns.
public enum TextLayout {
    /// `text` cut to at most `width` columns, ending in "…" when it was cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        var used = 0
        var index = text.startIndex
        // Where the text is cut if it does not fit: the last point with room for "…".
        var cut = text.startIndex
        while index < text.endIndex {
            used += DisplayWidth.of(text[index])
            if used > width { return text[..<cut] + "…" }
            index = text.index(after: index)
            if used <= width - 1 { cut = index }
        }
        return text
    }

    /// `text` padded with spaces (or truncated) to exactly `width` columns.
    public static func pad(_ text: String, to width: Int, alignment: Alignment = .leading) -> String {
        let fitted = truncate(text, to: width)
        let gap = max(0, width - DisplayWidth.of(fitted))
        switch alignment {
        case .leading: return fitted + String(repeating: " ", count: gap)
        case .trailing: return String(repeating: " ", count: gap) + fitted
        case .center:
            return String(repeating: " ", count: gap / 2) + fitted + String(repeating: " ", count: gap - gap / 2)
        }
    }

    /// Horizontal alignment of text in its space.
    public enum Alignment: Hashable, Sendable {
        case leading, center, trailing
    }
}
