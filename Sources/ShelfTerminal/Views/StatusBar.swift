/// A one-line bar with text on the left and on the right; the left side is cut first.
@MainActor
public final class StatusBar: View {
    /// Text at the left edge, after one space; cut first when the bar is too narrow. Setting a
    /// different value redraws.
    public var left: String { didSet { if left != oldValue { setNeedsDisplay() } } }
    /// Text flush with the right edge; kept whole when possible. Setting a different value
    /// redraws.
    public var right: String { didSet { if right != oldValue { setNeedsDisplay() } } }
    /// The style of the whole bar. Takes effect at the next draw.
    public var style: Style

    /// A status bar one line high (`length` is `.fixed(1)`), reverse video by default.
    public init(left: String = "", right: String = "", style: Style = Style(attributes: .reverse)) {
        self.left = left
        self.right = right
        self.style = style
        super.init()
        length = .fixed(1)
    }

    /// Fills the frame with `style`, then draws `right` flush right and `left` in the room
    /// left over, on the frame's first line.
    public override func draw(in canvas: inout Canvas) {
        canvas.fill(frame, style: style)
        let rightWidth = min(DisplayWidth.of(Sanitizer.sanitize(right)), frame.width)
        let rightX = frame.maxX - rightWidth
        canvas.draw(right, at: Point(x: rightX, y: frame.y), style: style, width: rightWidth)
        canvas.draw(" " + left, at: frame.origin, style: style, width: max(0, rightX - frame.x - 1))
    }
}
