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
