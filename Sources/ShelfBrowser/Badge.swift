internal import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
internal import ShelfTerminal

/// A short text drawn at the right end of its frame's first line, over what is below; draws
/// nothing when the text is empty.
final class Badge: View {
    /// The text; setting a different value redraws.
    var text = "" { didSet { if text != oldValue { setNeedsDisplay() } } }
    private let style: Style

    init(style: Style) {
        self.style = style
        super.init()
    }

    override func draw(in canvas: inout Canvas) {
        guard !text.isEmpty else { return }
        let width = min(DisplayWidth.of(text), frame.width)
        canvas.draw(text, at: Point(x: frame.maxX - width, y: frame.y), style: style, width: width)
    }
}
