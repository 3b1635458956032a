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
    public private(set) var text: String = ""
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
    /// Called after every edit made by a key or paste (not by `setText`).
    public var onChange: (@MainActor (String) -> Void)?
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
        text = Self.normalizedLineBreaks(newText)
        cursor = text.count
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
        /// The characters drawn, sanitized.
        public let text: String
    }

    /// The text broken into rows of at most `width` columns: at every line break, and at the
    /// last space that fits (a word wider than the row is split). Each row's `start`/`end` let
    /// the cursor be found in it; a cursor at a row's `end` belongs to the next row unless the
    /// row ends the text or a line.
    public static func rows(of text: String, width: Int) -> [Row] {
        let characters = Array(normalizedLineBreaks(text))
        let width = max(1, width)
        var rows: [Row] = []
        var start = 0
        while true {
            var index = start
            var columns = 0
            var lastSpace: Int?
            while index < characters.count, characters[index] != "\n" {
                let character = characters[index]
                let columnsOf = DisplayWidth.of(Sanitizer.sanitize(String(character)))
                if columns + columnsOf > width { break }
                if character == " " { lastSpace = index }
                columns += columnsOf
                index += 1
            }
            if index >= characters.count {
                rows.append(row(characters, start, characters.count, drawnEnd: characters.count))
                // A full last row: the cursor after it goes on a row of its own.
                if columns >= width, start < characters.count {
                    rows.append(row(characters, characters.count, characters.count, drawnEnd: characters.count))
                }
                return rows
            }
            if characters[index] == "\n" {
                rows.append(row(characters, start, index + 1, drawnEnd: index))
                start = index + 1
                continue
            }
            // The row is full: break after the last space, else split the word.
            if let lastSpace, lastSpace > start {
                rows.append(row(characters, start, lastSpace + 1, drawnEnd: lastSpace))
                start = lastSpace + 1
            } else {
                let end = max(index, start + 1)  // a character wider than the row still moves on
                rows.append(row(characters, start, end, drawnEnd: end))
                start = end
            }
        }
    }

    private static func row(_ characters: [Character], _ start: Int, _ end: Int, drawnEnd: Int) -> Row {
        Row(start: start, end: end, text: Sanitizer.sanitize(String(characters[start..<drawnEnd])))
    }

    /// The row and column (in display columns) of the cursor in `rows`.
    static func position(of cursor: Int, in rows: [Row], text characters: [Character]) -> (row: Int, column: Int) {
        for (index, row) in rows.enumerated() {
            let isLast = index == rows.count - 1
            // A cursor at the end of a wrapped row is drawn at the start of the next one; at
            // the end of a line (before its line break) it stays on the line.
            let endsLine = row.end > row.start && characters[row.end - 1] == "\n"
            if cursor < row.end || isLast || (endsLine && cursor == row.end - 1) {
                let before = String(characters[row.start..<min(max(cursor, row.start), row.end)])
                return (index, DisplayWidth.of(Sanitizer.sanitize(before.replacingLineBreaks())))
            }
        }
        return (0, 0)
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
        var characters = Array(text)
        cursor = min(cursor, characters.count)
        let control = event.modifiers.contains(.control)
        let alt = event.modifiers.contains(.alt)
        if event.key == .up || event.key == .down {
            return moveVertically(down: event.key == .down, characters: characters)
        }
        goalColumn = nil
        let rows = Self.rows(of: text, width: fieldWidth)
        let current = Self.position(of: cursor, in: rows, text: characters).row
        switch event.key {
        case .character(let c) where control:
            switch c {
            case "a": cursor = rows[current].start
            case "e":
                cursor = Self.index(
                    atColumn: .max, in: rows[current], text: characters, isLast: current == rows.count - 1)
            case "u":
                let start = lineStart(before: cursor, in: characters)
                characters.removeSubrange(start..<cursor)
                cursor = start
            case "k":
                let end = characters[cursor...].firstIndex(of: "\n") ?? characters.count
                // At a line's end, Ctrl-K joins the next line.
                characters.removeSubrange(cursor..<(end == cursor ? min(end + 1, characters.count) : end))
            case "w":
                let start = Self.wordStart(before: cursor, in: characters)
                characters.removeSubrange(start..<cursor)
                cursor = start
            case "d":
                guard cursor < characters.count else { return true }
                characters.remove(at: cursor)
            default: return false
            }
        case .character(let c) where !alt:
            guard characters.count < maximumLength else { return true }
            characters.insert(c, at: cursor)
            cursor += 1
        case .enter:
            guard characters.count < maximumLength else { return true }
            characters.insert("\n", at: cursor)
            cursor += 1
        case .backspace:
            if alt || control {
                let start = Self.wordStart(before: cursor, in: characters)
                characters.removeSubrange(start..<cursor)
                cursor = start
            } else if cursor > 0 {
                characters.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete:
            if cursor < characters.count { characters.remove(at: cursor) }
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
        commit(characters)
        return true
    }

    private func moveVertically(down: Bool, characters: [Character]) -> Bool {
        let rows = Self.rows(of: text, width: fieldWidth)
        let position = Self.position(of: cursor, in: rows, text: characters)
        let target = position.row + (down ? 1 : -1)
        guard target >= 0, target < rows.count else { return false }
        let column = goalColumn ?? position.column
        cursor = Self.index(atColumn: column, in: rows[target], text: characters, isLast: target == rows.count - 1)
        goalColumn = column
        setNeedsDisplay()
        return true
    }

    /// Inserts pasted text at the cursor, line breaks kept.
    public func paste(_ pasted: String) {
        var characters = Array(text)
        let insert = Array(Self.normalizedLineBreaks(pasted)).prefix(max(0, maximumLength - characters.count))
        cursor = min(cursor, characters.count)
        characters.insert(contentsOf: insert, at: cursor)
        cursor += insert.count
        goalColumn = nil
        commit(characters)
    }

    /// Makes `characters` the text; characters typed one by one may join (a combining mark
    /// joins the character before it), so the cursor is counted again in the joined text.
    private func commit(_ characters: [Character]) {
        let newText = String(characters)
        cursor = min(String(characters.prefix(cursor)).count, newText.count)
        let changed = newText != text
        text = newText
        setNeedsDisplay()
        if changed { onChange?(newText) }
    }

    private func lineStart(before index: Int, in characters: [Character]) -> Int {
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
        guard text.contains(where: { $0 == "\r" || $0 == "\r\n" }) else { return text }
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
        if text.isEmpty, !placeholder.isEmpty {
            canvas.draw(placeholder, at: Point(x: fieldX, y: frame.y), style: placeholderStyle, width: width)
        }
        let rows = Self.rows(of: text, width: width)
        let position = Self.position(of: cursor, in: rows, text: Array(text))
        if position.row < scroll { scroll = position.row }
        if position.row >= scroll + frame.height { scroll = position.row - frame.height + 1 }
        scroll = max(0, min(scroll, rows.count - 1))
        for (offset, row) in rows.dropFirst(scroll).prefix(frame.height).enumerated() {
            canvas.draw(row.text, at: Point(x: fieldX, y: frame.y + offset), style: style, width: width)
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
