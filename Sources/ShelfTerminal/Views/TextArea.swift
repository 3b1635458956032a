/// Several lines of editable text with a cursor, wrapped to the frame's width.
///
/// Keys: printable characters insert; Enter inserts a line break; ←/→ move by character
/// (grapheme), ↑/↓ by displayed row keeping the column, Home/End (Ctrl-A/Ctrl-E) to the
/// start and end of the displayed row, Ctrl-Home/Ctrl-End to the start and end of the text;
/// Backspace and Delete (Ctrl-D) erase; Ctrl-U erases to the start of the line, Ctrl-K to its
/// end, Ctrl-W the word before the cursor. A paste inserts its text, line breaks kept (CR LF
/// and CR become LF). ↑ on the first row and ↓ on the last are not handled, so a form can move
/// to the field before or after.
///
/// Lines wrap at spaces where they can, measured in display columns (`DisplayWidth`), and are
/// drawn sanitized (`Sanitizer`): an escape sequence, a bidi control or U+2028 in the text
/// shows as a visible symbol in its place and the cursor stays where the text is. The view
/// scrolls to keep the cursor's row visible.
@MainActor
public final class TextArea: View {
    /// The text being edited; "\n" separates lines. Change it with `setText(_:)` or by keys.
    /// Made from the characters when asked (O(n) once per edit, not per key when not asked).
    public var text: String {
        if let cachedText { return cachedText }
        let text = String(characters)
        cachedText = text
        return text
    }
    /// The text's characters: what keys edit, in place.
    private var characters: [Character] = []
    /// What a layout reads of each character (`columns(of:)`), kept beside `characters`: a
    /// layout at a new width (a resize) reads these and not the characters (hostile round 11:
    /// each resize of the editor over 6.3 MB of notes blocked 3-4 s).
    private var widths: [UInt8] = []
    /// `text`, once made since the last edit.
    private var cachedText: String? = ""
    /// The rows at the width they were laid out for; an edit lays out again only the lines it
    /// touched, so a key costs in proportion to its line, not to the whole text.
    private var layout: (width: Int, rows: [Row])?
    /// How many characters were laid out into rows, in all (for tests of editing cost).
    package private(set) var laidOutCharacters = 0
    /// The rows as laid out now, nil before the first draw (for tests).
    package var layoutRows: [Row]? { layout?.rows }
    /// The cursor, as a count of characters (graphemes) before it.
    public private(set) var cursor = 0
    /// Text shown in `placeholderStyle` while `text` is empty. Setting it redraws.
    public var placeholder: String { didSet { setNeedsDisplay() } }
    /// Text drawn before the first row, e.g. "Notes     "; later rows are indented as much.
    public var prompt: String { didSet { setNeedsDisplay() } }
    /// The style of the prompt and text. Takes effect at the next draw.
    public var style: Style = .plain
    /// The style of the placeholder. Takes effect at the next draw.
    public var placeholderStyle = Style(attributes: .dim)
    /// Whether the area has the focus: the terminal cursor shows in it only then. Keys reach
    /// it only through `handle(_:)`, called by its controller.
    public var isFocused = false { didSet { if isFocused != oldValue { setNeedsDisplay() } } }
    /// Longest text accepted, in characters.
    public var maximumLength = 100_000
    /// Called when a key or a paste is refused, whole or in part, because the text holds
    /// `maximumLength` characters: nothing past it is typed, and the controller says so.
    public var onFull: (@MainActor () -> Void)?
    /// Called after every edit made by a key or paste (not by `setText`), with the text: this
    /// makes the whole text each time; prefer `onEdit` for long texts.
    public var onChange: (@MainActor (String) -> Void)?
    /// Called after every edit made by a key or paste (not by `setText`), without the text:
    /// read `text` when it is needed.
    public var onEdit: (@MainActor () -> Void)?
    /// The first displayed row shown (scrolling).
    public private(set) var scroll = 0
    /// The column a run of ↑/↓ keeps to, so passing a short row does not lose it.
    private var goalColumn: Int?

    /// An empty area (`length` is `.flexible()`), not focused.
    public init(prompt: String = "", placeholder: String = "") {
        self.prompt = prompt
        self.placeholder = placeholder
        super.init()
    }

    /// Replaces the text (CR LF and CR become LF) and puts the cursor at its end.
    public func setText(_ newText: String) {
        let text = Self.normalizedLineBreaks(newText)
        characters = Array(text)
        widths = Self.columns(of: characters)
        cachedText = text
        layout = nil
        cursor = characters.count
        goalColumn = nil
        setNeedsDisplay()
    }

    // MARK: - Layout

