/// One line of editable text with a cursor.
///
/// Keys: printable characters insert; ←/→, Home/End (Ctrl-A/Ctrl-E) move; Backspace and
/// Delete (Ctrl-D) erase; Ctrl-U clears to the start, Ctrl-K to the end, Ctrl-W erases the
/// word before the cursor; Alt-←/→ move by word. A paste inserts its text with line breaks
/// turned into spaces. The text scrolls sideways to keep the cursor visible; the terminal
/// cursor shows there while `isFocused`.
@MainActor
public final class TextField: View {
    /// The text being edited, always a single line. Change it with `setText(_:)` or by keys.
    public private(set) var text: String = ""
    /// The cursor, as a count of characters before it.
    public private(set) var cursor = 0
    /// Text shown in `placeholderStyle` while `text` is empty. Setting it redraws.
    public var placeholder: String { didSet { setNeedsDisplay() } }
    /// Text drawn before the field, e.g. "/" or "Title: ".
    public var prompt: String { didSet { setNeedsDisplay() } }
    /// The style of the prompt and text. Takes effect at the next draw.
    public var style: Style = .plain
    /// The style of the placeholder. Takes effect at the next draw.
    public var placeholderStyle = Style(attributes: .dim)
    /// Whether the field has the focus: the terminal cursor is shown in it only then. The field
    /// does not receive keys by itself; its controller forwards them to `handle(_:)`.
    public var isFocused = false { didSet { if isFocused != oldValue { setNeedsDisplay() } } }
    /// Longest text accepted, in characters.
    public var maximumLength = 10_000
    /// Called after every edit made by a key or paste (not by `setText`).
    public var onChange: (@MainActor (String) -> Void)?
    private var scroll = 0

    /// An empty field one line high (`length` is `.fixed(1)`), not focused.
    public init(prompt: String = "", placeholder: String = "") {
        self.prompt = prompt
        self.placeholder = placeholder
        super.init()
        length = .fixed(1)
    }

    /// Replaces the text and puts the cursor at its end.
    public func setText(_ newText: String) {
        text = Self.singleLine(newText)
        cursor = text.count
        setNeedsDisplay()
    }

    /// Applies an editing key; false when the key is not an editing key.
    public func handle(_ event: KeyEvent) -> Bool {
        var characters = Array(text)
        cursor = min(cursor, characters.count)
        let control = event.modifiers.contains(.control)
        let alt = event.modifiers.contains(.alt)
        switch event.key {
        case .character(let c) where control:
            switch c {
            case "a": cursor = 0
            case "e": cursor = characters.count
            case "u":
                characters.removeSubrange(0..<cursor)
                cursor = 0
            case "k": characters.removeSubrange(cursor...)
            case "w":
                let start = Self.wordStart(before: cursor, in: characters)
                characters.removeSubrange(start..<cursor)
                cursor = start
            case "d":
                guard cursor < characters.count else { return true }
                characters.remove(at: cursor)
            case "b": cursor = max(0, cursor - 1)
            case "f": cursor = min(characters.count, cursor + 1)
            default: return false
            }
        case .character(let c) where !alt:
            guard characters.count < maximumLength else { return true }
            characters.insert(c, at: cursor)
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
        case .left:
            cursor = alt || control ? Self.wordStart(before: cursor, in: characters) : max(0, cursor - 1)
        case .right:
            cursor = alt || control ? Self.wordEnd(after: cursor, in: characters) : min(characters.count, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = characters.count
        default: return false
        }
        commit(characters)
        return true
    }

    /// Inserts pasted text at the cursor.
    public func paste(_ pasted: String) {
        var characters = Array(text)
        let insert = Array(Self.singleLine(pasted)).prefix(max(0, maximumLength - characters.count))
        cursor = min(cursor, characters.count)
        characters.insert(contentsOf: insert, at: cursor)
        cursor += insert.count
        commit(characters)
    }

    /// Makes `characters` the text. Characters typed one by one may join into fewer as a
    /// string (a combining mark or variation selector joins the character before it), so the
    /// cursor is counted again in the joined text.
    private func commit(_ characters: [Character]) {
        let newText = String(characters)
        cursor = min(String(characters.prefix(cursor)).count, newText.count)
        let changed = newText != text
        text = newText
        setNeedsDisplay()
        if changed { onChange?(newText) }
    }

    private static func singleLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" || $0 == "\t" ? " " : $0 })
    }

    private static func wordStart(before index: Int, in characters: [Character]) -> Int {
        var i = index
        while i > 0, characters[i - 1] == " " { i -= 1 }
        while i > 0, characters[i - 1] != " " { i -= 1 }
        return i
    }

    private static func wordEnd(after index: Int, in characters: [Character]) -> Int {
        var i = index
        while i < characters.count, characters[i] == " " { i += 1 }
        while i < characters.count, characters[i] != " " { i += 1 }
        return i
    }

    /// Draws the prompt, then the visible part of the text (or the placeholder), scrolled so
    /// the cursor is visible, and sets the canvas cursor while `isFocused`.
    public override func draw(in canvas: inout Canvas) {
        let promptWidth = canvas.draw(prompt, at: frame.origin, style: style, width: frame.width)
        let fieldX = frame.x + promptWidth
        let fieldWidth = frame.width - promptWidth
        canvas.fill(Rect(x: fieldX, y: frame.y, width: fieldWidth, height: 1), style: style)
        guard fieldWidth > 0 else { return }
        if text.isEmpty, !placeholder.isEmpty {
            canvas.draw(placeholder, at: Point(x: fieldX, y: frame.y), style: placeholderStyle, width: fieldWidth)
        }
        // Scroll so the cursor stays inside the field, measured in display columns.
        let characters = Array(Sanitizer.sanitize(text))
        let cursorColumn = DisplayWidth.of(String(characters.prefix(cursor)))
        if cursorColumn < scroll { scroll = cursorColumn }
        if cursorColumn >= scroll + fieldWidth { scroll = cursorColumn - fieldWidth + 1 }
        // No more scrolled than the text needs at this width (hostile round 11: widened after a
        // resize, the field kept the narrow width's scroll, its start out of sight and room
        // left empty after its end). The cursor at the end keeps its column.
        let needed = max(DisplayWidth.of(String(characters)), cursorColumn + 1)
        scroll = min(scroll, max(0, needed - fieldWidth))
        var column = 0
        var x = fieldX
        for character in characters {
            let width = DisplayWidth.of(character)
            defer { column += width }
            guard column >= scroll else { continue }
            guard x + width <= frame.maxX else { break }
            canvas.draw(String(character), at: Point(x: x, y: frame.y), style: style, width: width)
            x += width
        }
        if isFocused { canvas.cursor = Point(x: fieldX + cursorColumn - scroll, y: frame.y) }
    }
}
