/// A border with a title around one content view.
@MainActor
public final class Box: View {
    /// The title shown in the top border (when the box is wider than six cells). Setting a
    /// different value redraws.
    public var title: String { didSet { if title != oldValue { setNeedsDisplay() } } }
    /// The style of the border and (in bold) the title. Takes effect at the next draw.
    public var borderStyle: Style
    /// The view drawn inside the border.
    public let content: View

    /// A box around `content`, which becomes its first subview (it must have no superview).
    public init(title: String = "", content: View, borderStyle: Style = .plain) {
        self.title = title
        self.content = content
        self.borderStyle = borderStyle
        super.init()
        addSubview(content)
    }

    /// Gives `content` the frame inset by one cell on every side; other subviews get the whole
    /// frame.
    public override func layoutSubviews() {
        content.frame = frame.insetBy(1)
        for subview in subviews where subview !== content { subview.frame = frame }
    }

    /// Clears the frame (to `background`, or plain) and draws the border and title. Draws
    /// nothing when the frame is smaller than 2×2.
    public override func draw(in canvas: inout Canvas) {
        guard frame.width >= 2, frame.height >= 2 else { return }
        canvas.fill(frame, style: background ?? .plain)
        let inner = frame.width - 2
        let top = "┌" + String(repeating: "─", count: inner) + "┐"
        let bottom = "└" + String(repeating: "─", count: inner) + "┘"
        canvas.draw(top, at: frame.origin, style: borderStyle, width: frame.width)
        canvas.draw(bottom, at: Point(x: frame.x, y: frame.maxY - 1), style: borderStyle, width: frame.width)
        for y in frame.y + 1..<frame.maxY - 1 {
            canvas.draw("│", at: Point(x: frame.x, y: y), style: borderStyle, width: 1)
            canvas.draw("│", at: Point(x: frame.maxX - 1, y: y), style: borderStyle, width: 1)
        }
        if !title.isEmpty, inner > 4 {
            canvas.draw(
                " " + title + " ", at: Point(x: frame.x + 2, y: frame.y), style: borderStyle.with(.bold),
                width: inner - 2)
        }
    }
}
