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