    /// One displayed row: the characters `start..<end` of the text, `width` columns wide.
    public struct Row: Hashable, Sendable {
        /// The index of the row's first character in the text.
        public let start: Int
        /// The index after the row's last character (a line break or wrapping space ending the
        /// row belongs to it but is not drawn).
        public let end: Int
        /// The index after the last character drawn (`end`, or one before it when a line
        /// break or wrapping space ends the row). The row's text is made when it is drawn: a
        /// layout makes none (making every row's text cost each layout of long notes the
        /// whole text again).
        public let drawnEnd: Int

        /// The row `start..<end`, drawn up to `drawnEnd`.
        public init(start: Int, end: Int, drawnEnd: Int) {
            self.start = start
            self.end = end
            self.drawnEnd = drawnEnd
        }

        /// The characters drawn of `characters` (the text's), sanitized.
        func text(of characters: [Character]) -> String {
            Sanitizer.sanitize(String(characters[start..<drawnEnd]))
        }
    }

    /// The text broken into rows of at most `width` columns: at every line break, and at the
    /// last space that fits (a word wider than the row is split). Each row's `start`/`end` let
    /// the cursor be found in it; a cursor at a row's `end` belongs to the next row unless the
    /// row ends the text or a line.
    public static func rows(of text: String, width: Int) -> [Row] {
        let characters = Array(normalizedLineBreaks(text))
        return layOut(columns(of: characters), from: 0, through: .max, width: width)
    }

    /// A line break's code in `columns(of:)`.
    static let lineBreak: UInt8 = 0xFF
    /// A space's code in `columns(of:)` (one column, where a row may break).
    static let space: UInt8 = 0xFE

    /// What a layout needs of each character, so it reads no `Character` (comparing them cost
    /// a layout of 6.3 MB of notes most of its time): `lineBreak`, `space`, else the display
    /// columns it takes drawn (printable ASCII 1 without a look at anything else).
    static func columns(of characters: some Collection<Character>) -> [UInt8] {
        var codes: [UInt8] = []
        codes.reserveCapacity(characters.count)
        for character in characters {
            if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F {
                codes.append(ascii == 0x20 ? space : 1)
            } else if character == "\n" {
                codes.append(lineBreak)
            } else {
                codes.append(UInt8(clamping: min(0xFD, DisplayWidth.of(Sanitizer.sanitize(String(character))))))
            }
        }
        return codes
    }

    /// The rows of the lines from `start` (a line's first character) to the end of the line
    /// holding `limit` (or of the text).
    static func layOut(_ codes: [UInt8], from start: Int, through limit: Int, width: Int) -> [Row] {
        let width = max(1, width)
        let count = codes.count
        var rows: [Row] = []
        var start = start
        while true {
            var index = start
            var columns = 0
            var lastSpace: Int?
            while index < count, codes[index] != lineBreak {
                let code = codes[index]
                let columnsOf = code == space ? 1 : Int(code)
                if columns + columnsOf > width { break }
                if code == space { lastSpace = index }
                columns += columnsOf
                index += 1
            }
            if index >= count {
                rows.append(Row(start: start, end: count, drawnEnd: count))
                // A full last row: the cursor after it goes on a row of its own.
                if columns >= width, start < count {
                    rows.append(Row(start: count, end: count, drawnEnd: count))
                }
                return rows
            }
            if codes[index] == lineBreak {
                rows.append(Row(start: start, end: index + 1, drawnEnd: index))
                start = index + 1
                if index >= limit { return rows }
                continue
            }
            // The row is full: break after the last space, else split the word.
            if let lastSpace, lastSpace > start {
                rows.append(Row(start: start, end: lastSpace + 1, drawnEnd: lastSpace))
                start = lastSpace + 1
            } else {
                let end = max(index, start + 1)  // a character wider than the row still moves on
                rows.append(Row(start: start, end: end, drawnEnd: end))
                start = end
            }
        }
    }

