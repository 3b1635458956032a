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

/// An activity indicator with a message; it turns while visible.
@MainActor
public final class Spinner: View, Animated {
    /// The text after the spinner. Setting a different value redraws.
    public var message: String { didSet { if message != oldValue { setNeedsDisplay() } } }
    /// The style of the spinner and message. Takes effect at the next draw.
    public var style: Style
    private var frameIndex = 0
    static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// A spinner one line high. While it is visible (not hidden, in a window), the application
    /// redraws on a timer to turn it; hide it when the work is done.
    public init(_ message: String = "", style: Style = .plain) {
        self.message = message
        self.style = style
        super.init()
        length = .fixed(1)
    }

    /// Always true: a visible spinner keeps the application's animation timer running.
    public override var isAnimating: Bool { true }

    func advance(to tick: Int) { frameIndex = tick % Self.frames.count }

    /// Draws the current spinner frame and the message on the frame's first line.
    public override func draw(in canvas: inout Canvas) {
        canvas.draw(Self.frames[frameIndex] + " " + message, at: frame.origin, style: style, width: frame.width)
    }
}

/// A horizontal bar filled to `fraction` (0 to 1), with an optional label after it.
@MainActor
public final class ProgressBar: View {
    /// How full the bar is, 0 to 1; values outside are clamped and NaN counts as 0. Setting a
    /// different value redraws.
    public var fraction: Double { didSet { if fraction != oldValue { setNeedsDisplay() } } }
    /// Text after the bar (e.g. "40%"); it takes at most half the width. Setting a different
    /// value redraws.
    public var label: String { didSet { if label != oldValue { setNeedsDisplay() } } }
    /// The style of the bar and label. Takes effect at the next draw.
    public var style: Style

    /// A progress bar one line high (`length` is `.fixed(1)`).
    public init(fraction: Double = 0, label: String = "", style: Style = .plain) {
        self.fraction = fraction
        self.label = label
        self.style = style
        super.init()
        length = .fixed(1)
    }

    /// The bar as text, `width` columns wide, using eighth blocks for a smooth edge.
    public static func bar(fraction: Double, width: Int) -> String {
        guard width > 0 else { return "" }
        let clamped = fraction.isNaN ? 0 : min(1, max(0, fraction))
        let eighths = Int((clamped * Double(width * 8)).rounded(.down))
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        var bar = String(repeating: "█", count: eighths / 8)
        if eighths / 8 < width { bar += partials[eighths % 8] }
        return bar + String(repeating: " ", count: width - DisplayWidth.of(bar))
    }

    /// Draws the bar (see `bar(fraction:width:)`) followed by the label on the frame's first
    /// line.
    public override func draw(in canvas: inout Canvas) {
        let labelText = label.isEmpty ? "" : " " + label
        let labelWidth = min(DisplayWidth.of(labelText), frame.width / 2)
        let barWidth = frame.width - labelWidth
        canvas.draw(Self.bar(fraction: fraction, width: barWidth), at: frame.origin, style: style, width: barWidth)
        canvas.draw(labelText, at: Point(x: frame.x + barWidth, y: frame.y), style: style, width: labelWidth)
    }
}

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

/// A box of a given size centred in its frame, drawn over what is below: for modal dialogs.
@MainActor
public final class Dialog: View {
    /// The bordered box the dialog shows, with a plain background so it hides what is below.
    public let box: Box
    /// The size wanted; the dialog shrinks to fit small screens.
    public var preferredSize: Size

    /// A dialog titled `title` around `content` (which must have no superview). Add the dialog
    /// over the views it covers, and remove it to dismiss it.
    public init(title: String, content: View, preferredSize: Size) {
        box = Box(title: title, content: content, borderStyle: Style(attributes: .bold))
        box.background = .plain
        self.preferredSize = preferredSize
        super.init()
        addSubview(box)
    }

    /// Centres the box in the frame at `preferredSize`, shrunk to fit the frame.
    public override func layoutSubviews() {
        box.frame = frame.centered(preferredSize)
    }
}
