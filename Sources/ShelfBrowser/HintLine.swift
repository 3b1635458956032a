internal import ShelfPresentation
internal import ShelfTerminal

/// A line of key hints that fits its width: as many of the hints as fit, left out by rank
/// (`KeyHint.line(_:width:separator:measure:)`), so a dialog never shows "… · E…" where its way
/// out was. A `lead` (a question, a message) comes first: the hints are left out by rank before
/// it is cut, and it is cut (ending in "…") before a hint of rank 1 would be.
@MainActor
final class HintLine: View {
    /// The hints, in the order shown. Setting different ones redraws.
    var hints: [KeyHint] = [] { didSet { if hints != oldValue { setNeedsDisplay() } } }
    /// What comes before the hints ("Delete “Dones”?"); empty for none. Setting it redraws.
    var lead = "" { didSet { if lead != oldValue { setNeedsDisplay() } } }
    /// Between two hints. Setting it redraws.
    var separator: String { didSet { if separator != oldValue { setNeedsDisplay() } } }
    /// Between the lead and the first hint.
    static let leadSeparator = " "
    /// The style of the line.
    let style: Style

    /// An empty line one row high in `style`, its hints joined by `separator`.
    init(style: Style, separator: String = " · ") {
        self.style = style
        self.separator = separator
        super.init()
        length = .fixed(1)
    }

    /// The text drawn at `width` columns.
    func text(width: Int) -> String {
        let measure = { (text: String) in DisplayWidth.of(Sanitizer.sanitize(text)) }
        guard !lead.isEmpty else { return KeyHint.line(hints, width: width, separator: separator, measure: measure) }
        guard !hints.isEmpty else { return lead }
        let gap = measure(Self.leadSeparator)
        let needed = measure(KeyHint.line(hints, width: 0, separator: separator, measure: measure))
        var shown = lead
        if measure(lead) + gap + needed > width {
            shown = TextLayout.truncate(Sanitizer.sanitize(lead), to: max(1, width - gap - needed))
        }
        let rest = KeyHint.line(hints, width: width - measure(shown) - gap, separator: separator, measure: measure)
        return shown + Self.leadSeparator + rest
    }

    override func draw(in canvas: inout Canvas) {
        let line = TextLayout.pad(Sanitizer.sanitize(text(width: frame.width)), to: frame.width)
        canvas.draw(line, at: frame.origin, style: style, width: frame.width)
    }
}
