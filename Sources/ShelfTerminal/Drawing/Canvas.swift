internal import Synchronization

/// One cell of a canvas: a grapheme and its style.
///
/// A wide grapheme occupies its cell and the next one, which holds an empty `text`
/// (a continuation cell). A cell is plain data with no references: a grapheme of one Unicode
/// scalar (nearly all text) is kept as that scalar, and a longer one (an emoji sequence, a
/// letter with combining marks) as its number in a shared table. Copying, comparing and
/// hashing cells, which the renderer does for every cell of every frame, is then cheap.
public struct Cell: Hashable, Sendable {
    /// The grapheme's only scalar; 0 for a continuation; `clusterFlag | n` for the n-th
    /// grapheme of `GraphemeTable`.
    private var code: UInt32
    /// How the cell is drawn.
    public var style: Style

    private static let clusterFlag: UInt32 = 0x8000_0000

    /// A cell showing `text`, which should be one grapheme; "" makes a continuation cell. The
    /// text is stored as given (not sanitized): draw through `Canvas` for sanitized text.
    public init(_ text: String = " ", style: Style = .plain) {
        self.style = style
        let scalars = text.unicodeScalars
        if scalars.isEmpty {
            code = 0
        } else if scalars.count == 1, let first = scalars.first {
            code = first.value
        } else {
            code = Self.clusterFlag | GraphemeTable.shared.number(for: text)
        }
    }

    /// A cell of one single-scalar character (0 for a continuation).
    init(scalar: UInt32, style: Style) {
        self.code = scalar
        self.style = style
    }

    /// A plain space: what a new canvas is filled with.
    public static let blank = Cell(scalar: 0x20, style: .plain)

    /// The grapheme shown, or "" for the second cell of a wide grapheme.
    public var text: String {
        get {
            if code & Self.clusterFlag != 0 { return GraphemeTable.shared.grapheme(code & ~Self.clusterFlag) }
            if code == 0 { return "" }
            return Unicode.Scalar(code).map { String(Character($0)) } ?? ""
        }
        set { self = Cell(newValue, style: style) }
    }

    /// True for the second cell of a wide grapheme.
    public var isContinuation: Bool { code == 0 }

    /// Columns the grapheme takes (1 or 2; 0 for a continuation).
    var width: Int {
        if code < 0x7F { return code == 0 ? 0 : 1 }
        return max(1, DisplayWidth.of(Character(text)))
    }

    /// Whether every terminal draws this cell in `width` columns (`DisplayWidth.isCertain`);
    /// true for a continuation.
    var hasCertainWidth: Bool {
        if code < 0x7F { return code == 0 || code >= 0x20 }
        if code & Self.clusterFlag != 0 { return false }
        return Unicode.Scalar(code).map(DisplayWidth.isCertain) ?? false
    }

    /// A cheap hash of the cell, for finding rows that moved.
    var mixed: UInt64 {
        UInt64(code) &* 0x9E37_79B9_7F4A_7C15 ^ style.packed
    }

    /// Appends the grapheme's UTF-8 bytes.
    func appendUTF8(to bytes: inout [UInt8]) {
        if code < 0x80 {
            bytes.append(UInt8(code))
        } else {
            bytes.append(contentsOf: text.utf8)
        }
    }
}

/// Graphemes of several scalars, numbered so cells can hold them as plain numbers.
/// Grows only with distinct graphemes drawn (a handful in practice). Thread-safe.
final class GraphemeTable: Sendable {
    static let shared = GraphemeTable()

    private struct Storage {
        var numbers: [String: UInt32] = [:]
        var graphemes: [String] = []
    }

    private let storage = Mutex(Storage())

    func number(for grapheme: String) -> UInt32 {
        storage.withLock { storage in
            if let number = storage.numbers[grapheme] { return number }
            let number = UInt32(storage.graphemes.count)
            storage.graphemes.append(grapheme)
            storage.numbers[grapheme] = number
            return number
        }
    }

    func grapheme(_ number: UInt32) -> String {
        storage.withLock { $0.graphemes[Int(number)] }
    }
}

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

/// Fitting text into columns.
public enum TextLayout {
    /// `text` cut to at most `width` columns, ending in "…" when it was cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            let count = text.utf8.count
            return count <= width ? text : String(text.utf8.prefix(width - 1))! + "…"
        }
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
        /// Text starts at the left edge (`leading`), is centred with any odd cell on the right
        /// (`center`), or ends at the right edge (`trailing`).
        case leading, center, trailing
    }
}
