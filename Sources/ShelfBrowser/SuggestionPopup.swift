internal import ShelfPresentation
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
    /// How many choices match in all, when more than `lines` (which holds the best few): the
    /// border says it (hostile round 11: "1–1 of 5" when 5,000 users matched). 0: `lines`
    /// are all.
    var total = 0 { didSet { if total != oldValue { setNeedsDisplay() } } }

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

    /// The bottom border's words within `width` columns: "─ 1–3 of 5 listed, 5,000 match ",
    /// shorter when that does not fit; nil when every match shows or nothing fits.
    static func border(first: Int, rows: Int, listed: Int, total: Int, width: Int) -> String? {
        let all = max(total, listed)
        guard listed > rows || all > listed else { return nil }
        let shown = listed > rows ? "\(first + 1)–\(first + rows)" : "\(listed)"
        let count = Formatting.count(all)
        let candidates =
            all > listed
            ? [
                "─ \(shown) of \(listed) listed, \(count) match ", "─ \(shown) of \(count) match ",
                "─ \(shown) of \(count) ",
            ]
            : ["─ \(shown) of \(listed) "]
        return candidates.first { DisplayWidth.of($0) <= width }
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
        // More choices than rows, or matches than choices: say so in the border, the longest
        // words that fit.
        if let more = Self.border(first: first, rows: rows, listed: lines.count, total: total, width: inner) {
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