    /// The row and column (in display columns) of the cursor in `rows`.
    static func position(of cursor: Int, in rows: [Row], text characters: [Character]) -> (row: Int, column: Int) {
        guard !rows.isEmpty else { return (0, 0) }
        // Rows follow each other (each starts where the one before ends): the cursor's row is
        // the last that starts at or before it. A cursor at the end of a wrapped row is drawn
        // at the start of the next one; at the end of a line (before its line break) it stays
        // on the line, which holds it.
        var low = 0
        var high = rows.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if rows[middle].start <= cursor { low = middle } else { high = middle - 1 }
        }
        let row = rows[low]
        let before = String(characters[row.start..<min(max(cursor, row.start), row.end)])
        return (low, DisplayWidth.of(Sanitizer.sanitize(before.replacingLineBreaks())))
    }

    /// The character index in `row` nearest to display column `column`, never past the
    /// row's line break or wrapping space.
    static func index(atColumn column: Int, in row: Row, text characters: [Character], isLast: Bool) -> Int {
        let last = isLast ? row.end : max(row.start, row.end - 1)
        var columns = 0
        var index = row.start
        while index < last {
            let width = DisplayWidth.of(Sanitizer.sanitize(String(characters[index])))
            if columns + width > column { break }
            columns += width
            index += 1
        }
        return index
    }

    private var fieldWidth: Int { max(1, frame.width - DisplayWidth.of(prompt)) }

    // MARK: - Keys

    /// Applies an editing key; false when the key is not one (and for ↑ on the first row
    /// and ↓ on the last, so the form can move focus).
    public func handle(_ event: KeyEvent) -> Bool {
        cursor = min(cursor, characters.count)
        let control = event.modifiers.contains(.control)
        let alt = event.modifiers.contains(.alt)
        if event.key == .up || event.key == .down {
            return moveVertically(down: event.key == .down)
        }
        goalColumn = nil
        let rows = currentRows
        let current = Self.position(of: cursor, in: rows, text: characters).row
        switch event.key {
        case .character(let c) where control:
            switch c {
            case "a": cursor = rows[current].start
            case "e":
                cursor = Self.index(
                    atColumn: .max, in: rows[current], text: characters, isLast: current == rows.count - 1)
            case "u":
                let start = lineStart(before: cursor)
                replace(start..<cursor, with: [], cursor: start)
            case "k":
                let end = characters[cursor...].firstIndex(of: "\n") ?? characters.count
                // At a line's end, Ctrl-K joins the next line.
                replace(cursor..<(end == cursor ? min(end + 1, characters.count) : end), with: [], cursor: cursor)
            case "w":
                let start = Self.wordStart(before: cursor, in: characters)
                replace(start..<cursor, with: [], cursor: start)
            case "d":
                guard cursor < characters.count else { return true }
                replace(cursor..<cursor + 1, with: [], cursor: cursor)
            default: return false
            }
        case .character(let c) where !alt:
            guard characters.count < maximumLength else {
                onFull?()
                return true
            }
            insert([c])
        case .enter:
            guard characters.count < maximumLength else {
                onFull?()
                return true
            }
            insert(["\n"])
        case .backspace:
            if alt || control {
                let start = Self.wordStart(before: cursor, in: characters)
                replace(start..<cursor, with: [], cursor: start)
            } else if cursor > 0 {
                replace(cursor - 1..<cursor, with: [], cursor: cursor - 1)
            }
        case .delete:
            if cursor < characters.count { replace(cursor..<cursor + 1, with: [], cursor: cursor) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home: cursor = control ? 0 : rows[current].start
        case .end:
            cursor =
                control
                ? characters.count
                : Self.index(atColumn: .max, in: rows[current], text: characters, isLast: current == rows.count - 1)
        default: return false
        }
        setNeedsDisplay()
        return true
    }

    private func moveVertically(down: Bool) -> Bool {
        let rows = currentRows
        let position = Self.position(of: cursor, in: rows, text: characters)
        let target = position.row + (down ? 1 : -1)
        guard target >= 0, target < rows.count else { return false }
        let column = goalColumn ?? position.column
        cursor = Self.index(atColumn: column, in: rows[target], text: characters, isLast: target == rows.count - 1)
        goalColumn = column
        setNeedsDisplay()
        return true
    }

    /// The rows at the current width, laid out now if the width changed or nothing was.
    private var currentRows: [Row] { rows(width: fieldWidth) }

    private func rows(width: Int) -> [Row] {
        if let layout, layout.width == width { return layout.rows }
        let rows = Self.layOut(widths, from: 0, through: .max, width: width)
        laidOutCharacters += characters.count
        layout = (width, rows)
        return rows
    }

    /// Inserts `inserted` at the cursor and moves the cursor after it. Characters typed one by
    /// one may join (a combining mark joins the character before it): they are kept as the
    /// text would count them.
    private func insert(_ inserted: [Character]) {
        if cursor > 0, let first = inserted.first {
            let joined = String(characters[cursor - 1]) + String(first)
            if joined.count == 1, let character = joined.first {
                replace(
                    cursor - 1..<cursor, with: [character] + inserted.dropFirst(), cursor: cursor - 1 + inserted.count)
                return
            }
        }
        replace(cursor..<cursor, with: inserted, cursor: cursor + inserted.count)
    }

    /// Replaces the characters in `range` with `replacement`, puts the cursor at `newCursor`,
    /// and lays out again only the lines the change touched.
    private func replace(_ range: Range<Int>, with replacement: [Character], cursor newCursor: Int) {
        guard !(range.isEmpty && replacement.isEmpty) else {
            cursor = newCursor
            return
        }
        characters.replaceSubrange(range, with: replacement)
        widths.replaceSubrange(range, with: Self.columns(of: replacement))
        cursor = min(newCursor, characters.count)
        cachedText = nil
        if let layout {
            let delta = replacement.count - range.count
            let start = lineStart(before: range.lowerBound)
            // The end of the (last) line the change touched, now and before it.
            let editedEnd = range.lowerBound + replacement.count
            let end = characters[editedEnd...].firstIndex(of: "\n") ?? characters.count
            let oldEnd = end - delta
            var rows = layout.rows
            let first = rows.firstIndex { $0.start >= start } ?? rows.count
            var after = first
            // The old rows of those lines: from the first line's start to the old end (at the
            // text's end, every row left, the empty one after a full last row included).
            while after < rows.count, rows[after].start <= oldEnd { after += 1 }
            let fresh = Self.layOut(widths, from: start, through: end, width: layout.width)
            laidOutCharacters += (fresh.last?.end ?? start) - start
            if delta != 0 {
                for index in after..<rows.count {
                    rows[index] = Row(
                        start: rows[index].start + delta, end: rows[index].end + delta,
                        drawnEnd: rows[index].drawnEnd + delta)
                }
            }
            rows.replaceSubrange(first..<after, with: fresh)
            self.layout = (layout.width, rows)
        }
        setNeedsDisplay()
        onEdit?()
        if let onChange { onChange(text) }
    }

    /// Inserts pasted text at the cursor, line breaks kept.
    public func paste(_ pasted: String) {
        let whole = Array(Self.normalizedLineBreaks(pasted))
        let insert = whole.prefix(max(0, maximumLength - characters.count))
        cursor = min(cursor, characters.count)
        goalColumn = nil
        self.insert(Array(insert))
        if insert.count < whole.count { onFull?() }
    }

    private func lineStart(before index: Int) -> Int {
        var i = index
        while i > 0, characters[i - 1] != "\n" { i -= 1 }
        return i
    }

    private static func wordStart(before index: Int, in characters: [Character]) -> Int {
        var i = index
        while i > 0, characters[i - 1] == " " || characters[i - 1] == "\n" { i -= 1 }
        while i > 0, characters[i - 1] != " ", characters[i - 1] != "\n" { i -= 1 }
        return i
    }

    static func normalizedLineBreaks(_ text: String) -> String {
        // A look at the bytes: no CR, nothing to do (reading Characters cost 6.3 MB of notes
        // a pass of grapheme breaking).
        guard text.utf8.contains(UInt8(ascii: "\r")) else { return text }
        return String(text.map { $0 == "\r\n" || $0 == "\r" ? "\n" : $0 })
    }

    // MARK: - Drawing

    /// Draws the prompt, then the rows that fit from `scroll` (scrolled so the cursor's row
    /// shows), or the placeholder, and sets the canvas cursor while `isFocused`.
    public override func draw(in canvas: inout Canvas) {
        guard frame.height > 0 else { return }
        let promptWidth = canvas.draw(prompt, at: frame.origin, style: style, width: frame.width)
        let fieldX = frame.x + promptWidth
        let width = frame.width - promptWidth
        canvas.fill(Rect(x: fieldX, y: frame.y, width: width, height: frame.height), style: style)
        guard width > 0 else { return }
        if characters.isEmpty, !placeholder.isEmpty {
            canvas.draw(placeholder, at: Point(x: fieldX, y: frame.y), style: placeholderStyle, width: width)
        }
        let rows = rows(width: width)
        let position = Self.position(of: cursor, in: rows, text: characters)
        if position.row < scroll { scroll = position.row }
        if position.row >= scroll + frame.height { scroll = position.row - frame.height + 1 }
        scroll = max(0, min(scroll, rows.count - 1))
        for (offset, row) in rows.dropFirst(scroll).prefix(frame.height).enumerated() {
            canvas.draw(row.text(of: characters), at: Point(x: fieldX, y: frame.y + offset), style: style, width: width)
        }
        if isFocused {
            canvas.cursor = Point(x: fieldX + min(position.column, width - 1), y: frame.y + position.row - scroll)
        }
    }
}

extension String {
    /// The text with line breaks as spaces, for measuring a row's part before the cursor.
    fileprivate func replacingLineBreaks() -> String {
        String(map { $0 == "\n" ? " " : $0 })
    }
}
