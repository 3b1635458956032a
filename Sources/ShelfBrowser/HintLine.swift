internal import ShelfPresentation
internal import ShelfTerminal

/// A line of key hints that fits its width: as many of the hints as fit, left out by rank
/// (`KeyHint.line(_:width:measure:)`), so a dialog never shows "… · E…" where its way out was.
@MainActor
final class HintLine: View {
    /// The hints, in the order shown. Setting different ones redraws.
    var hints: [KeyHint] = [] { didSet { if hints != oldValue { setNeedsDisplay() } } }
    /// The style of the line.
    let style: Style

    /// An empty line one row high in `style`.
    init(style: Style) {
        self.style = style
        super.init()
        length = .fixed(1)
    }

    /// The text drawn at `width` columns.
    func text(width: Int) -> String {
        KeyHint.line(hints, width: width) { DisplayWidth.of(Sanitizer.sanitize($0)) }
    }

    override func draw(in canvas: inout Canvas) {
        let line = TextLayout.pad(Sanitizer.sanitize(text(width: frame.width)), to: frame.width)
        canvas.draw(line, at: frame.origin, style: style, width: frame.width)
    }
}
