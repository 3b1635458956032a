internal import ShelfTerminal

/// Completion choices in a bordered list drawn over what is below, the chosen one in
/// reverse video. Each choice is a name and a detail (a user's email) shown beside it, the
/// name cut first so the detail stays readable (`fit(_:detail:width:)`); the list scrolls to
/// keep the chosen one in sight when the popup is shorter than its choices.
@MainActor
final class SuggestionPopup: View {
    /// One choice: what it is called and what identifies it ("Ada Lovelace", "ada@x.io").
    struct Entry: Hashable {
        var text: String
        var detail = ""
    }

    var lines: [Entry] = [] { didSet { if lines != oldValue { setNeedsDisplay() } } }
    var selectedIndex = 0 { didSet { if selectedIndex != oldValue { setNeedsDisplay() } } }

    /// The height the popup needs: its lines and the border.
    var neededHeight: Int { lines.count + 2 }

    /// The columns kept for a name however long its detail: the detail is cut before it.
    static let minimumNameWidth = 10

    /// `text <detail>` in at most `width` columns, sanitized: whole when it fits, else the text
    /// cut (ending in "…", down to `minimumNameWidth`) so the detail stays whole, and the
    /// detail cut only when the two cannot share the width otherwise.
    static func fit(_ text: String, detail: String, width: Int) -> String {
        let name = Sanitizer.sanitize(text)
        guard !detail.isEmpty else { return TextLayout.truncate(name, to: width) }
        let detail = Sanitizer.sanitize(detail)
        let whole = name + " <" + detail + ">"
        guard DisplayWidth.of(whole) > width else { return whole }
        let tailWidth = DisplayWidth.of(detail) + 3
        let nameWidth = max(min(DisplayWidth.of(name), minimumNameWidth), width - tailWidth)
        let shown = TextLayout.truncate(name, to: max(1, nameWidth))
        let room = width - DisplayWidth.of(shown) - 3
        guard room >= 2 else { return TextLayout.truncate(whole, to: width) }
        return shown + " <" + TextLayout.truncate(detail, to: room) + ">"
    }

    override func draw(in canvas: inout Canvas) {
        guard frame.width >= 4, frame.height >= 1 else { return }
        canvas.fill(frame)
        // The first choice shown: the chosen one stays in sight.
        func first(_ rows: Int) -> Int { max(0, min(selectedIndex - rows + 1, lines.count - rows)) }
        guard frame.height >= 3 else {
            // Too short for a border (a small screen): the choices alone, the chosen one in sight.
            let start = first(frame.height)
            for (row, entry) in lines.dropFirst(start).prefix(frame.height).enumerated() {
                canvas.draw(
                    TextLayout.pad(Self.fit(entry.text, detail: entry.detail, width: frame.width), to: frame.width),
                    at: Point(x: frame.x, y: frame.y + row),
                    style: start + row == selectedIndex ? Theme.status : Theme.hint, width: frame.width)
            }
            return
        }
        let inner = frame.width - 2
        let rows = frame.height - 2
        let first = first(rows)
        canvas.draw("┌" + String(repeating: "─", count: inner) + "┐", at: frame.origin, width: frame.width)
        for (row, entry) in lines.dropFirst(first).prefix(rows).enumerated() {
            let y = frame.y + 1 + row
            canvas.draw("│", at: Point(x: frame.x, y: y), width: 1)
            canvas.draw(
                TextLayout.pad(Self.fit(entry.text, detail: entry.detail, width: inner), to: inner),
                at: Point(x: frame.x + 1, y: y),
                style: first + row == selectedIndex ? Theme.status : .plain, width: inner)
            canvas.draw("│", at: Point(x: frame.maxX - 1, y: y), width: 1)
        }
        var bottom = "└" + String(repeating: "─", count: inner) + "┘"
        // More choices than rows: say so in the border.
        if lines.count > rows, inner >= 12 {
            let more = "─ \(first + 1)–\(first + rows) of \(lines.count) "
            bottom = "└" + more + String(repeating: "─", count: max(0, inner - DisplayWidth.of(more))) + "┘"
        }
        canvas.draw(bottom, at: Point(x: frame.x, y: frame.maxY - 1), width: frame.width)
    }
}

/// A form's body: its rows (a stack, a `ScrollingForm`), and a popup placed under one of them
/// (the anchor) once the rows are laid out, drawn over the rows below (above the anchor when
/// there is more room there), never over the `floor`.
@MainActor
final class PopupHost: View {
    let stack: View
    let popup = SuggestionPopup()
    /// The row the popup hangs under, and the column it starts at.
    weak var anchor: View?
    var anchorOffset = 0
    /// The widest the popup gets.
    var popupWidth = 52
    /// A row the popup must not cover (a hint line under it): it ends above it.
    weak var floor: View?

    init(stack: View) {
        self.stack = stack
        super.init()
        addSubview(stack)
        addSubview(popup)
        popup.isHidden = true
    }

    override func layoutSubviews() {
        stack.frame = frame
        stack.layoutSubviews()  // the anchor's frame must be current to place the popup
        guard let anchor else { return }
        let x = anchor.frame.x + anchorOffset
        let bottom =
            floor.map { $0.frame.isEmpty ? frame.maxY : min(frame.maxY, $0.frame.y) } ?? frame.maxY
        let below = max(0, bottom - anchor.frame.maxY)
        let above = max(0, anchor.frame.y - frame.y)
        let width = max(0, min(frame.maxX - x, popupWidth))
        // Above the row when there is more room there than below it (a short screen, the
        // anchor low in the form).
        if below < min(popup.neededHeight, above) {
            let height = min(popup.neededHeight, above)
            popup.frame = Rect(x: x, y: anchor.frame.y - height, width: width, height: height)
        } else {
            popup.frame = Rect(x: x, y: anchor.frame.maxY, width: width, height: min(popup.neededHeight, below))
        }
    }
}
